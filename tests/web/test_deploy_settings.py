"""The production settings pass Django's deployment checks, and plain HTTP stays on loopback."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_manage(*args, tmp_path, **env):
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith(("RADREVIEW_", "DJANGO_", "DATABASE_URL", "CELERY_"))}
    environment.update(
        DJANGO_SETTINGS_MODULE="radreview.settings", RADREVIEW_DATA_DIR=str(tmp_path), **env
    )
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=120)


def test_check_deploy_is_clean_with_the_production_defaults(tmp_path):
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", tmp_path=tmp_path,
                        DJANGO_SECRET_KEY="x" * 20 + "a-long-random-production-secret-key-9f3k2",
                        DJANGO_ALLOWED_HOSTS="radreview.example.org")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_plain_http_is_refused_for_hosts_other_than_loopback(tmp_path):
    result = run_manage("check", tmp_path=tmp_path, RADREVIEW_LOCAL_HTTP="1",
                        DJANGO_ALLOWED_HOSTS="radreview.example.org")
    assert result.returncode != 0
    assert "RADREVIEW_LOCAL_HTTP=1" in result.stderr and "loopback" in result.stderr


def test_the_csrf_check_finds_the_projects_middleware_and_misses_none(settings):
    """Django's security.W003 is silenced because it looks for its own class by name; the
    project's check (radreview/security/checks.py) accepts the subclass and still warns when
    no CSRF middleware is installed."""
    from radreview.security.checks import csrf_middleware_installed

    assert csrf_middleware_installed(None) == []
    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if "Csrf" not in m]
    [warning] = csrf_middleware_installed(None)
    assert warning.id == "radreview.W003"
