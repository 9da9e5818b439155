"""What the site's CSV exports share (the audit trail's, the drafting-quality page's): cells a
spreadsheet will not run as formulas, a writer that hands each row to a streaming response, and
the row that ends a file an error cut short."""
from __future__ import annotations


class Echo:
    """A file-like object for ``csv.writer`` whose ``write`` returns the row it was given."""

    def write(self, value):
        return value


def cell(value) -> str:
    """A CSV cell a spreadsheet will not run as a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


INCOMPLETE = "EXPORT INCOMPLETE: an error stopped it after {rows} of {total} rows; export again."
