"""Importing reference studies with images: file layouts, bad files refused, re-runs, encoders."""
from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from radreview.library import image_import, image_memory
from radreview.library.models import ReferenceImage, ReferenceStudy
from tests.support import dicom_factory as dicom
from tests.support import media
from tests.support import tiny_models as tiny
from workers.backends import registry
from workers.imagememory import ImageMemory

from .library_files import flat_with_jsonl, folder_per_study

pytestmark = pytest.mark.django_db


def memory() -> ImageMemory:
    return ImageMemory.open(image_memory.directory())


def test_a_folder_per_study_with_a_csv_of_reports(tmp_path):
    images, reports = folder_per_study(tmp_path)
    summary = image_import.run_import(images, reports, source="site")
    assert (summary.studies_created, summary.images_added, summary.refused) == (4, 8, [])
    study = ReferenceStudy.objects.get(source="site", external_id="s2")
    assert study.report == ("FINDINGS: Small left pleural effusion. Heart size is normal. No "
                            "pneumothorax.\nIMPRESSION: Small left pleural effusion.")
    views = sorted(study.images.values_list("view", flat=True))
    assert views == ["LATERAL", "PA"]
    image = study.images.get(view="PA")
    assert image.kind == "dicom" and (image.rows, image.columns) == (192, 192)
    assert media.exists(image.thumbnail)
    assert image.file.name.startswith(f"library/{study.pk}/")
    assert "PatientName" not in str(image.metadata) and image.metadata.get("view_position") == "PA"
    built = memory()
    assert len(built) == 8 and built.encoder.name == "builtin-appearance-v1"
    assert set(built.images) == set(ReferenceImage.objects.values_list("pk", flat=True))
    assert built.studies[study.pk].external_id == "s2"
    assert "small left pleural effusion" in built.studies[study.pk].phrases
    assert built.text_embedder == "all-MiniLM-L6-v2"
    assert len(built.phrase_vectors) == len(built.phrases)


def test_running_the_import_again_adds_nothing_twice(tmp_path):
    images, reports = folder_per_study(tmp_path, n=2)
    image_import.run_import(images, reports)
    again = image_import.run_import(images, reports)
    assert (again.studies_created, again.studies_updated, again.images_added, again.duplicates) == \
        (0, 2, 0, 4)
    assert ReferenceImage.objects.count() == 4 and len(memory()) == 4


def test_flat_files_by_name_and_an_images_list_in_jsonl(tmp_path):
    images, reports = flat_with_jsonl(tmp_path)
    summary = image_import.run_import(images, reports, source="other")
    a = ReferenceStudy.objects.get(external_id="a")
    assert a.report == "FINDINGS: Small left pleural effusion.\nIMPRESSION: Effusion."
    assert sorted(a.images.values_list("original_name", "view")) == [("a_lat.png", "LATERAL"),
                                                                    ("a_pa.png", "PA")]
    b = ReferenceStudy.objects.get(external_id="b")
    assert list(b.images.values_list("original_name", "view", "kind")) == [
        ("scan-b.png", "PA", "png")]
    assert any("stray.png" in problem and "match no study" in problem
               for problem in summary.problems)
    assert not ReferenceImage.objects.filter(original_name="stray.png").exists()


def test_bad_files_are_refused_with_their_reason_and_the_rest_is_imported(tmp_path):
    images, reports = folder_per_study(tmp_path, n=2)
    (images / "s1" / "notes.txt").write_text("Patient was comfortable.")
    (images / "s1" / "cut.dcm").write_bytes(dicom.make_malformed_dicom("truncated"))
    (images / "s2" / "scan.pdf").write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\n")
    summary = image_import.run_import(images, reports)
    refused = dict(summary.refused)
    assert set(refused) == {"s1/notes.txt", "s1/cut.dcm", "s2/scan.pdf"}
    assert refused["s1/notes.txt"].startswith("This is a text file, not an image")
    assert "PDF" in refused["s2/scan.pdf"]
    assert refused["s1/cut.dcm"]  # the reader's own words about the damage
    assert summary.images_added == 4
    lines = "\n".join(summary.lines())
    assert "Refused 3 files:" in lines and "s2/scan.pdf: " in lines


