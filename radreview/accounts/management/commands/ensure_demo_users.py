"""Create the demo radiologist and admin of the embedded default, once.

Credentials come from RADREVIEW_DEMO_RADIOLOGIST / RADREVIEW_DEMO_ADMIN ("username:password")
when set; otherwise passwords are generated on first run, kept (readable by the owner only) in
the data folder and printed on every run so the person who started the app can log in. The
demo admin, like every local admin, sets up an authenticator app at the first sign-in unless
RADREVIEW_ADMIN_TOTP_REQUIRED=0 (docs/security.md); the command says so while it has none.
"""
import json
import os
import secrets

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from radreview.accounts import two_factor
from radreview.accounts.models import User

DEMO_USERS = (
    ("RADREVIEW_DEMO_RADIOLOGIST", "radiologist", User.Role.RADIOLOGIST),
    ("RADREVIEW_DEMO_ADMIN", "admin", User.Role.ADMIN),
)


class Command(BaseCommand):
    help = "Create the demo radiologist and admin accounts if they do not exist, and print them."

    def handle(self, *args, **options):
        store = settings.DATA_DIR / "demo_credentials.json"
        saved = json.loads(store.read_text()) if store.exists() else {}
        for variable, default_name, role in DEMO_USERS:
            username, password = self._credentials(variable, default_name, saved)
            user, created = User.objects.get_or_create(username=username, defaults={"role": role})
            if created or os.environ.get(variable):
                user.role = role
                user.set_password(password)
                user.save()
            saved[default_name] = [username, password]
            self.stdout.write(f"  {role:<12} username: {username:<14} password: {password}")
            if (settings.ADMIN_TOTP_REQUIRED and two_factor.applies_to(user)
                    and two_factor.device_of(user) is None):
                self.stdout.write(f"  {'':<12} the first sign-in sets up an authenticator app "
                                  "(scan the QR code the page shows)")
        fd = os.open(store, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            json.dump(saved, handle)

    def _credentials(self, variable, default_name, saved):
        if os.environ.get(variable):
            username, sep, password = os.environ[variable].partition(":")
            if not sep or not username or not password:
                raise CommandError(f"{variable} must look like username:password")
            return username, password
        if default_name in saved:
            return tuple(saved[default_name])
        return default_name, secrets.token_urlsafe(12)
