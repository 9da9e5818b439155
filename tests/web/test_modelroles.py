"""The admin's model-roles page: settings validated at start-up, each role shown and testable."""
import pytest
from django.apps import apps
from django.core.exceptions import ImproperlyConfigured

from radreview.jobs import runner
from radreview.jobs.models import Job
from workers.backends import registry


@pytest.fixture(autouse=True)
def restore_roles(settings):
    original = dict(settings.MODEL_ROLES)
    yield
    registry.configure(original)


def test_a_bad_role_setting_stops_start_up_naming_the_setting(settings, tmp_path):
    settings.MODEL_ROLES = {
        **settings.MODEL_ROLES,
        "image_encoder": f"open_clip:{tmp_path}/missing",
    }
    with pytest.raises(ImproperlyConfigured, match="RADREVIEW_IMAGE_ENCODER"):
        apps.get_app_config("modelroles").ready()


def test_start_up_gives_the_backends_the_data_dirs_cache(settings):
    # where builtin-static keeps its word-piece table, read back by the next process
    apps.get_app_config("modelroles").ready()
    assert registry.cache_dir() == settings.DATA_DIR / "cache"


def test_radiologists_cannot_see_the_model_roles_page(radiologist_client):
    assert radiologist_client.get("/site/models/").status_code == 403
    assert radiologist_client.post("/site/models/llm/test/").status_code == 403


def test_admin_sees_every_role_with_its_backend(admin_client_):
    page = admin_client_.get("/site/models/").content.decode()
    for role, setting in [
        ("llm", "RADREVIEW_LLM"),
        ("generator", "RADREVIEW_GENERATOR"),
        ("text_embedder", "RADREVIEW_TEXT_EMBEDDER"),
        ("image_encoder", "RADREVIEW_IMAGE_ENCODER"),
        ("extractor", "RADREVIEW_EXTRACTOR"),
    ]:
        assert f'data-role="{role}"' in page and setting in page
    assert "no learned weights" in page  # the built-in image descriptor says what it is


def test_the_test_button_runs_a_probe_job_and_shows_its_latency(
    admin_client_, django_capture_on_commit_callbacks, monkeypatch
):
    from radreview.jobs import services

    monkeypatch.setattr(services, "send", lambda job_id, queue: None)
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client_.post("/site/models/text_embedder/test/")
    assert b"testing" in response.content
    job = Job.objects.get(stage="probe_role")
    assert job.study is None and job.params == {"role": "text_embedder"}
    runner.run_job(job.pk)  # what the worker does with the message
    job.refresh_from_db()
    assert job.state == Job.State.DONE and job.result["probe"]["ok"], job.result
    assert job.result["status"]["loaded"] is True
    shown = admin_client_.get(f"/site/models/probes/{job.pk}/").content.decode()
    assert "✓ ok" in shown and " s · " in shown
