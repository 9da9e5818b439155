"""Sign-in throttling: accounts are locked by django-axes, addresses are only rate-limited.

* **Per account** (django-axes): LOGIN_MAX_FAILURES failed passwords for one username, from
  any address, lock that account for LOGIN_LOCK_MINUTES or until an admin unlocks it. A locked
  account gets no session and no API token, even with the right password.
* **Per address** (here): an address may fail LOGIN_ADDRESS_MAX_FAILURES times within
  LOGIN_ADDRESS_WINDOW seconds, across all accounts; past that it waits until the window
  ends. Attempts on an account that is already locked test no password and are not counted, so
  one mistyped (or hostile) username behind a ward's shared NAT address can never lock the
  ward out. Axes is not used for this because it gives every lockout parameter the same limit
  and the same 15-minute lock.

Counts live in the shared cache (the database cache); keys are hashed. An address's entry holds
its count and the end of its window, which starts at its first failure: the database cache's
``incr`` would write the entry again with the cache's default 300-second timeout, moving the end
of the window with every failure.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import ipaddress
import math
import time

from django.conf import settings
from django.core.cache import cache
from django.http import JsonResponse
from django.shortcuts import render

from .login_page import login_context

LOCKED_MESSAGE = ("Too many failed sign-ins for this account: it is locked for {minutes} minutes. "
                  "Ask an admin to unlock it if you need access sooner.")
ADDRESS_MESSAGE = ("Too many failed sign-ins from this address. Wait {seconds} seconds and try "
                   "again.")


UNKNOWN_ADDRESS = "unknown"


def _ip(value: str) -> str | None:
    try:
        return str(ipaddress.ip_address(value.strip()))
    except ValueError:
        return None


def client_address(request) -> str:
    """The client's address: REMOTE_ADDR, or behind TRUSTED_PROXIES reverse proxies the entry
    they added to X-Forwarded-For (entries further left are the client's word, not evidence).
    Always an IP address, or "unknown"."""
    proxies = settings.TRUSTED_PROXIES
    if proxies:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        if len(forwarded) >= proxies and _ip(forwarded[-proxies]):
            return _ip(forwarded[-proxies])
    return _ip(request.META.get("REMOTE_ADDR", "")) or UNKNOWN_ADDRESS


def axes_client_ip(request) -> str | None:
    """The address axes records (an IP address column): None when it is not known."""
    address = client_address(request)
    return None if address == UNKNOWN_ADDRESS else address


# --- per account (django-axes settings call these) -------------------------------------------


def account_failure_limit(request, credentials) -> int:
    return settings.LOGIN_MAX_FAILURES


def account_lock_time(request=None) -> dt.timedelta:
    return dt.timedelta(minutes=settings.LOGIN_LOCK_MINUTES)


def clean_username(value) -> str:
    """A submitted username as it may be stored and shown: printable, at most 150 characters."""
    text = value if isinstance(value, str) else ""
    return "".join(ch for ch in text if ch.isprintable())[:150]


def axes_username(request, credentials) -> str:
    """The username axes records: printable, at most 150 characters (its column's limit and
    PostgreSQL's refusal of NUL characters would otherwise turn a hostile name into a 500)."""
    value = (credentials or {}).get("username")
    if value is None and request is not None:
        value = request.POST.get("username")
    return clean_username(value)


def lockout_response(request, original_response=None, credentials=None):
    """What a locked account's sign-in attempt gets: 429 with the reason, as JSON on the API."""
    message = LOCKED_MESSAGE.format(minutes=settings.LOGIN_LOCK_MINUTES)
    return refusal(request, message, retry_after=settings.LOGIN_LOCK_MINUTES * 60)


def refusal(request, message: str, *, retry_after: int):
    if request.path_info.startswith("/api/"):
        response = JsonResponse({"detail": message}, status=429)
    else:
        response = render(request, "accounts/login.html", login_context(request, error=message),
                          status=429)
    response["Retry-After"] = str(retry_after)
    return response


# --- per address -----------------------------------------------------------------------------


def _address_key(address: str) -> str:
    return "signin-failures:addr:" + hashlib.sha256(address.encode()).hexdigest()[:32]


def address_wait(address: str) -> int:
    """Seconds until the address may try a password again: 0 when it is under its limit."""
    count, ends = _address_window(address)
    if count < settings.LOGIN_ADDRESS_MAX_FAILURES:
        return 0
    return max(1, math.ceil(ends - time.time()))


def _address_window(address: str) -> tuple[int, float]:
    """The address's failures in its current window, and when that window ends."""
    entry = cache.get(_address_key(address))
    now = time.time()
    if isinstance(entry, tuple) and entry[1] > now:  # an older release's plain count: dropped
        return entry
    return 0, now + settings.LOGIN_ADDRESS_WINDOW


def record_address_failure(address: str) -> None:
    count, ends = _address_window(address)
    # Read and written again rather than incremented, so the window keeps its end (the
    # database cache's incr is a read and a write too: concurrent failures may count once).
    cache.set(_address_key(address), (count + 1, ends), max(1, math.ceil(ends - time.time())))


def address_refusal(request, seconds: int):
    return refusal(request, ADDRESS_MESSAGE.format(seconds=seconds), retry_after=seconds)
