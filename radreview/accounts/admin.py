from axes.models import AccessAttempt
from axes.utils import reset as axes_reset
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm
from knox.models import AuthToken

from radreview.audit.services import record_event

from .models import User
from .services import revoke_all


class UserForm(UserChangeForm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Django's password summary has no id of its own, so its help text gets none while the
        # summary points at "id_password_helptext": a reference to nothing. Its own words and
        # its reset button say what there is to say.
        if "password" in self.fields:
            self.fields["password"].help_text = ""


@admin.register(User)
class RadReviewUserAdmin(UserAdmin):
    form = UserForm
    list_display = ("username", "first_name", "last_name", "role", "is_active", "sign_in",
                    "last_login")
    list_filter = ("role", "is_active")
    fieldsets = UserAdmin.fieldsets + (("RadReview", {"fields": ("role",)}),)
    add_fieldsets = UserAdmin.add_fieldsets + (("RadReview", {"fields": ("role",)}),)
    actions = ["unlock_sign_in", "revoke_api_tokens"]
    # WCAG 2.1 AA (docs/review.md): Django's two-box chooser draws search icons with a label a
    # screen reader ignores, and its split date/time inputs have none; plain lists, and the
    # sign-in dates as records (they are not edited by hand).
    filter_horizontal = ()
    readonly_fields = ("last_login", "date_joined")

    @admin.display(description="sign-in")
    def sign_in(self, user) -> str:
        kind = "local" if user.is_local else "single sign-on"
        failures = sum(AccessAttempt.objects.filter(username=user.username)
                       .values_list("failures_since_start", flat=True))
        return f"{kind}, {failures} recent failure{'s' if failures != 1 else ''}" if failures \
            else kind

    @admin.action(description="Unlock sign-in (clear failed attempts)")
    def unlock_sign_in(self, request, queryset):
        for user in queryset:
            cleared = axes_reset(username=user.username)
            record_event("account_unlocked", actor=request.user, detail={
                "user": user.pk, "username": user.username, "attempts_cleared": cleared,
            })
        messages.success(request, f"Unlocked {queryset.count()} account(s).")

    @admin.action(description="Revoke API tokens")
    def revoke_api_tokens(self, request, queryset):
        total = sum(revoke_all(user, reason="revoked by an admin", actor=request.user)
                    for user in queryset)
        messages.success(request, f"Revoked {total} API token(s).")


admin.site.unregister(AuthToken)


@admin.register(AuthToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """API tokens: listed with owner and expiry (the token itself is never stored) and revoked
    by deleting them."""

    list_display = ("user", "token_key", "created", "expiry")
    list_filter = ("user",)
    ordering = ("-created",)
    actions = ["revoke"]

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # revoking goes through the audited action
        return actions

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request, queryset):
        for token in queryset.select_related("user"):
            record_event("api_token_revoked", actor=request.user, detail={
                "user": token.user_id, "token_key": token.token_key,
                "reason": "revoked by an admin",
            })
        count, _ = queryset.delete()
        messages.success(request, f"Revoked {count} API token(s).")

    def delete_model(self, request, obj):
        record_event("api_token_revoked", actor=request.user, detail={
            "user": obj.user_id, "token_key": obj.token_key, "reason": "revoked by an admin",
        })
        super().delete_model(request, obj)
