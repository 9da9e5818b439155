"""Fixtures shared by the whole suite: users, logged-in clients, a real Celery worker."""
from __future__ import annotations

import pytest
from knox.models import AuthToken
from rest_framework.test import APIClient

from radreview.accounts.models import User

from . import factories
from .support import media
from .support.two_factor import verified_login


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    """Each test writes uploads, previews and library indexes to its own folders (workers
    started by the test get the same folders through the environment)."""
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.INDEX_DIR = tmp_path / "indexes"
    for name, value in media.overrides(media.own_folder()).items():  # a folder in the bucket
        setattr(settings, name, value)
    return settings.MEDIA_ROOT


@pytest.fixture
def object_store(settings):
    """A private S3-compatible server (moto's) holding this test's media, in either pass: for
    tests that stop and start the store."""
    from .support.object_store import ObjectStore

    store = ObjectStore()
    store.start()
    media.point_at(settings, store, media.own_folder())
    yield store
    store.close()


@pytest.fixture
def radiologist(db) -> User:
    return factories.make_user(User.Role.RADIOLOGIST)


@pytest.fixture
def site_admin(db) -> User:
    return factories.make_user(User.Role.ADMIN)


@pytest.fixture
def radiologist_client(client, radiologist):
    client.force_login(radiologist)
    return client


@pytest.fixture
def admin_client_(client, site_admin):
    """An admin signed in with the authenticator's code, as the site requires by default."""
    return verified_login(client, site_admin)


@pytest.fixture
def api_client(radiologist) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(radiologist)[1]}")
    return api


@pytest.fixture
def celery_worker(transactional_db):
    """A real Celery worker process on the test database and the configured broker."""
    from .support.worker import WorkerProcess

    worker = WorkerProcess()
    worker.start()
    yield worker
    worker.stop()


@pytest.fixture(scope="session")
def oidc_provider():
    """A real OpenID Connect provider (django-oauth-toolkit) in its own process."""
    from .support.oidc import start_provider

    provider = start_provider()
    yield provider
    provider.stop()


@pytest.fixture
def sso(settings, oidc_provider):
    """RadReview's single sign-on pointed at the test provider."""
    for name, value in oidc_provider.settings().items():
        setattr(settings, name, value)
    return oidc_provider
