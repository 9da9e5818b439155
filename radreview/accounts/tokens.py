"""API tokens (django-rest-knox): issued by ``POST /api/auth/token/``, stored only as a hash,
expiring after API_TOKEN_HOURS, revoked on logout, password change and deactivation.

The token endpoint applies the same rules as the login page: the per-address rate limit, the
per-account lock (django-axes runs inside ``authenticate``), the admins' second factor, and an
audit event for every attempt (radreview/accounts/signals.py).
"""
from __future__ import annotations

from django.contrib.auth import authenticate
from django.contrib.auth.signals import user_logged_in
from drf_spectacular.utils import extend_schema, inline_serializer
from knox.models import AuthToken
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from radreview.audit.services import record_event

from . import throttling, two_factor
from .authentication import ExpiringTokenAuthentication
from .services import revoke_all

BAD_CREDENTIALS = "Unable to sign in with the given username and password."


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False,
                                     style={"input_type": "password"})
    otp_token = serializers.CharField(required=False, allow_blank=True, max_length=16,
                                      help_text="Admins with an authenticator: its current code")


TOKEN_ISSUED = inline_serializer("TokenIssued", {
    "token": serializers.CharField(help_text='Send as "Authorization: Token <token>"'),
    "expiry": serializers.DateTimeField(),
})
# {"detail": "..."}, or for a malformed body {"field": ["..."]}.
REFUSED = inline_serializer("SignInRefused", {"detail": serializers.CharField(required=False)})


class ObtainTokenView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(request=TokenRequestSerializer, auth=[],
                   summary="Sign in with a username and password; get an expiring API token",
                   responses={200: TOKEN_ISSUED, 400: REFUSED, 429: REFUSED})
    def post(self, request):
        django_request = request._request
        wait = throttling.address_wait(throttling.client_address(django_request))
        if wait:
            return throttling.address_refusal(django_request, wait)
        body = TokenRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        user = authenticate(django_request, username=data["username"], password=data["password"])
        if user is None:
            # A locked account's refusal is rewritten to 429 by axes' middleware.
            return Response({"detail": BAD_CREDENTIALS}, status=status.HTTP_400_BAD_REQUEST)
        refused = two_factor.check_api_code(django_request, user, data.get("otp_token") or "")
        if refused:
            return Response({"detail": refused}, status=status.HTTP_400_BAD_REQUEST)
        instance, token = AuthToken.objects.create(user)
        user_logged_in.send(sender=user.__class__, request=django_request, user=user)
        return Response({"token": token, "expiry": instance.expiry})


class RevokeTokenView(APIView):
    authentication_classes = [ExpiringTokenAuthentication]
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={204: None},
                   summary="Revoke the token this request is signed with")
    def post(self, request):
        request.auth.delete()
        record_event("api_token_revoked", actor=request.user, detail={"reason": "logout"})
        return Response(status=status.HTTP_204_NO_CONTENT)


class RevokeAllTokensView(APIView):
    authentication_classes = [ExpiringTokenAuthentication]
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={204: None},
                   summary="Revoke every API token of the signed-in user")
    def post(self, request):
        revoke_all(request.user, reason="logout everywhere", actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
