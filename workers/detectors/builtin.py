"""The eight built-in detectors, declared once.

Each ``run`` takes the stage's study context (``workers.study.StudyContext``, with the parts
its ``needs`` name), the models of the roles it declares and a progress callback. The
detectors of a stage share one context: the report read once, with its similar reports, the
images with their descriptors; the rule checks the judge and the correction both read are
computed once per context. The method packages load spaCy and friends, so they are
imported when a detector runs, not when the registry is read.
"""
from __future__ import annotations

import weakref

from workers.radflag.guarantee import radflag_guarantee

from .evidence import (
    ComparativeEvidence,
    ContradictionEvidence,
    CorrectionEvidence,
    JudgeEvidence,
    PriorEvidence,
    RadFlagEvidence,
    RarrgEvidence,
    VragEvidence,
)
from .spec import GENERAL, SINGLE_PURPOSE, DetectorSpec, register

# id(context) → its rule checks, forgotten with the context (a StudyContext is unhashable)
_checks_of: dict[int, list] = {}


def _rule_checks(ctx, models):
    """The rule engine's issues, shared by the judge and the correction (None with a model)."""
    if models.get("llm") is not None:
        return None
    key = id(ctx)
    if key not in _checks_of:
        from workers.rules.checks import run_checks  # noqa: PLC0415 - defer spaCy

        _checks_of[key] = run_checks(ctx)
        weakref.finalize(ctx, _checks_of.pop, key, None)
    return _checks_of[key]


def run_correction(ctx, models, progress):
    from workers.correction.three_stage import correct  # noqa: PLC0415 - defer spaCy

    return correct(ctx, llm=models.get("llm"), extractor=models.get("extractor"),
                   issues=_rule_checks(ctx, models)).detections


def run_judge(ctx, models, progress):
    from workers.judge import judge  # noqa: PLC0415 - defer spaCy

    return judge(ctx, llm=models.get("llm"), issues=_rule_checks(ctx, models))


def run_comparative(ctx, models, progress):
    from workers.rules import comparative  # noqa: PLC0415 - defer spaCy

    return comparative.detect(ctx)


def run_contradiction(ctx, models, progress):
    from workers.contradiction import detections  # noqa: PLC0415 - defer spaCy

    return detections(ctx)


def run_prior(ctx, models, progress):
    from workers.prior import detections  # noqa: PLC0415 - defer spaCy

    return detections(ctx)


def run_radflag(ctx, models, progress):
    from workers.radflag.stages import inputs_of, radflag  # noqa: PLC0415 - defer spaCy

    return radflag(inputs_of(ctx), progress, llm=models.get("llm"))


def run_vrag(ctx, models, progress):
    from workers.vrag.run import run_vrag as vrag  # noqa: PLC0415 - defer FAISS and spaCy

    return vrag(ctx, progress, **{role: models.get(role) for role in VRAG.roles})


def run_rarrg(ctx, models, progress):
    from workers.rarrg.run import run_rarrg as rarrg  # noqa: PLC0415 - defer FAISS and spaCy

    return rarrg(ctx, progress, **{role: models.get(role) for role in RARRG.roles})


CORRECTION = register(DetectorSpec(
    name="correction", label="Three-stage correction", stage="audit",
    roles=("llm", "extractor"), scope=GENERAL, evidence=CorrectionEvidence,
    run=run_correction, template="review/evidence/correction.html", needs=("report", "library"),
    description="Three-stage detection, localization and correction (Wu et al.) with the "
                "report's own RadGraph phrases and the most similar reference reports."))
JUDGE = register(DetectorSpec(
    name="judge", label="Consistency judge", stage="audit", roles=("llm",), scope=GENERAL,
    evidence=JudgeEvidence, run=run_judge, template="review/evidence/judge.html",
    needs=("report", "library"),
    description="Consistency and plausibility checks between sentences and sections, or a "
                "language model as judge."))
COMPARATIVE = register(DetectorSpec(
    name="comparative", label="Comparison without a prior", stage="audit", roles=(),
    scope=SINGLE_PURPOSE, evidence=ComparativeEvidence, run=run_comparative,
    template="review/evidence/comparative.html", needs_no_prior=True,
    description="Comparison wording (unchanged, prior, stable, ...) in a study with no prior "
                "exam: RA-RRG's comparative-hallucination keywords."))
RADFLAG = register(DetectorSpec(
    name="radflag", label="RadFlag (sampling and entailment)", stage="radflag", roles=("llm",),
    scope=GENERAL, evidence=RadFlagEvidence, run=run_radflag,
    template="review/evidence/radflag.html", guarantee=radflag_guarantee,
    needs=("report", "samples"),
    description="Each sentence's support among n sampled reports, flagged below the "
                "calibrated threshold λ1 (Zhang, Sambara et al.)."))
VRAG = register(DetectorSpec(
    name="vrag", label="V-RAG (image retrieval and probing)", stage="vrag",
    roles=("image_encoder", "generator", "llm", "extractor"), scope=GENERAL,
    evidence=VragEvidence, run=run_vrag, template="review/evidence/vrag.html",
    needs=("report", "images"),
    description="Entities of the report probed against the most similar reference images and "
                "their reports (Chu, Zhang, Malon, Min)."))
RARRG = register(DetectorSpec(
    name="rarrg", label="RA-RRG key phrases", stage="rarrg",
    roles=("image_encoder", "text_embedder", "llm"), scope=GENERAL, evidence=RarrgEvidence,
    run=run_rarrg, template="review/evidence/rarrg.html", needs=("report", "images"),
    description="Sentences no key phrase retrieved for the study's images supports "
                "(Park et al.)."))
# Declared last: folded after the image detectors by default (docs/audit.md says why).
CONTRADICTION = register(DetectorSpec(
    name="contradiction", label="Contradicting sentences", stage="audit", roles=(),
    scope=SINGLE_PURPOSE, evidence=ContradictionEvidence, run=run_contradiction,
    template="review/evidence/contradiction.html", weight=4.0,
    description="Pairs of sentences that cannot both be true (heart size, a normal summary "
                "against an acute finding, presence, side, size): both flagged, each naming "
                "the other; the normal or summary side is the one doubted."))
# Folded after the contradiction detector, at its weight, for the same reason: single-purpose,
# so only its own weight decides how far the general detectors' silence discounts it.
PRIOR = register(DetectorSpec(
    name="prior", label="Comparison with the prior report", stage="audit", roles=(),
    scope=SINGLE_PURPOSE, evidence=PriorEvidence, run=run_prior,
    template="review/evidence/prior.html", needs=("report", "prior_report"),
    needs_prior_report=True, flags_omissions=True, weight=4.0,
    description="Comparison claims (new, unchanged, again seen, resolved, improved, worse, "
                "'no prior available') checked against the prior report, and prior findings "
                "that need follow-up left out: the doubted sentence flagged, quoting the prior "
                "sentence."))
