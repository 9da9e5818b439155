"""Why an uploaded file was refused, in words a radiologist can act on.

Every error carries ``message`` (shown on the upload page and in the API, never containing a
patient identifier or any other tag value from the file) and ``code`` (a stable machine name
for the API). ``detail`` may hold a technical, equally identifier-free note for logs, such as
a decoder's own error text. The errors are raised ``from None`` so that a traceback in a log
never drags along a library exception that quotes a tag value.
"""
from __future__ import annotations

from workers.errors import WorkerError


class ImagingError(WorkerError):
    """Base class: the file cannot be used as an image."""

    code = "imaging_error"

    def __init__(self, message: str, *, detail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail

    def __str__(self) -> str:
        return self.message


class NotAnImage(ImagingError):
    """Neither DICOM nor PNG/JPEG (a PDF, a ZIP archive, a text file, a TIFF, ...)."""

    code = "not_an_image"


class MalformedImage(ImagingError):
    """The file says it is an image of a known kind but is damaged: truncated, corrupt."""

    code = "malformed_image"


class MalformedDicom(MalformedImage):
    """A damaged DICOM file: unreadable header, missing or contradictory image tags, pixel
    data that does not match Rows × Columns × bits, a compressed frame that does not decode."""

    code = "malformed_dicom"


class UnsupportedTransferSyntax(ImagingError):
    """A DICOM file encoded in a transfer syntax this server cannot decode (video, JPIP, ...)."""

    code = "unsupported_transfer_syntax"

    def __init__(self, message: str, *, transfer_syntax_uid: str = "", detail: str = "") -> None:
        super().__init__(message, detail=detail)
        self.transfer_syntax_uid = transfer_syntax_uid


class NoPixelData(ImagingError):
    """A valid DICOM object that holds no image (a Structured Report, a presentation state...)."""

    code = "no_pixel_data"


class UnsupportedImage(ImagingError):
    """A readable image that RadReview deliberately does not take: colour DICOM, multi-frame
    DICOM, animated PNG, floating-point pixel data, or an image above the pixel-count limit."""

    code = "unsupported_image"
