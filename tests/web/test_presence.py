"""The worklist's "Reading" column: the radiologists who have the study's page open now. The
page records its radiologist when it opens and at each presence poll; a page that stops polling
(closed, asleep, signed out) drops out PRESENCE_SECONDS after its last poll."""
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from radreview.accounts.models import User
from radreview.studies.services.presence import POLL_SECONDS, PRESENCE_SECONDS
from tests import factories
from tests.support.two_factor import verified_login

pytestmark = pytest.mark.django_db


class Clock:
    """django.utils.timezone.now, moved on by the test."""

    def __init__(self):
        self.now = timezone.now()

    def __call__(self):
        return self.now

    def advance(self, seconds: int) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(timezone, "now", clock)
    return clock


def signed_in(user) -> Client:
    return verified_login(Client(), user)


def reading(client, study) -> str:
    html = client.get("/").content.decode()
    cell = re.search(rf'<tr data-study="{study.pk}">.*?<td class="reading">(.*?)</td>', html, re.S)
    return cell.group(1)


def still_open(client, study) -> None:
    assert client.post(f"/studies/{study.pk}/presence/",
                       HTTP_X_RADREVIEW_POLL="1").status_code == 204


def test_reading_shows_who_has_the_study_open_until_their_page_stops_polling(clock):
    study = factories.make_study()
    ann, ben = (signed_in(factories.make_user(username=name)) for name in ("dr-ann", "dr-ben"))
    assert reading(ann, study) == "—"

    page = ann.get(f"/studies/{study.pk}/").content.decode()
    assert (f'hx-post="/studies/{study.pk}/presence/" hx-trigger="every {POLL_SECONDS}s"'
            in page)
    assert reading(ben, study) == "dr-ann"
    clock.advance(60)
    ben.get(f"/studies/{study.pk}/")
    assert reading(ann, study) == "dr-ann, dr-ben"

    # dr-ann's page keeps polling; dr-ben's was closed after opening.
    for _ in range(3):
        clock.advance(POLL_SECONDS)
        still_open(ann, study)
    assert reading(ann, study) == "dr-ann, dr-ben"  # 90 s since dr-ben's page last spoke
    clock.advance(PRESENCE_SECONDS - 90 + 1)
    assert reading(ann, study) == "dr-ann"
    clock.advance(PRESENCE_SECONDS)  # dr-ann leaves too
    assert reading(ben, study) == "—"
    still_open(ben, study)  # a page left open (or reopened) is back at its next poll
    assert reading(ann, study) == "dr-ben"


def test_admins_reading_the_study_page_are_not_shown_as_reading_it(clock):
    study = factories.make_study()
    admin = signed_in(factories.make_user(User.Role.ADMIN))
    page = admin.get(f"/studies/{study.pk}/").content.decode()
    assert 'id="presence"' not in page
    still_open(admin, study)
    assert reading(admin, study) == "—"


def test_the_presence_poll_is_a_post_for_a_study_that_exists(clock):
    study = factories.make_study()
    client = signed_in(factories.make_user())
    assert client.get(f"/studies/{study.pk}/presence/").status_code == 405
    assert client.post(f"/studies/{study.pk + 1}/presence/").status_code == 404
