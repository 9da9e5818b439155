"""Statements that only look opposed: each guard keeps one real-report wording quiet."""
from __future__ import annotations

import pytest

from workers.contradiction import find_contradictions
from workers.study.context import StudyContext


def kinds(text: str) -> list[str]:
    return [c.kind for c in find_contradictions(StudyContext(text))]


@pytest.mark.parametrize("text", [
    # another side
    "FINDINGS: No right pleural effusion. IMPRESSION: Small left pleural effusion.",
    # a denial about a change since the prior exam
    "FINDINGS: No new consolidation. IMPRESSION: Right lower lobe consolidation.",
    # the finding has resolved
    "FINDINGS: No pneumothorax. IMPRESSION: The right pneumothorax has resolved.",
    # another size
    "FINDINGS: Stable small left pleural effusion. IMPRESSION: No large pleural effusion.",
    # a summary that names its exception
    "FINDINGS: Small left pleural effusion. IMPRESSION: No acute process other than the "
    "effusion.",
    # a summary that leaves room
    "FINDINGS: Right lower lobe pneumonia. IMPRESSION: The lungs are otherwise clear.",
    # hedged
    "FINDINGS: Possible small left pleural effusion. IMPRESSION: No acute cardiopulmonary "
    "process.",
    "FINDINGS: No pleural effusion. IMPRESSION: Small left effusion cannot be excluded.",
    # a finding stated as prior or old
    "FINDINGS: History of right pneumothorax. IMPRESSION: No acute cardiopulmonary process.",
    "FINDINGS: Old healed left rib fracture. IMPRESSION: No acute abnormality.",
    "FINDINGS: Stable small left pleural effusion. IMPRESSION: No acute cardiopulmonary "
    "process.",
    # a denial narrowed by its own words
    "FINDINGS: No displaced rib fracture. IMPRESSION: Nondisplaced left rib fracture.",
    # a threshold the small finding is below
    "FINDINGS: Tiny left apical pneumothorax. IMPRESSION: No appreciable pneumothorax.",
    # "no acute cardiopulmonary process" says nothing of a rib
    "FINDINGS: Acute left rib fracture. IMPRESSION: No acute cardiopulmonary process.",
    # two sentences of one section may name both sides of a bilateral finding
    "FINDINGS: Small right pleural effusion. Moderate left pleural effusion.",
    # a change since the prior exam, not two sizes of one finding
    "FINDINGS: Small right pleural effusion. IMPRESSION: Right pleural effusion, decreased "
    "since the prior exam, previously large.",
    # hedged in words ConText reads as a leaning, not a doubt
    "FINDINGS: Findings likely represent a small left pleural effusion. IMPRESSION: No acute "
    "cardiopulmonary process.",
    "FINDINGS: Probably no pleural effusion. IMPRESSION: Small left pleural effusion.",
    # the finding of a prior exam
    "FINDINGS: Prior right pneumothorax. IMPRESSION: No pneumothorax.",
    # old or lasting, against a plain denial
    "FINDINGS: No rib fracture. IMPRESSION: Old healed left rib fracture.",
    # a denial with a size the finding does not have
    "FINDINGS: No large pleural effusion. IMPRESSION: Moderate left pleural effusion.",
    # the findings give no side; or both sides, and the impression names both too
    "FINDINGS: Pleural effusion. IMPRESSION: Right pleural effusion.",
    "FINDINGS: Bilateral pleural effusions. IMPRESSION: Right pleural effusion, larger than "
    "the left pleural effusion.",
    # "left" names the view, not a second side
    "FINDINGS: Small right pneumothorax only visible on the left lateral decubitus film. "
    "IMPRESSION: Small right pneumothorax.",
    # an addendum that corrects the side is a correction, not a contradiction
    "FINDINGS: Large left pleural effusion. ADDENDUM: Large right pleural effusion.",
    # one step apart is a reading, not a contradiction (small vs moderate)
    "FINDINGS: Small right pleural effusion. IMPRESSION: Moderate right pleural effusion.",
    # a sentence that revises the report replaces what it contradicts
    "FINDINGS: There is no focal opacity. After further review there is a right upper lobe "
    "focal opacity reflecting pneumonia.",
    # "chest" names the film here, not a normal chest
    "FINDINGS: AP chest compared to ___: Heart size normal. Small right pleural effusion "
    "improved since ___.",
    # a redacted word in a denial may have narrowed it
    "FINDINGS: No XXXX pleural effusion. IMPRESSION: Small left pleural effusion.",
    "FINDINGS: No ___ pleural effusion. IMPRESSION: Small left pleural effusion.",
    # an opacity describes before it names
    "FINDINGS: The opacity at the left lung base appears stable. IMPRESSION: No airspace "
    "disease.",
    # one sentence at odds with itself is no pair
    "FINDINGS: No acute cardiopulmonary process with a large right pleural effusion.",
])
def test_no_contradiction(text):
    assert kinds(text) == []


@pytest.mark.parametrize("text, kind", [
    # the guards above do not hide the plain forms
    ("FINDINGS: No pleural effusion. IMPRESSION: Small left pleural effusion.", "presence"),
    ("FINDINGS: Large left pleural effusion. IMPRESSION: No large pleural effusion.",
     "presence"),
    ("FINDINGS: Small left pleural effusion. Right pneumothorax. IMPRESSION: No acute process "
     "other than the effusion.", "global_normal"),
    ("FINDINGS: Right lower lobe pneumonia. IMPRESSION: The lungs are clear.", "presence"),
    ("FINDINGS: Acute left rib fracture. IMPRESSION: No acute osseous abnormality.",
     "global_normal"),
    ("FINDINGS: Large left apical pneumothorax. IMPRESSION: No appreciable pneumothorax.",
     "presence"),
    # "since the prior exam" compares; the finding is there
    ("FINDINGS: No pleural effusion. IMPRESSION: Small right pleural effusion, increased "
     "since the prior exam.", "presence"),
])
def test_the_plain_form_is_a_contradiction(text, kind):
    assert kinds(text) == [kind]
