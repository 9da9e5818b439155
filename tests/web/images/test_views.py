"""Image pages: renders with presets (cached), thumbnails behind the login, the study page's
viewer and neighbours, the reference library page with ZIP imports as site jobs."""
from __future__ import annotations

import fnmatch
import hashlib
import io
import zipfile
from html import unescape

import numpy as np
import pytest
from django.core.files.base import ContentFile
from django.test import Client
from PIL import Image as PILImage

from radreview.jobs.models import Job
from radreview.jobs.runner import run_job
from radreview.library import image_import
from radreview.library.models import ReferenceImage, ReferenceStudy, StudyRetrieval
from radreview.studies import storage
from radreview.studies.models import Image, Report
from tests import factories
from tests.support import dicom_factory as dicom
from tests.support import media
from tests.support.two_factor import verified_login
from workers import imaging

from .library_files import folder_per_study

pytestmark = pytest.mark.django_db


def study_with_image(view="PA"):
    study = factories.make_study()
    data = dicom.make_dicom(seed=3, view=view, rows=200, cols=160, photometric="MONOCHROME1")
    image = Image(study=study, kind="dicom", original_name="a.dcm", size_bytes=len(data),
                  sha256=hashlib.sha256(data).hexdigest(), view=view, rows=200, columns=160)
    image.original.save("a.dcm", ContentFile(data), save=False)
    image.save()
    return study, image


def png_size(response) -> tuple[int, int]:
    body = b"".join(response.streaming_content)
    with PILImage.open(io.BytesIO(body)) as png:
        assert png.format == "PNG" and png.mode == "L"
        return png.size


def test_images_are_behind_the_login(client, tmp_path):
    study, image = study_with_image()
    for url in (f"/images/studies/{study.pk}/{image.pk}/lung.png",
                "/library/images/1/thumbnail.png", "/library/images/1/default.png",
                "/library/studies/1/"):
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"], url


def test_every_preset_renders_from_the_original_and_is_cached(radiologist_client, settings):
    study, image = study_with_image()
    for preset in imaging.PRESETS:
        response = radiologist_client.get(f"/images/studies/{study.pk}/{image.pk}/{preset}.png")
        assert response.status_code == 200, preset
        assert response["Content-Type"] == "image/png"
        assert png_size(response) == (160, 200)
    cached = media.stored(settings.RENDER_CACHE_SUBDIR)
    assert len(fnmatch.filter(cached, f"*/study-{image.pk}-*-1024.png")) == len(imaging.PRESETS)
    # The cached render is what the preset gives.
    [lung_name] = fnmatch.filter(cached, f"*/study-{image.pk}-*-lung-1024.png")
    lung = PILImage.open(io.BytesIO(media.read(lung_name)))
    expected = imaging.render(imaging.read_dicom(io.BytesIO(media.read(image.original.name))),
                              "lung")
    assert (abs(np.asarray(lung).astype(int) - expected.astype(int)) <= 1).all()
    base = f"/images/studies/{study.pk}/{image.pk}"
    assert radiologist_client.get(f"{base}/warp.png").status_code == 404
    other = factories.make_study()
    elsewhere = f"/images/studies/{other.pk}/{image.pk}/lung.png"
    assert radiologist_client.get(elsewhere).status_code == 404


def test_a_larger_render_is_served_for_zooming(radiologist_client):
    study = factories.make_study()
    data = dicom.make_dicom(seed=4, rows=1400, cols=1200)
    image = Image(study=study, kind="dicom", original_name="big.dcm", size_bytes=len(data),
                  sha256=hashlib.sha256(data).hexdigest(), view="PA")
    image.original.save("big.dcm", ContentFile(data), save=False)
    image.save()
    base = f"/images/studies/{study.pk}/{image.pk}/bone.png"
    assert max(png_size(radiologist_client.get(base))) == 1024
    assert max(png_size(radiologist_client.get(base + "?side=2048"))) == 1400  # never upscaled


def imported_library(tmp_path, n=3):
    images, reports = folder_per_study(tmp_path, n=n)
    image_import.run_import(images, reports)
    return ReferenceStudy.objects.order_by("pk")


def test_reference_thumbnails_renders_and_study_page(radiologist_client, tmp_path):
    studies = imported_library(tmp_path, n=1)
    image = ReferenceImage.objects.get(view="PA")
    response = radiologist_client.get(f"/library/images/{image.pk}/thumbnail.png")
    assert response.status_code == 200 and max(png_size(response)) <= 256
    assert radiologist_client.get(f"/library/images/{image.pk}/soft_tissue.png").status_code == 200
    page = radiologist_client.get(f"/library/studies/{studies[0].pk}/").content.decode()
    assert "Reference study s1" in page and "The lungs are clear." in page
    assert radiologist_client.get("/library/images/999/thumbnail.png").status_code == 404


