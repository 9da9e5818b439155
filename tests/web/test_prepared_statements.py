"""On PostgreSQL a connection prepares the statements it repeats (radreview/settings.py), so the
server stops planning them again; RADREVIEW_DB_PREPARE_THRESHOLD=off turns that off for a site
behind a transaction-pooling proxy."""
import pytest
from django.db import connection

from radreview.accounts.models import User
from tests import factories
from tests.web.test_deploy_settings import run_manage

SHOW_OPTIONS = "from django.conf import settings; print(settings.DATABASES['default']['OPTIONS'])"
POSTGRES_URL = "postgres://radreview@127.0.0.1:1/radreview"  # never connected to here


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL server feature")
@pytest.mark.django_db
def test_a_repeated_query_is_prepared_on_the_server():
    user = factories.make_user(username="prepared")
    for _ in range(6):
        User.objects.get(pk=user.pk)
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any('FROM "accounts_user"' in statement for statement in prepared), prepared


def test_the_default_binds_on_the_server_and_prepares_after_five_runs(tmp_path):
    result = run_manage("shell", "-c", SHOW_OPTIONS, tmp_path=tmp_path,
                        DATABASE_URL=POSTGRES_URL)
    assert result.returncode == 0, result.stderr
    assert "'server_side_binding': True" in result.stdout
    assert "'prepare_threshold': 5" in result.stdout


def test_off_leaves_binding_and_preparing_to_djangos_defaults(tmp_path):
    result = run_manage("shell", "-c", SHOW_OPTIONS, tmp_path=tmp_path,
                        DATABASE_URL=POSTGRES_URL, RADREVIEW_DB_PREPARE_THRESHOLD="off")
    assert result.returncode == 0, result.stderr
    assert "server_side_binding" not in result.stdout
    assert "prepare_threshold" not in result.stdout


def test_a_threshold_that_is_not_a_number_is_refused(tmp_path):
    result = run_manage("shell", "-c", SHOW_OPTIONS, tmp_path=tmp_path,
                        DATABASE_URL=POSTGRES_URL, RADREVIEW_DB_PREPARE_THRESHOLD="soon")
    assert result.returncode != 0
    assert "RADREVIEW_DB_PREPARE_THRESHOLD must be an integer" in result.stderr
