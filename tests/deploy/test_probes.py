"""The web pods' readiness probe, sent as the kubelet sends it, is answered by the application
(with no login and no database query) under the settings the ConfigMap gives."""
from __future__ import annotations

from .manifests import by_kind, config_map


def web_container() -> dict:
    (web,) = [doc for doc in by_kind("Deployment") if doc["metadata"]["name"] == "web"]
    return web["spec"]["template"]["spec"]["containers"][0]


def test_the_readiness_probe_is_answered_without_the_database(client, settings):
    settings.ALLOWED_HOSTS = config_map()["DJANGO_ALLOWED_HOSTS"].split(",")
    settings.SECURE_SSL_REDIRECT = True  # as in production: the probe must not be redirected
    probe = web_container()["readinessProbe"]["httpGet"]
    headers = {header["name"]: header["value"] for header in probe["httpHeaders"]}
    assert headers["Host"] in settings.ALLOWED_HOSTS
    # No db fixture: pytest-django refuses any query here, so an answer proves the probe needs
    # no database, and an outage (answered 503 by the pods themselves) leaves them ready.
    answer = client.get(probe["path"], headers=headers)
    assert answer.status_code == 200


def test_the_probe_would_fail_with_a_host_the_settings_refuse(client, settings):
    settings.ALLOWED_HOSTS = config_map()["DJANGO_ALLOWED_HOSTS"].split(",")
    settings.SECURE_SSL_REDIRECT = True
    probe = web_container()["readinessProbe"]["httpGet"]
    answer = client.get(probe["path"], headers={"Host": "10.0.0.7:8000",
                                                "X-Forwarded-Proto": "https"})
    assert answer.status_code == 400


def test_the_ingress_host_is_allowed_and_trusted():
    (ingress,) = by_kind("Ingress")
    hosts = {rule["host"] for rule in ingress["spec"]["rules"]}
    assert hosts <= set(config_map()["DJANGO_ALLOWED_HOSTS"].split(","))
    origins = set(config_map()["DJANGO_CSRF_TRUSTED_ORIGINS"].split(","))
    assert {f"https://{host}" for host in hosts} <= origins
