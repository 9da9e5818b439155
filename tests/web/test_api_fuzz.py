"""Every API operation fuzzed from the OpenAPI schema with schemathesis: no 5xx, and every answer
matches the schema. Examples are bounded so the run stays short."""
import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from knox.models import AuthToken
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
)

from tests.web.review import factories as rf

EXAMPLES = 12
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]


def auth(user) -> dict:
    return {"Authorization": f"Token {AuthToken.objects.create(user)[1]}"}


@pytest.fixture
def api_schema(db, radiologist):
    rf.make_review_study()  # real rows for the operations that find one
    # Requests go through Django's WSGI handler in this thread, inside the test's transaction;
    # as Django's test client does, keep the handler from closing the connection after each.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application(),
                                         headers=auth(radiologist))
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def test_the_api_answers_every_generated_request_within_its_schema(api_schema, radiologist):
    failures, operations = [], 0
    for result in api_schema.get_all_operations():
        operation = result.ok()
        operations += 1

        @given(case=operation.as_strategy())
        @settings(max_examples=EXAMPLES, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        def check(case):
            # A fresh token each time: the logout operations revoke the one they are called with.
            response = case.call(headers=auth(radiologist))
            case.validate_response(response, checks=CHECKS)

        try:
            check()
        except Exception as exc:  # one operation's failure must not hide the others'
            failures.append(f"{operation.method.upper()} {operation.path}: {exc}"[:1500])
    assert operations >= 12
    assert not failures, "\n\n".join(failures)
