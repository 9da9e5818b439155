"""The test OpenID provider (tests/support/oidc_provider/) as a child process, and the RadReview
settings that point single sign-on at it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLIENT_ID, CLIENT_SECRET = "radreview", "a-client-secret-for-tests-only"
PASSWORD = "provider-pass-123"
# username -> the roles the hospital directory gives them
USERS = {"alice": ["radiologist"], "bob": ["admin"], "carol": ["nurse"],
         "dave": ["radiologist", "admin"]}
# The test client's host, and loopback (any port, RFC 8252) for the browser's live server.
REDIRECT_URIS = ["http://testserver/accounts/sso/callback/",
                 "http://127.0.0.1/accounts/sso/callback/"]


@dataclass
class Provider:
    url: str
    process: subprocess.Popen

    def settings(self) -> dict:
        """RadReview's OIDC settings for this provider, as the environment would give them."""
        return {
            "OIDC_ENABLED": True, "OIDC_RP_CLIENT_ID": CLIENT_ID,
            "OIDC_RP_CLIENT_SECRET": CLIENT_SECRET,
            "OIDC_OP_AUTHORIZATION_ENDPOINT": f"{self.url}/o/authorize/",
            "OIDC_OP_TOKEN_ENDPOINT": f"{self.url}/o/token/",
            "OIDC_OP_USER_ENDPOINT": f"{self.url}/o/userinfo/",
            "OIDC_OP_JWKS_ENDPOINT": f"{self.url}/o/.well-known/jwks.json",
            "OIDC_PROVIDER_NAME": "Hospital sign-in",
        }

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def start_provider(timeout: float = 60.0) -> Provider:
    config = {"client": {"id": CLIENT_ID, "secret": CLIENT_SECRET, "redirect_uris": REDIRECT_URIS},
              "users": [{"username": name, "password": PASSWORD, "roles": roles,
                         "email": f"{name}@hospital.test"} for name, roles in USERS.items()]}
    config_file = Path(tempfile.mkdtemp(prefix="oidc-config-")) / "config.json"
    config_file.write_text(json.dumps(config))
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("DJANGO_", "DATABASE_", "RADREVIEW_"))}
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.oidc_provider.serve", str(config_file)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    lines = []
    for line in process.stdout:  # blocks until the provider prints READY or exits
        lines.append(line)
        if line.startswith("READY "):
            return Provider(url=f"http://127.0.0.1:{int(line.split()[1])}", process=process)
    process.wait(timeout=timeout)
    raise RuntimeError("the OpenID provider did not start:\n" + "".join(lines))