def test_the_study_page_has_a_viewer_per_image_and_the_retrieved_neighbours(radiologist_client,
                                                                            tmp_path):
    studies = imported_library(tmp_path, n=2)
    reference = ReferenceImage.objects.get(study=studies[1], view="PA")
    study, image = study_with_image()
    factories.make_report(study, "Small left pleural effusion.")
    for order, stage in enumerate(("vrag", "rarrg")):
        Job.objects.create(study=study, stage=stage, order=order, state=Job.State.DONE)
    neighbour = {"reference_id": studies[1].pk, "image_id": reference.pk, "external_id": "s2",
                 "view": "PA", "similarity": 0.934, "query": 0}
    StudyRetrieval.objects.create(study=study, stage="vrag", encoder="builtin-appearance-v1",
                                  encoder_learned=False, neighbours=[neighbour],
                                  probes=[{"question": "Is there a pleural effusion?",
                                           "answer": "yes"}])
    StudyRetrieval.objects.create(study=study, stage="rarrg", encoder="builtin-appearance-v1",
                                  neighbours=[neighbour], phrases=[
                                      {"text": "small left pleural effusion", "score": 0.8}],
                                  detail={"retriever": "knn"})
    Report.objects.create(study=study, kind=Report.Kind.DRAFT, source="rarrg",
                          text="FINDINGS: Small left pleural effusion.\nIMPRESSION: Effusion.")
    Report.objects.create(study=study, kind=Report.Kind.DRAFT, source="vrag", text="FINDINGS: X.")
    html = radiologist_client.get(f"/studies/{study.pk}/").content.decode()
    assert 'class="image viewer"' in html and "js/viewer.js" in html
    assert f'data-src-template="/images/studies/{study.pk}/{image.pk}/__preset__.png"' in html
    for label in ("As acquired", "Lung", "Soft tissue", "Bone", "High contrast", "Full range"):
        assert f">{label}</button>" in html
    assert 'aria-label="Zoom in"' in html
    assert "Similar reference studies" in html and "no learned weights" in html
    assert f'src="/library/images/{reference.pk}/thumbnail.png"' in html
    assert "93%" in html and "Small left pleural effusion. Heart size is normal." in html
    assert f'href="/library/studies/{studies[1].pk}/"' in html
    assert "RA-RRG draft" in html and "small left pleural effusion" in html
    assert "V-RAG rewrite" in html and "Is there a pleural effusion?" in html


def test_the_library_page_is_for_admins(radiologist, admin_client_, tmp_path):
    from django.test import Client

    other = Client()
    other.force_login(radiologist)
    assert other.get("/site/library/").status_code == 403
    assert other.post("/site/library/rebuild/").status_code == 403
    assert not Job.objects.exists()
    imported_library(tmp_path, n=2)
    html = admin_client_.get("/site/library/").content.decode()
    assert "4 in the memory · 4 in the library (2 studies)" in html
    assert "builtin-appearance-v1 (512-d)" in html and "no learned weights" in html


def zip_of(images, reports) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bundle:
        bundle.write(reports, "reports.csv")
        for path in sorted(images.rglob("*")):
            if path.is_file():
                bundle.write(path, f"images/{path.relative_to(images)}")
    return buffer.getvalue()


def test_an_admin_imports_a_zip_file_as_a_site_job_with_progress(admin_client_, tmp_path):
    from django.core.files.uploadedfile import SimpleUploadedFile

    images, reports = folder_per_study(tmp_path, n=2)
    (images / "s1" / "notes.txt").write_text("not an image")
    # In the ZIP the images sit in images/<study>/: the reports file's folder is the root, so
    # the report keys find them through the images column.
    reports.write_text("study,report,images\n"
                       "s1,No pneumothorax.,"
                       "images/s1/pa.dcm;images/s1/lateral.dcm;images/s1/notes.txt\n"
                       "s2,Small left pleural effusion.,images/s2/pa.dcm\n")
    upload = SimpleUploadedFile("library.zip", zip_of(images, reports), "application/zip")
    response = admin_client_.post("/site/library/import/", {"source": "site", "archive": upload})
    assert response.status_code == 202
    job = Job.objects.get(stage="import_reference_images")
    assert job.state == Job.State.QUEUED and job.study is None
    html = response.content.decode()
    assert "<progress" in html and f"/site/library/jobs/{job.pk}/" in html
    assert 'hx-trigger="every 1s"' in html
    run_job(job.pk)
    job.refresh_from_db()
    assert job.state == Job.State.DONE, job.error
    assert job.result["images_added"] == 3
    assert job.result["refused"][0]["file"] == "images/s1/notes.txt"
    panel = admin_client_.get(f"/site/library/jobs/{job.pk}/").content.decode()
    assert "Imported 3 images into 2 new" in panel
    assert "images/s1/notes.txt: This is a text file" in panel
    assert "hx-trigger" not in panel
    assert not list((tmp_path / "import" / ".uploads").glob("*.zip"))  # the upload is cleaned up


