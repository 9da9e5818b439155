"""Start the test OpenID provider: ``python -m tests.support.oidc_provider.serve CONFIG.json``.

CONFIG names the client (id, secret, redirect URIs) and the users (username, password, roles).
The provider listens on a free loopback port and prints ``READY <port>`` once it serves.
"""
import json
import os
import sys
import tempfile
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa


class ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


def _private_key() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def main(config_path: str) -> None:
    config = json.loads(open(config_path).read())
    folder = tempfile.mkdtemp(prefix="oidc-provider-")
    os.environ.update(DJANGO_SETTINGS_MODULE="tests.support.oidc_provider.settings",
                      OIDC_PROVIDER_DB=os.path.join(folder, "provider.sqlite3"),
                      OIDC_PROVIDER_KEY=_private_key())
    import django
    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from django.core.wsgi import get_wsgi_application
    from oauth2_provider.models import Application

    call_command("migrate", verbosity=0)
    for person in config["users"]:
        user = User.objects.create_user(person["username"], person.get("email", ""),
                                        person["password"])
        for role in person.get("roles", []):
            user.groups.add(Group.objects.get_or_create(name=role)[0])
    client = config["client"]
    Application.objects.create(
        name="RadReview", client_id=client["id"], client_secret=client["secret"],
        client_type=Application.CLIENT_CONFIDENTIAL, algorithm=Application.RS256_ALGORITHM,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris=" ".join(client["redirect_uris"]), skip_authorization=True,
    )
    server = make_server("127.0.0.1", 0, get_wsgi_application(), server_class=ThreadingServer,
                         handler_class=QuietHandler)
    print(f"READY {server.server_port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1])
