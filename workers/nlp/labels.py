"""CheXpert-14 labels from findings, following the CheXpert labeler's conventions.

* 1 positive, 0 negative, -1 uncertain, None not mentioned.
* Per label, over all mentions: a positive mention wins over negative and uncertain ones;
  negative plus uncertain is uncertain.
* Only sentences that describe the images count (FINDINGS, IMPRESSION, text outside any known
  header); INDICATION, HISTORY, COMPARISON and TECHNIQUE ask questions or tell history.
* "No Finding" is 1 when no observation other than support devices is positive or uncertain,
  else 0 (``devices_are_findings=True`` counts devices too, as the MeSH coders of the benchmark
  do). "Observation" here is the engine's whole vocabulary, not only the 13 other labels:
  a report of a calcified granuloma or a scoliosis is not a normal study, even though neither
  maps to a CheXpert label (the MeSH gold of the benchmark agrees: no study coded "normal"
  carries such a finding).
* Hierarchy: CheXpert's label hierarchy puts Lung Lesion, Edema, Consolidation, Pneumonia and
  Atelectasis under Lung Opacity, and Cardiomegaly under Enlarged Cardiomediastinum. The
  labeler itself does not propagate children to parents, and neither do we by default
  (``hierarchy=False``); docs/nlp.md gives the measured effect of turning it on.
"""
from __future__ import annotations

from collections.abc import Iterable

from workers.nlp.findings import ABSENT, IMAGE_SECTIONS, PRESENT, UNCERTAIN, Finding
from workers.nlp.vocabulary import BORDERLINE_NORMAL_RE, CHEXPERT_LABELS, CONCEPT_BY_NAME, SUPPORT

LABELS = CHEXPERT_LABELS
_VALUE = {PRESENT: 1, UNCERTAIN: -1, ABSENT: 0}

OPACITY_CHILDREN = ("Lung Lesion", "Edema", "Consolidation", "Pneumonia", "Atelectasis")


def _label_status(f: Finding) -> str:
    """The status a finding gives its labels. A heart "at the upper limits of normal" is a
    hedge for the findings (entailment and the audit keep it uncertain), but its size is
    within normal limits: it makes Cardiomegaly 0 and keeps No Finding. The human IU codes
    (7 such studies coded normal, 3 of 27 coded cardiomegaly) and the mimic-style silver agree.
    """
    if f.observation == "cardiomegaly" and f.status == UNCERTAIN \
            and BORDERLINE_NORMAL_RE.search(f.text.lower()):
        return ABSENT
    return f.status


def _combine(old: int | None, new: int) -> int:
    if old is None:
        return new
    if old == 1 or new == 1:
        return 1
    if old == -1 or new == -1:
        return -1
    return 0


def chexpert_labels(findings: Iterable[Finding], *, hierarchy: bool = False,
                    devices_are_findings: bool = False,
                    all_sections: bool = False) -> dict[str, int | None]:
    """The 14 CheXpert labels (exact CheXpert names, in CheXpert order) for ``findings``.

    ``hierarchy``: propagate positive children to Lung Opacity / Enlarged Cardiomediastinum.
    ``devices_are_findings``: a device also makes "No Finding" 0 (MeSH's reading of a normal
    study; CheXpert's labeler lets devices through, which is the default).
    ``all_sections``: also count INDICATION / HISTORY / COMPARISON / TECHNIQUE sentences.
    """
    labels: dict[str, int | None] = {name: None for name in LABELS}
    abnormal = False
    for f in findings:
        if not all_sections and f.section not in IMAGE_SECTIONS:
            continue
        status = _label_status(f)
        value = _VALUE[status]
        for label in f.labels:
            labels[label] = _combine(labels[label], value)
        concept = CONCEPT_BY_NAME[f.observation]
        if status != ABSENT and concept.abnormal and (devices_are_findings or not concept.device):
            abnormal = True
    if hierarchy:
        for child in OPACITY_CHILDREN:
            if labels[child] == 1:
                labels["Lung Opacity"] = 1
        if labels["Cardiomegaly"] == 1:
            labels["Enlarged Cardiomediastinum"] = 1
    others = [v for k, v in labels.items() if k not in ("No Finding", SUPPORT)]
    labels["No Finding"] = 0 if abnormal or any(v in (1, -1) for v in others) else 1
    return labels
