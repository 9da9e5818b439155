"""What the account views, the admin and the signal receivers do to accounts' API tokens.

Apart from the token endpoints (tokens.py), which bring Django REST framework and its schema
tools: every process imports the admin and the receivers when Django starts, a command too.
"""
from __future__ import annotations

from knox.models import AuthToken

from radreview.audit.services import record_event


def revoke_all(user, *, reason: str, actor=None) -> int:
    """Delete every API token of ``user``; returns how many there were."""
    count, _ = AuthToken.objects.filter(user=user).delete()
    if count:
        record_event("api_tokens_revoked", actor=actor, detail={
            "user": user.pk, "tokens": count, "reason": reason,
        })
    return count
