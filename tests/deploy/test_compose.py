"""docker/compose.yml: it parses, every RadReview container runs a role of the entrypoint with
media in the object store, and no two of them share a data volume."""
from __future__ import annotations

import re

from .manifests import (
    compose,
    compose_app_services,
    entrypoint_roles,
    image_variables,
    settings_variables,
)

SECRET_NAME = re.compile(r"SECRET|PASSWORD|KEY_ID")


def test_every_service_runs_a_role_of_the_entrypoint():
    roles = entrypoint_roles()
    services = compose_app_services()
    assert {"bucket", "migrate", "web", "worker-cpu", "worker-gpu", "dicom-receiver",
            "hl7-listener"} <= set(services)
    for name, service in services.items():
        assert service["command"][0] in roles, name


def test_media_go_to_the_object_store_with_credentials_from_the_env_file():
    known = settings_variables() | image_variables()
    for name, service in compose_app_services().items():
        environment = service["environment"]
        assert environment["RADREVIEW_MEDIA_STORE"] == "s3", name
        assert set(environment) - known == set(), name
        for variable, value in environment.items():
            if SECRET_NAME.search(variable) or variable == "DATABASE_URL":
                # a reference that fails when docker/.env lacks it, never a value
                assert re.search(r"\$\{[A-Z0-9_]+:\?", value), (name, variable)
        # the embedded default's SQLite, broker folder and key would be each container's own
        assert {"DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SECRET_KEY"} <= set(environment)
    assert "objectstore" in compose()["services"]


def test_no_data_volume_is_shared_between_containers():
    named = set(compose()["volumes"])
    users: dict[str, list[str]] = {}
    for name, service in compose_app_services().items():
        for mount in service.get("volumes", []):
            source, target = mount.split(":")[:2]
            if source in named:
                users.setdefault(source, []).append(name)
            assert not (target == "/data" and source not in named), (name, mount)
    assert all(len(services) == 1 for services in users.values()), users


def test_processes_start_after_the_bucket_and_the_migrations():
    services = compose_app_services()
    assert services["migrate"]["depends_on"]["bucket"] == {
        "condition": "service_completed_successfully"}
    for name in ("web", "worker-cpu", "worker-gpu", "dicom-receiver", "hl7-listener"):
        assert services[name]["depends_on"]["migrate"] == {
            "condition": "service_completed_successfully"}, name
    assert services["web"]["command"] == ["serve"]  # migrating is the migrate step's alone


def test_the_gpu_worker_reserves_a_gpu_and_listeners_open_to_their_senders():
    services = compose_app_services()
    (device,) = services["worker-gpu"]["deploy"]["resources"]["reservations"]["devices"]
    assert device["capabilities"] == ["gpu"] and device["count"] == 1
    dicom = services["dicom-receiver"]["environment"]
    assert dicom["RADREVIEW_DICOM_HOST"] == "0.0.0.0"
    assert "RADREVIEW_DICOM_ALLOWED_AES" in dicom
    hl7 = services["hl7-listener"]["environment"]
    assert hl7["RADREVIEW_HL7_HOST"] == "0.0.0.0"
    assert "RADREVIEW_HL7_ALLOWED_SENDERS" in hl7
