"""What the deployment tests read: the Kubernetes manifests, the compose file, the entrypoint's
roles and the variables radreview/settings.py reads."""
from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import kubernetes_validate
import yaml

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "docker" / "k8s"
COMPOSE = ROOT / "docker" / "compose.yml"
ENTRYPOINT = ROOT / "docker" / "entrypoint.sh"
# The oldest Kubernetes release the manifests are written for; its schema, with unknown fields
# refused, is what every document is checked against.
KUBERNETES_VERSION = "1.30.0"
# Files in docker/k8s that are not resources for the cluster as they stand.
NOT_RESOURCES = {"kustomization.yaml"}
# The Secret is a template the operator fills in outside the repository, never applied as is.
TEMPLATES = {"secret.example.yaml"}


def manifest_files() -> list[Path]:
    return sorted(path for path in K8S.glob("*.yaml") if path.name not in NOT_RESOURCES)


def documents(path: Path) -> list[dict]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


def validate_file(path: Path) -> list[str]:
    """Each document's kind/name once it passed the strict schema; raises on the first that
    does not (kubernetes_validate.ValidationError) or whose kind has no schema."""
    passed = []
    for doc in documents(path):
        kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
        passed.append(f"{doc['kind']}/{doc['metadata']['name']}")
    return passed


def all_documents() -> list[dict]:
    return [doc for path in manifest_files() for doc in documents(path)]


def pod_specs() -> Iterator[tuple[str, dict]]:
    for doc in all_documents():
        if doc["kind"] in ("Deployment", "Job"):
            yield doc["metadata"]["name"], doc["spec"]["template"]["spec"]


def containers(pod: dict) -> list[dict]:
    return pod.get("initContainers", []) + pod["containers"]


def by_kind(kind: str) -> list[dict]:
    return [doc for doc in all_documents() if doc["kind"] == kind]


def config_map() -> dict:
    (config,) = by_kind("ConfigMap")
    return config["data"]


def secret_template() -> dict:
    (secret,) = documents(K8S / "secret.example.yaml")
    return secret


def entrypoint_roles() -> set[str]:
    """The first words docker/entrypoint.sh knows ("web", "worker-cpu", ...), not its "*"."""
    return set(re.findall(r"^  ([a-z0-9-]+)\)$", ENTRYPOINT.read_text(), re.MULTILINE))


def settings_variables() -> set[str]:
    """Every variable name radreview/settings.py reads (each appears there as a string)."""
    text = (ROOT / "radreview" / "settings.py").read_text()
    return set(re.findall(r"""["']((?:DJANGO|RADREVIEW|DATABASE|CELERY)_[A-Z0-9_]+)["']""", text))


def image_variables() -> set[str]:
    """Variables the image's own files read: the entrypoint's and gunicorn's settings."""
    shell = re.findall(r"\$\{?([A-Z][A-Z0-9_]*)", ENTRYPOINT.read_text())
    gunicorn = re.findall(r"environ\.get\(\"([A-Z][A-Z0-9_]*)\"",
                          (ROOT / "docker" / "gunicorn.conf.py").read_text())
    return set(shell) | set(gunicorn)


def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def compose_app_services() -> dict[str, dict]:
    """The services that run RadReview's image (not PostgreSQL, Redis or the object store)."""
    return {name: service for name, service in compose()["services"].items()
            if service.get("build", {}).get("dockerfile") == "docker/Dockerfile"}
