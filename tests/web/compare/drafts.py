"""Studies whose report a model drafted, signed as drafted or after an edit, for the drafting
quality tests (web and browser)."""
from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from radreview.compare import services as drafting
from radreview.compare.models import DraftComparison
from radreview.jobs import runner
from radreview.jobs.models import Job
from radreview.review import services as review
from radreview.studies.models import Report, Study
from tests import factories
from tests.factories import PASSWORD

DRAFT = ("FINDINGS: Heart size is normal. There is a small right pleural effusion. "
         "No pneumothorax.\nIMPRESSION: Small right pleural effusion.")
PNEUMOTHORAX = 2  # the index of "No pneumothorax."


def drafted_study(user, *, model: str = "maira-2", version: str = "v1",
                  text: str = DRAFT) -> Study:
    """A study ready for review whose audited report is a candidate drafted by ``model``."""
    study = factories.make_study(uploaded_by=user, status=Study.Status.READY,
                                 description="Chest PA")
    draft = factories.make_report(study, text, kind=Report.Kind.CANDIDATE)
    drafting.note_draft(draft, model, version)
    return study


def _version(study: Study) -> int:
    return Study.objects.get(pk=study.pk).review_version


def edit(study: Study, user, index: int, text: str) -> None:
    review.decide(study, user, action="edit", sentence_index=index, text=text,
                  version=_version(study))


def sign(study: Study, user, *, compare: bool = True):
    """Sign the study; with ``compare``, run the comparison job a worker would run."""
    signoff = review.sign(study, user, version=_version(study), password=PASSWORD,
                          attested=True).signoff
    if compare:
        for job in Job.objects.filter(stage="compare_draft", state=Job.State.QUEUED):
            runner.run_job(job.pk)
    return signoff


def weeks_ago(study: Study, weeks: int) -> None:
    """Move the study's signing back by ``weeks`` weeks (its comparison's week with it)."""
    for comparison in DraftComparison.objects.filter(study=study):
        moment = comparison.signed_at - timedelta(weeks=weeks)
        DraftComparison.objects.filter(pk=comparison.pk).update(
            signed_at=moment, week=drafting.week_of(moment))


def signed_drafts(user) -> dict[str, Study]:
    """Two model versions over two weeks: v1 with one study signed as drafted and one with a
    false-negative pneumothorax fixed (a significant missing finding) a week ago; v2 with one
    study whose effusion was made large (a severity error) this week."""
    studies = {}
    studies["v1_unchanged"] = drafted_study(user, version="v1")
    sign(studies["v1_unchanged"], user)
    studies["v1_missed"] = drafted_study(user, version="v1")
    edit(studies["v1_missed"], user, PNEUMOTHORAX, "Small right apical pneumothorax.")
    sign(studies["v1_missed"], user)
    for study in (studies["v1_unchanged"], studies["v1_missed"]):
        weeks_ago(study, 1)
    studies["v2_severity"] = drafted_study(user, version="v2")
    edit(studies["v2_severity"], user, 1, "There is a large right pleural effusion.")
    sign(studies["v2_severity"], user)
    return studies


def this_week():
    return drafting.week_of(timezone.now())
