"""import_reference: the IU archive (a tiny one the test builds) and JSONL files, incremental
imports, --if-empty, a clear failure without the network, and the admins' import page."""
import io
import json
import tarfile

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from radreview.jobs import runner, services
from radreview.jobs.models import Job
from radreview.library import text_library
from radreview.library.models import ReferenceStudy
from workers.retrieval.index import VectorIndex

XML = ('<eCitation><Abstract><AbstractText Label="FINDINGS">{}</AbstractText>'
       '<AbstractText Label="IMPRESSION">{}</AbstractText></Abstract></eCitation>')


def archive(path, reports):
    with tarfile.open(path, "w:gz") as tgz:
        for number, (findings, impression) in reports.items():
            data = XML.format(findings, impression).encode()
            info = tarfile.TarInfo(f"ecgen-radiology/{number}.xml")
            info.size = len(data)
            tgz.addfile(info, io.BytesIO(data))
    return path


def index_ids(embedder):
    return sorted(VectorIndex.open(text_library.index_path(), embedder.dim).ids().tolist())


@pytest.mark.django_db(transaction=True)
def test_the_iu_archive_imports_once_and_then_only_what_is_new(embedder, tmp_path):
    first = archive(tmp_path / "a.tgz", {1: ("Lungs are clear.", "Normal chest."),
                                         2: ("Small left pleural effusion.", "Effusion.")})
    call_command("import_reference", "--source", "iu-xray", "--path", str(first), verbosity=0)
    rows = ReferenceStudy.objects.order_by("pk")
    assert [(r.source, r.external_id) for r in rows] == [("iu-xray", "iu-1"), ("iu-xray", "iu-2")]
    assert rows[0].report == "FINDINGS: Lungs are clear.\nIMPRESSION: Normal chest."
    assert index_ids(embedder) == [r.pk for r in rows]

    # the library's sentence vectors are kept beside the index
    assert text_library.sentence_store_path(embedder).is_file()
    embedded = len(embedder.embedded)
    second = archive(tmp_path / "b.tgz", {1: ("Lungs are clear.", "Normal chest."),
                                          3: ("Mild cardiomegaly. Lungs are clear.",
                                              "Cardiomegaly.")})
    call_command("import_reference", "--source", "iu-xray", "--path", str(second), verbosity=0)
    assert ReferenceStudy.objects.count() == 3
    assert index_ids(embedder) == list(ReferenceStudy.objects.order_by("pk")
                                       .values_list("pk", flat=True))
    # only the new report's new sentences were embedded ("Lungs are clear." was known)
    assert sorted(embedder.embedded[embedded:]) == ["Cardiomegaly.", "Mild cardiomegaly."]

    out = io.StringIO()
    call_command("import_reference", "--source", "iu-xray", "--if-empty", stdout=out)
    assert "nothing to do" in out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_a_jsonl_file_and_its_errors(embedder, tmp_path):
    path = tmp_path / "ref.jsonl"
    path.write_text(json.dumps({"id": "x1", "report": "FINDINGS: No pneumothorax."}) + "\n")
    call_command("import_reference", "--source", "jsonl", "--path", str(path), verbosity=0)
    assert ReferenceStudy.objects.get().external_id == "x1"
    path.write_text('{"id": "x2", "report": "ok"}\n{broken\n')
    with pytest.raises(CommandError, match="ref.jsonl:2: bad JSON"):
        call_command("import_reference", "--source", "jsonl", "--path", str(path), verbosity=0)
    with pytest.raises(CommandError, match="needs --path"):
        call_command("import_reference", "--source", "jsonl", verbosity=0)


@pytest.mark.django_db
def test_without_the_network_the_failure_says_what_to_do(embedder, monkeypatch, settings, tmp_path):
    settings.DATA_DIR = tmp_path
    monkeypatch.setattr(text_library, "IU_PACKAGE", "torchxrayvision==0.0.0.0.does-not-exist")
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    with pytest.raises(CommandError, match="--path torchxrayvision-1.5.7"):
        call_command("import_reference", "--source", "iu-xray", verbosity=0)


@pytest.mark.django_db
def test_radiologists_cannot_import(radiologist_client):
    assert radiologist_client.get("/admin/library/referencestudy/import/").status_code == 302


@pytest.mark.django_db
def test_the_admin_import_page_starts_a_site_job_with_progress(
        embedder, admin_client_, monkeypatch, tmp_path, settings,
        django_capture_on_commit_callbacks):
    settings.DATA_DIR = tmp_path
    sent = []
    monkeypatch.setattr(services, "send", lambda job_id, queue: sent.append(job_id))
    page = admin_client_.get("/admin/library/referencestudy/import/")
    assert page.status_code == 200 and b"Start the import" in page.content

    upload = io.BytesIO(b'{"id": "j1", "report": "FINDINGS: Heart size is normal."}\n')
    upload.name = "reports.jsonl"
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client_.post("/admin/library/referencestudy/import/",
                                      {"source": "jsonl", "file": upload})
    job = Job.objects.get(stage="import_reference")
    assert response.status_code == 302 and response["Location"].endswith(f"/import/{job.pk}/")
    assert sent == [job.pk] and job.study is None and job.params["source"] == "jsonl"
    with django_capture_on_commit_callbacks(execute=True):
        runner.run_job(job.pk)
    job.refresh_from_db()
    assert job.state == Job.State.DONE and job.progress == 1.0 and job.result["added"] == 1
    assert ReferenceStudy.objects.get().external_id == "j1"
    assert index_ids(embedder) == [ReferenceStudy.objects.get().pk]
    status = admin_client_.get(f"/admin/library/referencestudy/import/{job.pk}/")
    assert b"1 report added" in status.content


@pytest.mark.django_db
def test_a_jsonl_import_from_the_admin_needs_a_file(admin_client_):
    response = admin_client_.post("/admin/library/referencestudy/import/", {"source": "jsonl"})
    assert response.status_code == 200 and b"Choose the JSONL file" in response.content
    assert not Job.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_rows_the_index_lacks_are_embedded_by_the_next_import(embedder, tmp_path):
    ReferenceStudy.objects.create(source="site", external_id="s1",
                                  report="FINDINGS: Mild cardiomegaly.")
    path = tmp_path / "ref.jsonl"
    path.write_text(json.dumps({"id": "x1", "report": "FINDINGS: No pneumothorax."}) + "\n")
    call_command("import_reference", "--source", "jsonl", "--path", str(path), verbosity=0)
    assert index_ids(embedder) == sorted(ReferenceStudy.objects.values_list("pk", flat=True))
    text_library.index_path().unlink()  # e.g. after switching the text embedder
    call_command("import_reference", "--source", "jsonl", "--path", str(path), verbosity=0)
    assert len(index_ids(embedder)) == 2
