"""Each user's single-key shortcuts (WCAG 2.1.4): the settings page stores them on the user, the
pages hand them to their scripts, and the legends and buttons show the user's keys."""
import json
import re

import pytest

from radreview.accounts import shortcuts
from tests.web.review import factories as rf

pytestmark = pytest.mark.django_db


def form_data(**changes):
    return {**shortcuts.DEFAULTS, "on": "on", **changes}


def body_shortcuts(html: str) -> str:
    return re.search(r'<body[^>]* data-shortcuts="([^"]*)"', html).group(1).replace("&quot;", '"')


def test_defaults_until_changed(radiologist_client, radiologist):
    html = radiologist_client.get("/accounts/settings/").content.decode()
    assert 'name="primary"' in html and 'value="a"' in html
    assert json.loads(body_shortcuts(html)) == shortcuts.DEFAULTS


def test_remapped_keys_reach_the_page_its_legend_and_buttons(radiologist_client, radiologist):
    answer = radiologist_client.post("/accounts/settings/", form_data(primary="X", keep="y"))
    assert answer.status_code == 302
    radiologist.refresh_from_db()
    # Only what differs from the defaults is stored, in lower case.
    assert radiologist.shortcuts_on and radiologist.shortcut_keys == {"primary": "x", "keep": "y"}
    study = rf.make_review_study()
    html = radiologist_client.get(f"/studies/{study.pk}/").content.decode()
    assert json.loads(body_shortcuts(html))["primary"] == "x"
    assert "<kbd>x</kbd> accept" in html and "<kbd>a</kbd>" not in html
    assert re.search(r'data-action="primary"[^>]*>\s*<kbd>x</kbd>', html)


def test_turned_off_no_key_is_shown_or_handed_on(radiologist_client, radiologist):
    assert radiologist_client.post("/accounts/settings/", form_data(on="")).status_code == 302
    radiologist.refresh_from_db()
    assert radiologist.shortcuts_on is False
    study = rf.make_review_study()
    html = radiologist_client.get(f"/studies/{study.pk}/").content.decode()
    assert body_shortcuts(html) == "off"
    assert "Single-key shortcuts are off" in html
    assert not re.search(r"<kbd>[a-z0-9]</kbd>", html)


@pytest.mark.parametrize("changes, error", [
    ({"keep": "a"}, "already does"),
    ({"edit": " "}, "Choose a letter, a digit or a sign."),
    ({"undo": ""}, "This field is required."),
    ({"undo": "uu"}, "at most 1 character"),
])
def test_refused_keys(radiologist_client, radiologist, changes, error):
    answer = radiologist_client.post("/accounts/settings/", form_data(**changes))
    assert answer.status_code == 400 and error in answer.content.decode()
    radiologist.refresh_from_db()
    assert radiologist.shortcut_keys == {}
