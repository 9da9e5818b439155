"""No 500 on any input: every URL pattern of the project, as each role, with hostile values in
the path, the query string and the form body, and every API endpoint with nested, huge and
wrong-typed JSON bodies.

The walk is generic: URL patterns come from the resolver and parameter names from the source
(every ``.get("name"`` on a query or form, every form and serializer field), so pages other
branches add are walked too.
"""
from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from radreview.accounts.models import User
from radreview.jobs.models import Job
from tests import factories
from tests.support.two_factor import verified_login
from tests.web.review import factories as rf

ROOT = Path(__file__).resolve().parents[2]
BIG = "99999999999999999999"
CONTROL = "\x00\x01\x1b[2J\u202e\u200b"
LONG = "x" * 4000
QUERY_VALUES = (BIG, "-" + BIG, CONTROL + "../../etc/passwd" + LONG, "2024-02-30")
FORM_VALUES = (CONTROL + LONG, "1e309")
WAYS_IN = {"/accounts/login/", "/admin/login/", "/api/auth/token/", "/accounts/sso/",
           "/accounts/sso/callback/"}
PATH_VALUES = {"int": (BIG,), "str": (LONG + "%1b", "..%2F..%2Fetc"), "slug": ("x" * 300,),
               "path": (BIG, "..%2F..%2F%1b")}
JSON_BODIES = (
    "[" * 1100 + "]" * 1100,  # deeper than Python's JSON decoder recurses
    '{"a":' * 40 + "1" + "}" * 40,
    json.dumps({"text": "x" * (1100 * 1024)}),
    json.dumps({"action": [], "sentence": {"x": 1}, "version": "nine", "detection": BIG,
                "text": 7, "username": ["a"], "password": None, "otp_token": {}}),
    json.dumps({"sentence": int(BIG), "version": int(BIG), "detection": -int(BIG),
                "action": "edit", "text": CONTROL}),
    json.dumps([1, 2, 3]), "NaN", "\xff\xfe",
)


def parameter_names() -> list[str]:
    """Query and form parameter names the code reads, and every declared form/serializer field."""
    names = {"page", "q", "o", "p", "e", "all", "_popup", "_to_field", "next", "format"}
    readers = re.compile(r'(?:GET|POST|query_params|query|data)\.get\(\s*"(\w+)"')
    fields = re.compile(r"^\s+(\w+) = (?:forms|serializers)\.\w+", re.MULTILINE)
    for source in (ROOT / "radreview").rglob("*.py"):
        text = source.read_text()
        names.update(readers.findall(text))
        names.update(fields.findall(text))
    return sorted(names)


def url_patterns(resolver=None, prefix=""):
    for entry in (resolver or get_resolver()).url_patterns:
        pattern = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from url_patterns(entry, pattern)
        elif isinstance(entry, URLPattern):
            yield pattern


def _route_paths(pattern: str, known: dict[str, str]) -> list[str]:
    """The pattern with real values first, then with each hostile value in place of each part."""
    parts = re.findall(r"<(?:(\w+):)?(\w+)>", pattern)

    def fill(values: dict[str, str]) -> str:
        def one(match):
            return values[match.group(2)]
        return "/" + re.sub(r"<(?:(\w+):)?(\w+)>", one, pattern)

    real = {name: known.get(name, known["pk"]) for _, name in parts}
    paths = [fill(real)]
    for converter, name in parts:
        for value in PATH_VALUES.get(converter or "str", ()):
            paths.append(fill({**real, name: value}))
    return paths


def _regex_paths(pattern: str, known: dict[str, str]) -> list[str]:
    def group(match):
        name, body = match.group(1), match.group(2)
        if re.fullmatch(r"[\w|]+", body):
            return body.split("|")[0]
        return known.get(name, known["pk"]) if name != "format" else "json"

    path = re.sub(r"\(\?P<(\w+)>((?:[^()]|\([^()]*\))*)\)", group, pattern)
    path = path.replace("^", "").replace("$", "").replace("/?", "/").replace("\\.", ".")
    return ["/" + path, "/" + path.replace(known["pk"], BIG)]


def all_paths(known: dict[str, str]) -> dict[str, bool]:
    """Every path to walk, and whether it is a pattern's real variant (walked thoroughly)."""
    paths: dict[str, bool] = {}
    for pattern in url_patterns():
        pattern = re.sub(r"<drf_format_suffix:\w+>", "", pattern)
        make = _regex_paths if "(?P<" in pattern or "^" in pattern else _route_paths
        real, *hostile = make(pattern, known)
        paths[real] = True
        for path in hostile:
            paths.setdefault(path, False)
    return paths


@pytest.fixture
def world(db):
    radiologist = factories.make_user(User.Role.RADIOLOGIST)
    admin = factories.make_user(User.Role.ADMIN)
    study = rf.make_review_study(radiologist, dicom=True)
    job = Job.objects.filter(study=study).first()
    image = study.images.first()
    known = {"pk": str(study.pk), "study_pk": str(study.pk), "image_pk": str(image.pk),
             "job_pk": str(job.pk), "version": "1", "object_id": str(radiologist.pk),
             "id": str(radiologist.pk), "content_type_id": "1", "role": "llm",
             "variant": "preview", "preset": "default", "fmt": "txt", "url": "x"}
    return {"users": {"anonymous": None, "radiologist": radiologist, "admin": admin},
            "known": known}


def _requests(path: str, names: list[str], thorough: bool, light: bool = False):
    """(method, data, content type) for one path; thorough paths get every hostile value,
    light ones (anonymous, refused before any parsing) one GET and one POST."""
    for value in QUERY_VALUES if thorough else QUERY_VALUES[2:3]:
        yield "get", {name: value for name in names}, None
    for value in FORM_VALUES if thorough else FORM_VALUES[:1]:
        yield "post", {name: value for name in names}, None
    if path.startswith("/api/") and (thorough or not light):
        for body in JSON_BODIES if thorough else JSON_BODIES[:1]:
            yield "post", body, "application/json"
        for method in ("put", "patch", "delete"):
            yield method, JSON_BODIES[3], "application/json"


@pytest.mark.parametrize("role", ["anonymous", "radiologist", "admin"])
def test_no_url_answers_5xx_to_hostile_input(world, role):
    user = world["users"][role]
    names = parameter_names()
    client = Client(raise_request_exception=False)
    failures, count = [], 0
    if user is not None:
        verified_login(client, user)
    for path, real in all_paths(world["known"]).items():
        # Anonymous requests (but at the ways in) and a radiologist in the admin area stop at the
        # door, hostile ids at the lookup: a light touch is enough there.
        thorough = real and (path in WAYS_IN if user is None else not (
            role == "radiologist" and path.startswith("/admin/")))
        for method, data, content_type in _requests(path, names, thorough, light=user is None):
            kwargs = {"content_type": content_type} if content_type else {}
            response = getattr(client, method)(path, data, **kwargs)
            count += 1
            if user is not None and method != "get" and "logout" in path:
                verified_login(client, user)
            if response.status_code >= 500:
                exc = getattr(response, "exc_info", None)
                failures.append(f"{method.upper()} {path[:120]} -> {response.status_code} "
                                f"{exc[1]!r:.300}" if exc else "")
    assert count > 500
    assert not failures, f"{len(failures)} of {count} requests failed:\n" + "\n".join(
        itertools.islice(dict.fromkeys(failures), 60))
