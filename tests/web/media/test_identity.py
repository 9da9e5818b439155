"""A deployment's media folder knows its database (radreview/media/identity.py)."""
from __future__ import annotations

import json
import uuid

import pytest
from django.core.management import CommandError, call_command

from radreview.media import identity
from radreview.media.models import Deployment
from radreview.studies.models import Image
from radreview.studies.storage import write_media_atomically
from tests import factories
from tests.support import media

pytestmark = pytest.mark.django_db


def _marker(media_root, value: str) -> None:
    """Another deployment's marker, replacing any (in the folder or the bucket)."""
    write_media_atomically(identity.MARKER_NAME, json.dumps(
        {"deployment": value, "created_at": "2026-01-02T03:04:05+00:00"}).encode())


def test_the_first_start_creates_both_and_later_starts_agree(media_root):
    first = identity.ensure()
    assert Deployment.objects.get().identity == first
    assert json.loads(media.read(identity.MARKER_NAME))["deployment"] == str(
        first)
    assert identity.ensure() == first


def test_a_database_and_media_of_two_deployments_are_refused_naming_both(media_root):
    ours = identity.ensure()
    theirs = str(uuid.uuid4())
    _marker(media_root, theirs)
    with pytest.raises(identity.DeploymentMismatch) as refused:
        identity.ensure()
    assert str(ours) in str(refused.value) and theirs in str(refused.value)
    assert "SQLite" in str(refused.value) or "PostgreSQL" in str(refused.value)


def test_a_new_database_against_a_deployments_media_is_refused(media_root):
    theirs = str(uuid.uuid4())
    _marker(media_root, theirs)
    with pytest.raises(identity.DeploymentMismatch, match="has no deployment identity"):
        identity.ensure()
    assert not Deployment.objects.exists()


def test_a_new_database_against_unmarked_media_full_of_images_is_refused(media_root):
    """The media of a deployment from before identities, met by a database that names none of
    its files: the case that once deleted a signed study's images."""
    write_media_atomically("studies/1/originals/000-0123456789abcdef.dcm", b"DICM")
    with pytest.raises(identity.DeploymentMismatch, match="does not name"):
        identity.ensure()
    assert not Deployment.objects.exists()
    assert not media.exists(identity.MARKER_NAME)


def test_a_deployment_from_before_identities_is_adopted_by_its_own_database(media_root,
                                                                           radiologist):
    name = write_media_atomically("studies/1/originals/000-0123456789abcdef.dcm", b"DICM")
    study = factories.make_study(radiologist)
    Image.objects.create(study=study, kind="dicom", original=name, original_name="a",
                         size_bytes=4, sha256="a" * 64)
    created = identity.ensure()
    assert identity.read_marker().identity == str(created)


def test_an_unreadable_marker_stops_everything(media_root):
    write_media_atomically(identity.MARKER_NAME, b"{not json")
    with pytest.raises(identity.DeploymentMismatch, match="cannot be read"):
        identity.ensure()


def test_adopting_the_media_identity_is_for_a_database_without_one(media_root, capsys):
    theirs = str(uuid.uuid4())
    _marker(media_root, theirs)
    call_command("deployment_identity", "--adopt-media")
    assert str(Deployment.objects.get().identity) == theirs
    assert identity.ensure() == uuid.UUID(theirs)
    assert capsys.readouterr().out.count(theirs) == 2
    _marker(media_root, str(uuid.uuid4()))
    with pytest.raises(CommandError, match="already belongs to deployment"):
        call_command("deployment_identity", "--adopt-media")
