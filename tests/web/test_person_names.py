"""DICOM person names (``Family^Given^Middle^Prefix^Suffix``) are shown as people read them,
"Doe, Jane", wherever a patient's name is displayed: the worklist, the study page, the PACS
search and the text export (tests/web/review/test_exports.py)."""
import pytest

from radreview.dicomnet import pacs
from radreview.studies.names import display_name
from tests.web.review import factories as rf

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("stored, shown", [
    ("Doe^Jane", "Doe, Jane"),
    ("Doe^Jane^Q", "Doe, Jane Q"),
    ("Doe^Jane^^Dr^PhD", "Doe, Dr Jane, PhD"),
    ("Doe", "Doe"),
    ("Doe^", "Doe"),
    ("^Jane", "Jane"),
    ("Yamada^Tarou=山田^太郎=やまだ^たろう", "Yamada, Tarou"),
    ("Jane Doe", "Jane Doe"),  # typed on the upload page: as it is
    ("", ""),
])
def test_a_dicom_name_reads_family_first_with_a_comma(stored, shown):
    assert display_name(stored) == shown


def test_the_worklist_and_the_study_page_show_the_name_as_people_read_it(radiologist_client):
    study = rf.make_review_study(dicom=True)  # Doe^Jane
    for url in ("/", f"/studies/{study.pk}/"):
        html = radiologist_client.get(url).content.decode()
        assert "Doe, Jane" in html and "Doe^Jane" not in html, url


def test_the_pacs_search_shows_the_name_as_people_read_it(radiologist_client, settings,
                                                          monkeypatch):
    settings.PACS_DICOMWEB_URL = "http://pacs.invalid/dicom-web"
    found = pacs.PacsStudy("1.2.3", "Roe^Rita^M", "P-9", "ACC-9", None, "Chest", "DX", 2)
    monkeypatch.setattr(pacs, "search", lambda **query: [found])
    html = radiologist_client.get("/studies/import/", {"patient_id": "P-9"}).content.decode()
    assert "Roe, Rita M" in html and "Roe^Rita" not in html
