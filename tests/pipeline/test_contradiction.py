"""The five-sentence report of issue 12 through a real worker: both pairs flagged on the
review page, each side naming the other, and no suggestion removes or negates the effusion."""
from __future__ import annotations

import pytest

from radreview.review.models import Detection as DetectionRow
from radreview.studies.models import Study
from tests.support.worker import wait_for
from workers.nlp import extract_findings

pytestmark = [pytest.mark.pipeline]

REPORT = ("FINDINGS: Heart size is normal. There is a large right pleural effusion. No "
          "pneumothorax. IMPRESSION: No acute cardiopulmonary process. Mild cardiomegaly.")
HEART, EFFUSION, SUMMARY, CARDIOMEGALY = 0, 1, 3, 4


def negates_the_effusion(suggestion: str | None) -> bool:
    if suggestion is None:
        return False
    return not [f for f in extract_findings(suggestion)
                if f.observation == "pleural effusion" and f.status != "absent"]


def test_the_five_sentence_report_flags_both_pairs_and_keeps_the_effusion(
        celery_worker, api_client, radiologist_client):
    response = api_client.post("/api/studies/", {"report_text": REPORT}, format="multipart")
    assert response.status_code == 201, response.content
    study_id = response.json()["studies"][0]["id"]
    study = wait_for(
        lambda: Study.objects.filter(pk=study_id, status__in=["ready", "failed"]).first(),
        message="the study to finish", timeout=180, details=celery_worker.log)
    assert study.status == Study.Status.READY, list(study.jobs.values("stage", "state", "error"))

    raw = {d.sentence_index: d for d in DetectionRow.objects.filter(
        report__study=study, detector="contradiction")}
    assert set(raw) == {HEART, EFFUSION, SUMMARY, CARDIOMEGALY}
    assert raw[HEART].evidence["other_sentence"] == "Mild cardiomegaly."
    assert raw[CARDIOMEGALY].evidence["other_sentence"] == "Heart size is normal."
    assert raw[SUMMARY].evidence["other_sentence"] == "There is a large right pleural effusion."
    assert raw[EFFUSION].evidence["other_sentence"] == "No acute cardiopulmonary process."
    assert raw[SUMMARY].evidence["doubted"] and not raw[EFFUSION].evidence["doubted"]

    combined = DetectionRow.objects.filter(report__study=study, detector=DetectionRow.COMBINED)
    flagged = {d.sentence_index for d in combined if d.flagged}
    assert {HEART, EFFUSION, SUMMARY, CARDIOMEGALY} <= flagged
    every = DetectionRow.objects.filter(report__study=study, sentence_index=EFFUSION)
    assert not [d for d in every if negates_the_effusion(d.suggestion)]

    page = radiologist_client.get(f"/studies/{study_id}/").content.decode()
    for index in (HEART, EFFUSION, SUMMARY, CARDIOMEGALY):
        assert f'id="sentence-{index}" data-index="{index}" data-flag' in page
    assert "Contradicting sentences" in page
    assert "Contradicts sentence 5, \u201cMild cardiomegaly.\u201d" in page
    assert "Contradicts sentence 4, \u201cNo acute cardiopulmonary process.\u201d" in page