def test_imports_that_cannot_start_say_why(admin_client_, tmp_path):
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = admin_client_.post("/site/library/import/", {"source": "site"})
    assert response.status_code == 400 and "Upload a ZIP file, or name a server folder" in \
        response.content.decode()
    bad = SimpleUploadedFile("x.zip", b"not a zip", "application/zip")
    response = admin_client_.post("/site/library/import/", {"source": "site", "archive": bad})
    assert response.status_code == 400 and "not a ZIP archive" in response.content.decode()
    response = admin_client_.post("/site/library/import/", {"source": "site", "images": "../..",
                                                           "reports": "r.csv"})
    assert response.status_code == 400 and "is not inside the import folder" in \
        response.content.decode()
    assert not Job.objects.exists()


def test_a_server_folder_import_and_a_rebuild_run_as_site_jobs(admin_client_, tmp_path, settings):
    root = settings.LIBRARY_IMPORT_ROOT
    folder_per_study(root / "batch", n=2)
    response = admin_client_.post("/site/library/import/", {
        "source": "site", "images": "batch/images", "reports": "batch/reports.csv"})
    assert response.status_code == 202
    run_job(Job.objects.get(stage="import_reference_images").pk)
    assert ReferenceImage.objects.count() == 4
    response = admin_client_.post("/site/library/rebuild/")
    assert response.status_code == 202
    job = Job.objects.get(stage="rebuild_image_index")
    run_job(job.pk)
    job.refresh_from_db()
    assert job.state == Job.State.DONE and job.result["images"] == 4
    assert "4 images in the memory (builtin-appearance-v1, exact)" in \
        admin_client_.get(f"/site/library/jobs/{job.pk}/").content.decode()


def test_image_stages_skip_and_say_why_when_the_memory_cannot_serve(radiologist_client,
                                                                    site_admin):
    from radreview.jobs.stages import STAGES
    from workers.pipeline import RoleModels

    study, image = study_with_image()
    factories.make_report(study, "FINDINGS: Small left pleural effusion.")
    for order, stage in enumerate(("vrag", "rarrg")):
        job = Job.objects.create(study=study, stage=stage, order=order, state=Job.State.RUNNING)
        adapter = STAGES[stage]
        with storage.local_copies():  # as the runner does: originals fetched from a bucket
            result = adapter.compute(adapter.load(job), RoleModels(adapter.roles),
                                     lambda *a: None)
        assert result["skipped"].startswith("The image memory is empty")
        recorded = adapter.store(job, result)
        assert recorded == result  # what the runner records on the job with its done mark
        Job.objects.filter(pk=job.pk).update(state=Job.State.DONE, result=recorded)
    assert not StudyRetrieval.objects.filter(study=study).exists()
    assert not Report.objects.filter(study=study, kind=Report.Kind.DRAFT).exists()
    html = verified_login(Client(), site_admin).get(f"/studies/{study.pk}/").content.decode()
    assert "V-RAG skipped: The image memory is empty" in html
    assert "RA-RRG skipped: The image memory is empty" in html
    html = unescape(radiologist_client.get(f"/studies/{study.pk}/").content.decode())
    assert ("Comparing with similar reference images: not done for this study: the site's "
            "library of reference images is not ready") in html
    assert "image memory" not in html and "manage.py" not in html


def test_the_django_admin_lists_reference_images_and_links_the_library_page(admin_client_,
                                                                            tmp_path):
    imported_library(tmp_path, n=1)
    html = admin_client_.get("/admin/library/referenceimage/").content.decode()
    assert 'href="/site/library/"' in html and "pa.dcm" in html
    image = ReferenceImage.objects.first()
    assert admin_client_.get(f"/admin/library/referenceimage/{image.pk}/change/").status_code == 200
    assert admin_client_.get("/admin/library/referenceimage/add/").status_code == 403
