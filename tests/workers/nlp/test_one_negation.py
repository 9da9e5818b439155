"""One negation: every caller reads the same phrase the same way (issue 17).

Each row is a sentence with "{X}" in the place of a finding. The answer of
workers.nlp.polarity is the reference; the findings (status), the CheXpert labels, the judge's
report context (suspect terms), the library statistics and the correction's rewrites must agree
with it. X is "pneumothorax" for the engine's vocabulary and "cirrhosis" for a term a chest film
cannot show (the judge's out-of-domain check).
"""
import pytest

from workers.correction.rewrite import affirmations_of as rewrite_affirmations
from workers.correction.rewrite import negations_of as rewrite_negations
from workers.library.stats import LibraryStats, tokens_of
from workers.nlp import chexpert_labels, extract_findings
from workers.nlp.context import NEGATED, RADIOLOGY_RULES
from workers.nlp.denial_words import DENYING_BEFORE, SEEING_VERBS, denied_after, denied_words
from workers.nlp.polarity import (
    NEGATING_PAIRS,
    NEGATION_WORDS,
    WITHOUT,
    affirmations_of,
    assertion_at,
    denial_before,
    negation_count,
    negations_of,
)
from workers.rules.checks import self_denials, unnamed_acute
from workers.study.context import StudyContext

NEG, UNC, AFF, HIST = "negated", "uncertain", "affirmed", "historical"

# (sentence, answer, whether the cue is a word cue the token helpers know)
TABLE = [
    ("No {X}.", NEG, True),
    ("There is no {X}.", NEG, True),
    ("No {X} but there is a small nodule.", NEG, True),
    ("No effusion but {X} is present.", AFF, False),
    ("{X} is not seen.", NEG, True),
    ("{X} is not identified.", NEG, True),
    ("The lungs are clear without {X}.", NEG, True),
    ("The chest is free of {X}.", NEG, True),
    ("Negative for {X}.", NEG, True),
    ("No evidence of {X}.", NEG, True),
    ("The {X} has resolved.", NEG, False),
    ("Possible {X}.", UNC, False),
    ("{X} cannot be excluded.", UNC, True),
    ("Evaluate for {X}.", UNC, False),
    ("History of {X}.", HIST, False),
    ("Large {X}.", AFF, False),
    ("There is a small {X}.", AFF, False),
    ("Findings likely represent {X}.", AFF, False),
    ("No change in the {X}.", AFF, True),
    # the words the correction's shape checks read around a denial (workers/nlp/denial_words)
    ("No mild {X}.", NEG, True),
    ("No interval appearance of mild to moderate {X}.", NEG, True),
    ("No underlying collapse and/or {X}.", NEG, True),
    ("The heart is normal, notably no {X}.", NEG, True),
    ("Lungs are clear without focal {X}.", NEG, True),
    ("{X} on the left is not seen.", NEG, True),
]

STATUS = {NEG: "absent", UNC: "uncertain", HIST: "uncertain", AFF: "present"}
LABEL = {NEG: 0, UNC: -1, HIST: -1, AFF: 1}


def _answer(polarity) -> str:
    if polarity.negated:
        return NEG
    if polarity.uncertain:
        return UNC
    if polarity.historical:
        return HIST
    assert polarity.affirmed
    return AFF


def _at(template: str, x: str):
    sentence = template.replace("{X}", x)
    sentence = sentence[:1].upper() + sentence[1:]
    start = sentence.lower().index(x)
    return sentence, start, start + len(x)


@pytest.mark.parametrize("template,answer,word_cue", TABLE)
def test_the_one_negation_answers(template, answer, word_cue):
    for x in ("pneumothorax", "cirrhosis"):
        assert _answer(assertion_at(*_at(template, x))) == answer, (template, x)


@pytest.mark.parametrize("template,answer,word_cue", TABLE)
def test_findings_and_labels_agree(template, answer, word_cue):
    sentence, start, end = _at(template, "pneumothorax")
    report = "FINDINGS: " + sentence
    findings = [f for f in extract_findings(report) if f.observation == "pneumothorax"]
    assert [f.status for f in findings] == [STATUS[answer]], template
    assert chexpert_labels(extract_findings(report))["Pneumothorax"] == LABEL[answer], template


@pytest.mark.parametrize("template,answer,word_cue", TABLE)
def test_the_judge_reads_suspect_terms_alike(template, answer, word_cue):
    sentence, start, end = _at(template, "cirrhosis")
    ctx = StudyContext("FINDINGS: " + sentence)
    terms = [t for t in ctx.suspect_terms(ctx.image_sentences[0])
             if t.text.lower() == "cirrhosis"]
    # a history is no claim about the film: no suspect term at all
    assert [t.negated for t in terms] == ([] if answer == HIST else [answer == NEG]), template


