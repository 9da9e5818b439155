from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """A RadReview user: a radiologist who reviews and signs, or an admin who runs the site."""

    class Role(models.TextChoices):
        RADIOLOGIST = "radiologist", "Radiologist"
        ADMIN = "admin", "Admin"

    role = models.CharField(max_length=20, choices=Role.choices, default=Role.RADIOLOGIST)
    # The OpenID provider's subject for accounts made by single sign-on; empty for local ones.
    oidc_subject = models.CharField(max_length=255, null=True, blank=True, unique=True,
                                    editable=False)
    # Single-key shortcuts (radreview/accounts/shortcuts.py): on or off, and the keys the user
    # chose instead of the defaults ({action: key}); set on the settings page.
    shortcuts_on = models.BooleanField(default=True)
    shortcut_keys = models.JSONField(default=dict, blank=True)

    @property
    def is_radiologist(self) -> bool:
        return self.role == self.Role.RADIOLOGIST

    @property
    def is_site_admin(self) -> bool:
        return self.role == self.Role.ADMIN

    @property
    def is_local(self) -> bool:
        """Signs in with a password here (not through the hospital's single sign-on)."""
        return not self.oidc_subject

    # Admins manage users and the site in the Django admin. Models that must never change in
    # place (decisions, signed reports, audit events) refuse edits in their ModelAdmin for everyone.
    def has_perm(self, perm, obj=None) -> bool:
        if self.is_active and self.is_site_admin:
            return True
        return super().has_perm(perm, obj)

    def has_module_perms(self, app_label) -> bool:
        if self.is_active and self.is_site_admin:
            return True
        return super().has_module_perms(app_label)

    def save(self, *args, **kwargs):
        # The Django admin (user management) is the admins' area; radiologists never reach it.
        self.is_staff = self.role == self.Role.ADMIN or self.is_superuser
        super().save(*args, **kwargs)
