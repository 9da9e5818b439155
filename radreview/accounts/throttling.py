"""Login throttling: too many failed logins lock a username and a client address for a while.

Counts live in the shared cache (the database cache by default) so every web process sees them.
Keys are hashed: usernames never sit in the cache in clear text.
"""
from __future__ import annotations

import hashlib

from django.conf import settings
from django.core.cache import cache


def _key(kind: str, value: str) -> str:
    digest = hashlib.sha256(value.strip().lower().encode()).hexdigest()[:32]
    return f"login-failures:{kind}:{digest}"


def _keys(username: str, address: str) -> list[str]:
    keys = [_key("addr", address or "unknown")]
    if username:
        keys.append(_key("user", username))
    return keys


def is_locked(username: str, address: str) -> bool:
    limit = settings.LOGIN_MAX_FAILURES
    return any((cache.get(key) or 0) >= limit for key in _keys(username, address))


def record_failure(username: str, address: str) -> None:
    window = settings.LOGIN_FAILURE_WINDOW_SECONDS
    for key in _keys(username, address):
        if cache.add(key, 1, window):
            continue
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.set(key, 1, window)


def clear_failures(username: str, address: str) -> None:
    cache.delete_many(_keys(username, address))


def client_address(request) -> str:
    return request.META.get("REMOTE_ADDR", "")