@pytest.mark.parametrize("template,answer,word_cue", [r for r in TABLE if r[2]])
def test_the_library_counts_polarity_alike(template, answer, word_cue):
    """The library's polarity is word cues (a sentence and its variant differ by them): where
    the cue is one, a negated sentence has cues and an affirmed one none."""
    sentence, _, _ = _at(template, "pneumothorax")
    tokens = tokens_of(sentence)
    if answer == NEG:
        assert negation_count(tokens) > 0
    elif answer == AFF and "no change" not in sentence.lower():
        assert negation_count(tokens) == 0
    # a variant of the sentence (cues added or removed) is counted as the other polarity
    stats = LibraryStats([[sentence]])
    assert stats.count(tokens) == 1


@pytest.mark.parametrize("template,answer,word_cue", TABLE)
def test_the_correction_flips_what_the_negation_reads(template, answer, word_cue):
    """Denying an affirmed sentence gives sentences the one negation reads as negated; undoing
    a word-cued denial gives ones it reads as affirmed (never a hedge or a history)."""
    sentence, _, _ = _at(template, "pneumothorax")
    tokens = tokens_of(sentence)
    if answer == AFF and not word_cue:
        flips, want = negations_of(tokens), NEG
    elif answer == NEG and word_cue:
        flips, want = affirmations_of(tokens), AFF
    else:
        return
    # an affirmation may have no denial the engine reads as one ("no findings likely represent
    # X" is none): then none is offered; a word-cued denial can always be undone
    assert flips or answer == AFF
    for flipped in flips:
        text = " ".join(flipped)
        i = text.index("pneumothorax")
        assert _answer(assertion_at(text, i, i + len("pneumothorax"))) == want, (sentence, text)


@pytest.mark.parametrize("template,answer,word_cue", TABLE)
def test_the_correction_finds_the_denial_where_the_negation_does(template, answer, word_cue):
    """The correction's shape checks read the words between a denied finding and its cue
    (``denial_words``): where the one negation's cue is a "no" / "without" before the finding
    they find one within reach, where it is "is / are not <seen>" after it they find that, and
    they never find a denial after a finding the one negation does not read as denied."""
    sentence, start, end = _at(template, "pneumothorax")
    before, after = sentence[:start], sentence[end:].lstrip()
    polarity = assertion_at(sentence, start, end)
    cue = (polarity.cue or "").lower().split()
    if answer == NEG and set(cue) & set(DENYING_BEFORE) and "not" not in cue:
        # two readings weighed with "and/or": the correction reads the words before it
        reach = before.removesuffix("and/or ")
        assert denied_words(reach, 0, 9) is not None, template
    elif answer == NEG and "not" in cue and cue[-1] in SEEING_VERBS:
        assert denied_after(after), template
    else:
        assert not denied_after(after), template


def test_the_correction_uses_the_one_implementation():
    assert rewrite_negations is negations_of
    assert rewrite_affirmations is affirmations_of


def test_the_denial_words_are_negation_rules():
    """The cue words of workers/nlp/denial_words.py are negation rules of context_rules.tsv:
    "no" / "without" forward, "not <verb of seeing>" backward."""
    rules = {(lit, d) for lit, cat, d, _ in RADIOLOGY_RULES if cat == NEGATED}
    for word in DENYING_BEFORE:
        assert (word, "FORWARD") in rules, word
    for verb in SEEING_VERBS:
        assert (f"not {verb}", "BACKWARD") in rules, verb


def test_token_cues_are_negation_rules():
    """The token helpers' cue words are negation rules of context_rules.tsv."""
    negations = {lit for lit, cat, _, _ in RADIOLOGY_RULES if cat == NEGATED}
    for word in NEGATION_WORDS | {WITHOUT}:
        assert word in negations, word
    for pair in NEGATING_PAIRS:
        assert " ".join(pair) in negations, pair


@pytest.mark.parametrize("sentence,flagged", [
    ("No acute cardiopulmonary abnormality.", False),
    ("Rule out acute process.", False),
    ("Evaluate for acute disease.", False),
    ("Emphysema with acute disease.", True),
])
def test_the_judge_affirmed_acute_uses_the_one_negation(sentence, flagged):
    ctx = StudyContext("IMPRESSION: " + sentence)
    assert bool(unnamed_acute(ctx)) == flagged


@pytest.mark.parametrize("text,cue", [
    ("No mild cardiomegaly", "No"),
    ("There is no evidence of old fracture", "There is no"),
    ("Lungs are clear without focal consolidation", "without"),
    # a look-alike of a cue, and a cue whose scope ends before the finding: no denial
    ("Rib fractures have not changed appreciably over the past day. Moderate effusion", None),
    ("The tube is not in the expected position and there is a moderate effusion", None),
])
def test_the_denial_before_a_finding_follows_the_rules(text, cue):
    found = denial_before(text, len(text))
    assert (found.group() if found else None) == cue


def test_a_judge_self_denial_needs_a_denial_that_reaches_the_finding():
    ctx = StudyContext("FINDINGS: Rib fractures have not changed appreciably over the past "
                       "24 hr moderate left pleural effusion is greater.")
    assert self_denials(ctx) == []
    assert self_denials(StudyContext("FINDINGS: No mild cardiomegaly."))
