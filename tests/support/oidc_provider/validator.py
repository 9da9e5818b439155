from oauth2_provider.oauth2_validators import OAuth2Validator


class RoleClaims(OAuth2Validator):
    """Every claim in the ID token and userinfo; the user's groups are the ``roles`` claim
    (how a hospital directory hands out application roles)."""

    oidc_claim_scope = None

    def get_additional_claims(self, request):
        user = request.user
        return {
            "preferred_username": user.username, "email": user.email,
            "given_name": user.first_name, "family_name": user.last_name,
            "roles": sorted(user.groups.values_list("name", flat=True)),
        }
