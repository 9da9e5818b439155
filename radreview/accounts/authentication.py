"""API authentication classes (their own module: DRF's settings import them while APIView loads)."""
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object
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


class ExpiringTokenScheme(OpenApiAuthenticationExtension):
    """How the OpenAPI schema describes the token: ``Authorization: Token <key>``."""

    target_class = ExpiringTokenAuthentication
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return build_bearer_security_scheme_object(header_name="Authorization",
                                                   token_prefix="Token")
