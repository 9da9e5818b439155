"""The Kubernetes manifests (docker/k8s/): valid against the pinned release's schema with unknown
fields refused, and consistent with the image, the settings and the application."""
from __future__ import annotations

import re

import kubernetes_validate
import pytest
import yaml

from .manifests import (
    K8S,
    NOT_RESOURCES,
    ROOT,
    TEMPLATES,
    by_kind,
    config_map,
    containers,
    documents,
    entrypoint_roles,
    image_variables,
    manifest_files,
    pod_specs,
    secret_template,
    settings_variables,
    validate_file,
)

# Set in the manifests for the libraries, not for RadReview (configmap.yaml says why).
PROCESS_VARIABLES = {"HOME"}


@pytest.mark.parametrize("path", manifest_files(), ids=lambda path: path.name)
def test_every_document_passes_the_strict_schema(path):
    assert validate_file(path)


def test_the_check_refuses_a_broken_manifest(tmp_path):
    web = (K8S / "web.yaml").read_text()
    cases = {
        # a misspelt field: a lax check would drop it and deploy one replica silently
        "unknown-field.yaml": web.replace("  replicas: 2\n", "  replica: 2\n", 1),
        # a port given as a word where a number is required
        "wrong-type.yaml": web.replace("containerPort: 8000", "containerPort: eight-thousand"),
        # a required field missing: a Service port without its number
        "missing-field.yaml": web.replace("ports: [{name: http, port: 80, targetPort: http}]",
                                          "ports: [{name: http, targetPort: http}]"),
    }
    for name, text in cases.items():
        assert text != web, name
        broken = tmp_path / name
        broken.write_text(text)
        with pytest.raises(kubernetes_validate.ValidationError):
            validate_file(broken)
            pytest.fail(f"{name} passed the check")


def test_the_kustomization_applies_every_manifest():
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    listed = set(kustomization["resources"])
    on_disk = {path.name for path in K8S.glob("*.yaml")} - NOT_RESOURCES - TEMPLATES
    assert listed == on_disk
    assert kustomization["namespace"] == "radreview"
    assert [image["name"] for image in kustomization["images"]] == ["radreview"]


def test_every_container_runs_a_role_of_the_entrypoint():
    roles = entrypoint_roles()
    seen = set()
    for name, pod in pod_specs():
        for container in containers(pod):
            # No command: the image's entrypoint (docker/entrypoint.sh) starts every container.
            assert "command" not in container, (name, container["name"])
            assert container["image"] == "radreview", (name, container["name"])
            assert container["args"][0] in roles, (name, container["args"])
            seen.add(container["args"][0])
    # Each process scripts/run.sh starts on one machine has its deployment here.
    assert {"serve", "worker-cpu", "worker-gpu", "dicom-receiver", "hl7-listener",
            "migrate"} <= seen


def test_the_entrypoint_starts_what_scripts_run_sh_starts():
    run_sh = (ROOT / "scripts" / "run.sh").read_text()
    entrypoint = (ROOT / "docker" / "entrypoint.sh").read_text()
    # run.sh calls the virtual environment's programs ("$VENV/bin/celery" -A ...)
    for command in (r"run_dicom_receiver", r"run_hl7_listener", r'gunicorn"? radreview\.wsgi',
                    r'celery"? -A radreview worker'):
        assert re.search(command, run_sh) and re.search(command, entrypoint), command


def test_every_variable_is_read_by_the_settings_or_the_image():
    known = settings_variables() | image_variables() | PROCESS_VARIABLES
    names = set(config_map()) | set(secret_template()["stringData"])
    for _, pod in pod_specs():
        for container in containers(pod):
            names |= {variable["name"] for variable in container.get("env", [])}
            refs = {ref.get("configMapRef", ref.get("secretRef"))["name"]
                    for ref in container.get("envFrom", [])}
            assert refs <= {"radreview-config", "radreview-secrets"}
    assert names - known == set()
    # the store's settings, which the media code needs on every host
    assert {"RADREVIEW_MEDIA_STORE", "RADREVIEW_S3_BUCKET", "RADREVIEW_S3_ENDPOINT",
            "RADREVIEW_S3_ACCESS_KEY_ID", "RADREVIEW_S3_SECRET_ACCESS_KEY"} <= names
    assert config_map()["RADREVIEW_MEDIA_STORE"] == "s3"


