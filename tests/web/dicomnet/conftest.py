"""One RadReview receiver and one Orthanc per test module, on free loopback ports, sharing
one media folder with the tests (the receiver is another process). The receiver takes
associations only from the calling AE titles in ``ALLOWED_AES``, as a site would set it."""
import pytest

from tests.support import media
from tests.support.deployment import share_media_identity
from tests.support.dicom_services import Orthanc, Receiver

# The modality the tests play with dcmtk, and Orthanc forwarding studies.
ALLOWED_AES = ("MODALITY", Orthanc.AE_TITLE)


@pytest.fixture(scope="module")
def shared_media(tmp_path_factory):
    return tmp_path_factory.mktemp("media")


@pytest.fixture(scope="module")
def shared_store():
    """The module's media settings in the bucket (none on the filesystem)."""
    return media.overrides(media.own_folder())


@pytest.fixture(autouse=True)
def media_root(settings, shared_media, shared_store, tmp_path, transactional_db):
    settings.MEDIA_ROOT = shared_media
    for name, value in shared_store.items():
        setattr(settings, name, value)
    settings.INDEX_DIR = tmp_path / "indexes"
    share_media_identity()
    return shared_media


@pytest.fixture(scope="module")
def receiver(django_db_setup, django_db_blocker, tmp_path_factory, shared_media, shared_store):
    from django.test import override_settings

    with django_db_blocker.unblock(), override_settings(MEDIA_ROOT=shared_media, **shared_store):
        share_media_identity()
        process = Receiver(tmp_path_factory.mktemp("receiver"),
                           RADREVIEW_DICOM_ALLOWED_AES=",".join(ALLOWED_AES)).start()
    yield process
    process.stop()


@pytest.fixture(scope="module")
def orthanc(tmp_path_factory, receiver):
    process = Orthanc(tmp_path_factory.mktemp("orthanc"), modalities={
        "radreview": [Receiver.AE_TITLE, "127.0.0.1", receiver.port]}).start()
    yield process
    process.stop()
