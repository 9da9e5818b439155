"""Keeps outages out of Django's per-request error log (middleware.py logs them once).

The logging set-up builds this filter in every process, a command's too; the middleware, with
the broker's and Redis's clients, stays in the web process that runs it."""
import logging

# set on a request by middleware.py when its answer is an outage's
OUTAGE_ATTRIBUTE = "_radreview_outage"


class SkipOutageErrors(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(getattr(record, "request", None), OUTAGE_ATTRIBUTE, None)
