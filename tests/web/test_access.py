"""Every page and API call needs a login, and admin areas need the admin role."""
import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from radreview.accounts.models import User
from tests import factories

# The ways in (single sign-on answers 404 while it is not configured).
PUBLIC = {"/accounts/login/", "/admin/login/", "/api/auth/token/", "/accounts/sso/",
          "/accounts/sso/callback/"}


def all_paths(resolver=None, prefix=""):
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        pattern = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from all_paths(entry, pattern)
        elif isinstance(entry, URLPattern):
            path = re.sub(r"<drf_format_suffix:\w+>", "", pattern)
            path = re.sub(r"<int:\w+>", "1", path)
            path = re.sub(r"<(?:\w+:)?\w+>", "x", path)
            path = path.replace("^", "").replace("$", "").replace("\\", "")
            if "(" in path or "?" in path:
                # regex patterns the admin and DRF formats add; covered by their base paths
                continue
            yield "/" + path


@pytest.mark.django_db
def test_every_page_and_api_call_needs_a_login(client):
    paths = sorted(set(all_paths()) - PUBLIC)
    assert len(paths) > 10
    for path in paths:
        response = client.get(path)
        if path.startswith("/api/"):
            assert response.status_code in (401, 403), path
        else:
            assert response.status_code == 302, path
            assert "/login/" in response["Location"], path


@pytest.mark.django_db
def test_login_page_is_public(client):
    assert client.get("/accounts/login/").status_code == 200


def test_radiologist_cannot_reach_the_admin_area(radiologist_client):
    response = radiologist_client.get("/admin/")
    assert response.status_code in (302, 403)
    if response.status_code == 302:
        assert radiologist_client.get(response["Location"]).status_code == 403
    assert radiologist_client.get("/admin/accounts/user/").status_code in (302, 403)


def test_admin_manages_users_in_the_admin_area(admin_client_):
    assert admin_client_.get("/admin/accounts/user/").status_code == 200
    response = admin_client_.post(
        "/admin/accounts/user/add/",
        {
            "username": "new-reader",
            "password1": "a-long-pass-phrase",
            "password2": "a-long-pass-phrase",
            "role": User.Role.RADIOLOGIST,
            "usable_password": "true",
        },
    )
    assert response.status_code == 302, response.content[:2000]
    assert User.objects.get(username="new-reader").role == User.Role.RADIOLOGIST


@pytest.mark.django_db
def test_api_accepts_a_token_and_refuses_without(client, api_client):
    assert client.get("/api/studies/").status_code in (401, 403)
    assert api_client.get("/api/studies/").status_code == 200


@pytest.mark.django_db
def test_api_token_is_issued_for_valid_credentials(client):
    user = factories.make_user()
    response = client.post(
        "/api/auth/token/", {"username": user.username, "password": factories.PASSWORD}
    )
    assert response.status_code == 200 and response.json()["token"]
    bad = client.post("/api/auth/token/", {"username": user.username, "password": "wrong"})
    assert bad.status_code == 400


@pytest.mark.django_db
def test_openapi_schema_is_served_to_logged_in_users(api_client):
    response = api_client.get("/api/schema/")
    assert response.status_code == 200
    assert b"/api/studies/" in response.content
