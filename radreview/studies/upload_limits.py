"""Stop reading an upload as soon as it passes the size limits.

Django would otherwise stream a 10 GB body to temporary files before any view could refuse it.
A body whose declared length is already over the study limit is refused before its first byte
is read; otherwise the handler counts while the body streams and stops at the limit. It notes
why it stopped on the request; the views turn that into a message (413).
"""
from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.http import QueryDict
from django.utils.datastructures import MultiValueDict

OVERSIZE_ATTRIBUTE = "radreview_upload_refused"


def _mb(num_bytes: int) -> str:
    return f"{num_bytes / (1024 * 1024):.0f} MB"


def fields_too_large_message() -> str:
    """Why a request whose form fields (a pasted report) pass Django's limit is refused."""
    return (f"The pasted text is larger than {_mb(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)}; a report "
            f"may have at most {settings.MAX_REPORT_CHARS:,} characters.")


class UploadLimitHandler(FileUploadHandler):
    def __init__(self, request=None):
        super().__init__(request)
        self.total = 0
        self.current = 0

    def handle_raw_input(self, input_data, META, content_length, boundary, encoding=None):
        # The form fields around the files take a few kilobytes at most.
        if content_length and content_length > settings.MAX_UPLOAD_STUDY_BYTES + 1024 * 1024:
            setattr(self.request, OVERSIZE_ATTRIBUTE,
                    f"The upload is {_mb(content_length)}; the limit per study is "
                    f"{_mb(settings.MAX_UPLOAD_STUDY_BYTES)}.")
            return QueryDict(), MultiValueDict()  # parsed as empty: the body is never read
        return None

    def new_file(self, *args, **kwargs):
        super().new_file(*args, **kwargs)
        self.current = 0

    def receive_data_chunk(self, raw_data, start):
        self.current += len(raw_data)
        self.total += len(raw_data)
        if self.current > settings.MAX_UPLOAD_FILE_BYTES:
            self._refuse(f"{self.file_name}: the file is larger than the limit per file "
                         f"({_mb(settings.MAX_UPLOAD_FILE_BYTES)}).")
        if self.total > settings.MAX_UPLOAD_STUDY_BYTES:
            self._refuse(f"The upload is larger than the limit per study "
                         f"({_mb(settings.MAX_UPLOAD_STUDY_BYTES)}).")
        return raw_data

    def file_complete(self, file_size):
        return None

    def _refuse(self, message: str):
        setattr(self.request, OVERSIZE_ATTRIBUTE, message)
        # Stop reading the body there rather than draining the rest of it.
        raise StopUpload(connection_reset=True)


def limits() -> dict:
    """The limits the upload page checks before sending (the server checks them again)."""
    return {"max_file_bytes": settings.MAX_UPLOAD_FILE_BYTES,
            "max_study_bytes": settings.MAX_UPLOAD_STUDY_BYTES,
            "max_files": settings.MAX_UPLOAD_FILES}