def test_the_command_imports_and_explains_refusals(tmp_path, capsys):
    images, reports = folder_per_study(tmp_path, n=2)
    (images / "s2" / "junk.dcm").write_bytes(b"not a dicom file at all")
    call_command("import_reference", "--images", str(images), "--reports", str(reports))
    out, err = capsys.readouterr()
    assert "Imported 4 images into 2 new" in out
    assert "Refused 1 file:" in err and "s2/junk.dcm:" in err


def test_the_command_refuses_what_it_cannot_use(tmp_path):
    images, reports = folder_per_study(tmp_path, n=1)
    bad = tmp_path / "bad.csv"
    bad.write_text("name,text\nx,No pneumothorax.\n")
    with pytest.raises(CommandError, match="no study column; expected one of study"):
        call_command("import_reference", "--images", str(images), "--reports", str(bad))
    with pytest.raises(CommandError, match="go together"):
        call_command("import_reference", "--images", str(images))
    with pytest.raises(CommandError, match="does not exist"):
        call_command("import_reference", "--images", str(tmp_path / "nowhere"),
                     "--reports", str(reports))
    empty = tmp_path / "empty"
    (empty / "s1").mkdir(parents=True)
    (empty / "s1" / "a.txt").write_text("not an image")
    with pytest.raises(CommandError, match="Nothing was imported"):
        call_command("import_reference", "--images", str(empty), "--reports", str(reports))
    bad_json = tmp_path / "bad.jsonl"
    bad_json.write_text('{"study": "s1", "report": "x"}\n{oops\n')
    with pytest.raises(CommandError, match="bad.jsonl:2: bad JSON"):
        call_command("import_reference", "--images", str(images), "--reports", str(bad_json))
    bad_json.write_text('{"study": "s1", "report": "x"}\n' + '{"a": ' * 1100 + "1" + "}" * 1100)
    with pytest.raises(CommandError, match=r"bad.jsonl:2: the JSON is nested too deeply"):
        call_command("import_reference", "--images", str(images), "--reports", str(bad_json))


def test_switching_encoders_needs_a_rebuild(tmp_path, capsys):
    images, reports = folder_per_study(tmp_path, n=3, lateral=False)
    image_import.run_import(images, reports)
    folder = tiny.build_biomedclip_like(tmp_path / "tiny-biomedclip")
    registry.reset()
    registry.configure({"image_encoder": f"open_clip:{folder}?device={tiny.DEVICE}"})
    more = tmp_path / "more"
    more_images, more_reports = folder_per_study(more, n=1, lateral=False)
    with pytest.raises(CommandError) as refused:
        call_command("import_reference", "--images", str(more_images), "--reports",
                     str(more_reports), "--images-source", "more")
    assert "builtin-appearance-v1" in str(refused.value) and "tiny-biomedclip" in str(refused.value)
    assert "python manage.py rebuild_image_index" in str(refused.value)
    call_command("rebuild_image_index")
    assert "encoder tiny-biomedclip (512-d)" in capsys.readouterr().out
    rebuilt = memory()
    assert rebuilt.encoder.name == "tiny-biomedclip" and rebuilt.encoder.learned is True
    assert len(rebuilt) == 3
    call_command("import_reference", "--images", str(more_images), "--reports",
                 str(more_reports), "--images-source", "more")
    assert len(memory()) == 4


def test_rebuild_without_images_says_what_to_do():
    with pytest.raises(CommandError, match="import_reference --images DIR --reports FILE"):
        call_command("rebuild_image_index")


def test_imported_reports_join_the_text_library_too(tmp_path):
    from radreview.library import text_library
    from workers.retrieval.index import VectorIndex

    images, reports = folder_per_study(tmp_path, n=2)
    image_import.run_import(images, reports)
    indexed = set(VectorIndex.load(text_library.index_path()).ids().tolist())
    assert indexed == set(ReferenceStudy.objects.values_list("pk", flat=True))
