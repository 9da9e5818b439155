"""API authentication classes (their own module: DRF's settings import them while APIView loads)."""
from knox.auth import TokenAuthentication
from rest_framework import exceptions


class ExpiringTokenAuthentication(TokenAuthentication):
    """Knox's expiring, hashed tokens, refusing a token that is not even text (knox would fail
    on it with a 500)."""

    def authenticate_credentials(self, token: bytes):
        try:
            token.decode("utf-8")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("Invalid token.") from None
        return super().authenticate_credentials(token)
