"""The worklist: filters, open-flag counts, sort by age, pagination, live polling."""
import re

import pytest
from django.utils import timezone

from radreview.jobs.models import Job
from radreview.review import services
from radreview.studies.models import Study
from tests import factories
from tests.factories import PASSWORD
from tests.web.review import factories as rf

pytestmark = pytest.mark.django_db


def rows(client, **query):
    response = client.get("/", query)
    assert response.status_code == 200
    html = response.content.decode()
    return [int(pk) for pk in re.findall(r'<tr data-study="(\d+)"', html)], html


def decide(study, user, action, index):
    return services.decide(study, user, action=action, sentence_index=index,
                           version=Study.objects.get(pk=study.pk).review_version)


def open_count(html, study):
    return int(re.search(rf'<tr data-study="{study.pk}">.*?data-open="(\d+)"', html, re.S).group(1))


def test_open_flag_counts_follow_decisions_and_undo(radiologist_client, radiologist):
    study = rf.make_review_study()
    _, html = rows(radiologist_client)
    assert open_count(html, study) == 4 and "4 open" in html and "of 4" in html
    decide(study, radiologist, "accept", rf.EFFUSION)
    decide(study, radiologist, "reject", rf.NODULE)
    _, html = rows(radiologist_client)
    assert open_count(html, study) == 2
    services.undo_last(study, radiologist, version=Study.objects.get(pk=study.pk).review_version)
    _, html = rows(radiologist_client)
    assert open_count(html, study) == 3


def test_raw_flags_count_when_there_is_no_combination(radiologist_client):
    study = rf.make_review_study(with_combined=False)
    _, html = rows(radiologist_client)
    assert open_count(html, study) == 3


def test_filters_flagged_signed_status_and_mine(radiologist_client, radiologist):
    flagged = rf.make_review_study()
    plain = factories.make_study(uploaded_by=radiologist)
    factories.make_report(plain, "FINDINGS: Normal chest.")
    signed = rf.make_review_study()
    for index in rf.FLAGGED:
        decide(signed, radiologist, "reject", index)
    services.sign(signed, radiologist, version=Study.objects.get(pk=signed.pk).review_version,
                  password=PASSWORD, attested=True)

    assert sorted(rows(radiologist_client, flagged="yes")[0]) == sorted([flagged.pk, signed.pk])
    assert rows(radiologist_client, flagged="no")[0] == [plain.pk]
    assert rows(radiologist_client, signed="yes")[0] == [signed.pk]
    assert sorted(rows(radiologist_client, signed="no")[0]) == sorted([flagged.pk, plain.pk])
    assert rows(radiologist_client, status="signed")[0] == [signed.pk]
    assert rows(radiologist_client, status="queued")[0] == [plain.pk]
    # Mine: uploaded by me (plain) or reviewed by me (signed), not someone else's untouched study.
    assert sorted(rows(radiologist_client, mine="1")[0]) == sorted([plain.pk, signed.pk])
    assert rows(radiologist_client, status="nonsense")[0] == rows(radiologist_client)[0]  # ignored
    _, html = rows(radiologist_client, signed="yes")
    assert '<td class="signed">v1</td>' in html and "all 4 decided" in html


def test_sort_by_age_and_pagination_keep_the_filters(radiologist_client):
    user = factories.make_user()
    studies = [factories.make_study(uploaded_by=user) for _ in range(27)]
    base = timezone.now()
    for age, study in enumerate(studies):
        Study.objects.filter(pk=study.pk).update(created_at=base - timezone.timedelta(hours=age))
    newest, html = rows(radiologist_client)
    assert newest == [s.pk for s in studies[:25]]
    assert 'href="?page=2"' in html
    oldest, html = rows(radiologist_client, sort="oldest")
    assert oldest == [s.pk for s in reversed(studies)][:25]
    assert 'href="?sort=oldest&amp;page=2"' in html
    second, _ = rows(radiologist_client, sort="oldest", page=2)
    assert second == [studies[1].pk, studies[0].pk]


def test_rows_poll_only_while_a_visible_study_is_unfinished(radiologist_client):
    study = rf.make_review_study()
    _, html = rows(radiologist_client)
    assert 'hx-trigger="every 2s"' not in html
    Job.objects.filter(study=study, stage="detect").update(state=Job.State.RUNNING)
    _, html = rows(radiologist_client, flagged="yes")
    assert 'hx-get="/?flagged=yes" hx-trigger="every 2s"' in html
    response = radiologist_client.get("/", {"flagged": "yes"}, HTTP_HX_REQUEST="true")
    assert response.content.decode().lstrip().startswith('<tbody id="worklist-rows"')


def test_the_worklist_costs_a_fixed_number_of_queries(
    radiologist_client, django_assert_max_num_queries
):
    for _ in range(6):
        rf.make_review_study()
    with django_assert_max_num_queries(10):
        assert radiologist_client.get("/", {"flagged": "yes", "mine": "1"}).status_code == 200
