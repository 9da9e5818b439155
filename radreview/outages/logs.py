"""Keeps outages out of Django's per-request error log (middleware.py logs them once)."""
import logging

from .middleware import OUTAGE_ATTRIBUTE


class SkipOutageErrors(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(getattr(record, "request", None), OUTAGE_ATTRIBUTE, None)
