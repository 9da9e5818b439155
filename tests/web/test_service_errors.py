"""One error-with-a-message type in the web layer (radreview/errors.py, issue 17)."""
import pytest

from radreview.calibration.services import CalibrationRejected
from radreview.dicomnet.dicomweb.catalog import QueryError
from radreview.dicomnet.dicomweb.multipart import MultipartError
from radreview.dicomnet.pacs import PacsError
from radreview.dicomnet.sender import SendFailed
from radreview.dictation.fhir import ResourceRefused
from radreview.dictation.services import DeliveryRefused
from radreview.errors import ServiceError
from radreview.library.image_import import ImportRefused
from radreview.library.index_store import IndexStoreError
from radreview.library.text_library import LibraryImportError
from radreview.media.identity import DeploymentMismatch
from radreview.review.services import ReviewError
from radreview.security.json_limits import JSONRefused
from radreview.studies.services.upload import UploadRejected
from workers.errors import WorkerError


@pytest.mark.parametrize("error", [CalibrationRejected, QueryError, MultipartError, PacsError,
                                   SendFailed, ImportRefused, LibraryImportError, ReviewError,
                                   JSONRefused, UploadRejected, IndexStoreError, ResourceRefused,
                                   DeliveryRefused, DeploymentMismatch])
def test_service_errors_are_one_type(error):
    assert issubclass(error, ServiceError)
    assert not issubclass(error, WorkerError)
    raised = error("the message for the user")
    assert str(raised) == raised.message == "the message for the user"
