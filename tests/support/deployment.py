"""Tests that keep one media folder while the database is emptied after each test (a module's
DICOM services) stand for one deployment whose database is wiped: RadReview's processes refuse
that (radreview/media/identity.py). Each test's empty database takes the folder's identity
first, as the deployment's own database would hold it."""
from radreview.media import identity


def share_media_identity() -> None:
    """Give the (empty) test database the media folder's deployment identity, creating both on
    the first call."""
    if identity.read_marker() is None:
        identity.ensure()
    else:
        identity.adopt_media()