def test_every_pod_shares_the_database_the_broker_and_the_secret_key():
    # Without them each pod would quietly fall back to the embedded default in its own /data:
    # a SQLite database, a broker folder and a secret key of its own (sessions signed by one
    # web pod refused by the next).
    assert {"DJANGO_SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL"} <= set(
        secret_template()["stringData"])
    for name, pod in pod_specs():
        for container in containers(pod):
            if container["args"][0] == "seed-data":
                continue  # copies files, runs no Python
            refs = {ref.get("secretRef", {}).get("name") for ref in container.get("envFrom", [])}
            assert "radreview-secrets" in refs, (name, container["name"])


def test_the_secret_is_a_template_of_placeholders():
    secret = secret_template()
    assert "data" not in secret  # base64 would hide a real value from review
    for key, value in secret["stringData"].items():
        assert "CHANGE-ME" in value, key
    # Secrets live only in the Secret: nothing secret-looking in the ConfigMap or a container.
    secret_name = re.compile(r"SECRET|PASSWORD|TOKEN|KEY_ID|DATABASE_URL|BROKER_URL")
    assert not [key for key in config_map() if secret_name.search(key)]
    for _, pod in pod_specs():
        for container in containers(pod):
            for variable in container.get("env", []):
                assert not secret_name.search(variable["name"]), variable
    # the kustomization applies no Secret of its own: only the operator's filled-in copy
    applied = [doc for path in manifest_files() if path.name not in TEMPLATES
               for doc in documents(path)]
    assert "Secret" not in {doc["kind"] for doc in applied}


def test_the_gpu_worker_requests_one_gpu_and_the_others_none():
    for name, pod in pod_specs():
        for container in pod["containers"]:
            resources = container["resources"]
            gpus = {resources.get(part, {}).get("nvidia.com/gpu")
                    for part in ("requests", "limits")}
            if container["args"] == ["worker-gpu"]:
                assert gpus == {"1"}, name
                assert pod["tolerations"] and pod["nodeSelector"], name
            else:
                assert gpus == {None}, name


def test_pods_run_unprivileged_on_a_read_only_root():
    for name, pod in pod_specs():
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        # the image's user (docker/Dockerfile: useradd --uid 1000)
        assert pod["securityContext"]["runAsUser"] == 1000, name
        mounts = set()
        for container in containers(pod):
            context = container["securityContext"]
            assert context["readOnlyRootFilesystem"] is True, (name, container["name"])
            assert context["allowPrivilegeEscalation"] is False, (name, container["name"])
            assert context["capabilities"]["drop"] == ["ALL"], (name, container["name"])
            assert container["resources"]["requests"] and container["resources"]["limits"]
            mounts |= {mount["mountPath"] for mount in container.get("volumeMounts", [])}
        # the application writes under /data (settings.DATA_DIR) and Python under /tmp
        assert {"/data", "/tmp"} <= mounts | {"/seed"}, name


def test_one_dicom_receiver_replaced_not_rolled():
    (receiver,) = [doc for doc in by_kind("Deployment")
                   if doc["metadata"]["name"] == "dicom-receiver"]
    assert receiver["spec"]["replicas"] == 1
    assert receiver["spec"]["strategy"] == {"type": "Recreate"}


def test_listeners_are_reachable_on_the_ports_they_listen_on():
    from django.conf import settings

    ports = {doc["metadata"]["name"]: doc["spec"] for doc in by_kind("Service")}
    assert ports["dicom-receiver"]["ports"][0]["port"] == settings.DICOM_PORT
    assert ports["hl7-listener"]["ports"][0]["port"] == settings.HL7_PORT
    for name in ("dicom-receiver", "hl7-listener"):
        assert ports[name]["type"] in ("LoadBalancer", "NodePort")
