"""Sessions in the database (Django's), whose save in an outage fails as the outage it is.

Django's database sessions turn any database error while saving an existing session into
UpdateError, which its session middleware answers as SessionInterrupted: a 400 saying the
session was deleted by a concurrent request. When the database was unreachable, the error
itself is raised instead, and the outage middleware answers it as every outage (503, or what
a committed request registered). The session's only loss is that save (the idle timer).
"""
from django.contrib.sessions.backends import db
from django.contrib.sessions.backends.base import UpdateError

from .middleware import outage_of


class SessionStore(db.SessionStore):
    def save(self, must_create=False):
        try:
            super().save(must_create=must_create)
        except UpdateError as exc:
            if outage_of(exc.__context__) is None:
                raise
            raise exc.__context__ from None
