"""Conformal risk control for λ1, λ2 from a target report share, and calibration files."""
from __future__ import annotations

import json
import random

import pytest

from workers.radflag.calibration import (
    CalibrationInputError,
    CalibrationReport,
    CalibrationSentence,
    RawReport,
    adjusted_risk,
    calibrate,
    calibrate_lines,
    empirical_risk,
    prepare,
    read_lines,
    score_raw,
    select_lambda1,
    select_lambda2,
)


def report(rid, n, rows):
    """rows: (support, factual) or (support, factual, category)."""
    return CalibrationReport(
        rid, n, tuple(CalibrationSentence(f"s{i}", *row) for i, row in enumerate(rows))
    )


# --- λ1: hand-computed cases -----------------------------------------------------------------

# c = 4 sentences, n = 3 samples. Loss Σ at λ = 0, 1, 2, 3, 4: 0, 1, 2, 2, 3, so the adjusted
# risk (Σ + 1)/(c + 1) is 0.2, 0.4, 0.6, 0.6, 0.8.
SUPPORTS, FACTUAL = [0, 1, 2, 3], [True, True, False, True]


def test_adjusted_risk_is_the_design_formula():
    assert [empirical_risk(SUPPORTS, FACTUAL, lam) for lam in range(5)] == [0, 0.25, 0.5, 0.5, 0.75]
    assert [float(adjusted_risk(SUPPORTS, FACTUAL, lam)) for lam in range(5)] == [
        0.2,
        0.4,
        0.6,
        0.6,
        0.8,
    ]


@pytest.mark.parametrize("alpha, expected", [
    (0.2, 0),    # only λ = 0 meets the bound (exactly)
    (0.39, 0),
    (0.4, 1),    # a tie with α meets the bound
    (0.59, 1),
    (0.6, 3),    # the largest λ: 3 (λ = 2 and 3 tie at 0.6), not the first
    (0.79, 3),
    (0.8, 4),    # λ = n + 1 flags every sentence
    (0.99, 4),
])
def test_largest_lambda_whose_adjusted_risk_is_at_most_alpha(alpha, expected):
    assert select_lambda1(SUPPORTS, FACTUAL, 3, alpha) == expected


def test_alpha_so_small_that_even_lambda_zero_misses_the_bound_gives_zero():
    # 1/(c+1) = 0.2 > α: no λ is certified, nothing is flagged.
    assert select_lambda1(SUPPORTS, FACTUAL, 3, 0.1) == 0
    assert select_lambda1([5] * 20, [True] * 20, 10, 0.04) == 0  # 1/21 > 0.04


def test_no_true_sentence_means_every_lambda_up_to_n_plus_one():
    assert select_lambda1([0, 3, 7, 10], [False] * 4, 10, 0.2) == 11


def test_ties_are_decided_in_exact_arithmetic():
    # c = 9: at λ = 2..5 the adjusted risk is (2 + 1)/10 = 0.3 exactly, which meets α = 0.3
    # (in floating point, (9/10)·(2/9) + 1/10 is not always 0.3).
    supports, factual = [0, 1, 5, 5, 5, 5, 5, 5, 5], [True] * 9
    assert select_lambda1(supports, factual, 10, 0.3) == 5
    assert select_lambda1(supports, factual, 10, 0.29999) == 1


def test_monotone_in_alpha():
    rng = random.Random(7)
    for _ in range(30):
        n = rng.randint(2, 12)
        c = rng.randint(1, 60)
        supports = [rng.randint(0, n) for _ in range(c)]
        factual = [rng.random() < 0.7 for _ in range(c)]
        chosen = [select_lambda1(supports, factual, n, a / 100) for a in range(1, 100)]
        assert chosen == sorted(chosen)
        assert all(0 <= lam <= n + 1 for lam in chosen)


def test_alpha_outside_zero_one_is_refused():
    for alpha in (0, 1, -0.1, 1.5, "x", None, True):
        with pytest.raises(CalibrationInputError, match="alpha"):
            select_lambda1(SUPPORTS, FACTUAL, 3, alpha)


# --- λ2 ---------------------------------------------------------------------------------------

COUNTS = [
    0,
    0,
    1,
    1,
    2,
    3,
    5,
    0,
    0,
    2,
]  # flagged sentences per report; shares for λ2 = 1..6: .6 .4 .2 .1 .1 0


@pytest.mark.parametrize(
    "target, expected",
    [(1.0, 1), (0.6, 1), (0.5, 2), (0.4, 2), (0.3, 3), (0.1, 4), (0.05, 6), (0.0, 6)],
)
def test_lambda2_is_the_smallest_that_flags_at_most_the_target_share(target, expected):
    assert select_lambda2(COUNTS, target) == expected


def test_lambda2_needs_a_valid_target():
    with pytest.raises(CalibrationInputError):
        select_lambda2(COUNTS, 1.5)


# --- the whole calibration --------------------------------------------------------------------


def test_calibrate_reports_lambda1_lambda2_and_the_rates():
    reports = [
        report("a", 3, [(0, True), (1, True), (3, True)]),
        report("b", 3, [(2, False), (0, False)]),
        report("c", 3, [(3, True), (3, True), (1, False)]),
    ]
    # c = 8; losses at λ = 0..4: 0, 1, 2, 2, 5 → adjusted 1/9, 2/9, 3/9, 3/9, 6/9.
    result = calibrate(reports, alpha=0.34, target_report_rate=0.5)
    assert result.lambda1 == 3 and result.n_sentences == 8 and result.n_reports == 3
    assert result.risk_at_lambda1 == pytest.approx(2 / 8)
    assert result.adjusted_risk_at_lambda1 == pytest.approx(3 / 9)
    # Flagged at λ1 = 3 (E < 3): a: 2, b: 2, c: 1 → 5 of 8 sentences.
    assert result.sentence_flag_rate == pytest.approx(5 / 8)
    # λ2 = 1 flags 3/3, λ2 = 2 flags 2/3, λ2 = 3 flags 0 → target 0.5 gives λ2 = 3.
    assert result.lambda2 == 3 and result.report_flag_rate == 0.0
    table = {row["lambda2"]: row for row in result.lambda2_table}
    assert table[1]["reports_flagged"] == 3 and table[1]["mean_flagged_sentences"] == pytest.approx(
        5 / 3
    )
    assert table[2]["reports_flagged"] == 2 and table[2]["mean_flagged_sentences"] == 2
    assert table[3]["reports_flagged"] == 0 and table[3]["mean_flagged_sentences"] is None
    assert [row["lambda"] for row in result.curve] == [0, 1, 2, 3, 4]
    assert [round(row["adjusted_risk"], 4) for row in result.curve] == [
        round(x / 9, 4) for x in (1, 2, 3, 3, 6)
    ]
    summary = result.summary()
    for key in (
        "lambda1",
        "lambda1_by_category",
        "lambda2",
        "alpha",
        "n_sentences",
        "risk_at_lambda1",
        "sentence_flag_rate",
        "report_flag_rate",
    ):
        assert key in summary
    assert summary["lambda1_by_category"] == {}


def test_without_a_target_there_is_no_lambda2():
    result = calibrate([report("a", 3, [(0, True), (3, True)])], alpha=0.5)
    assert result.lambda2 is None and result.report_flag_rate is None


def test_per_category_runs_the_same_selection_within_each_category():
    rng = random.Random(3)
    rows = []
    for category, share_true in (("Lungs", 0.9), ("Pleura", 0.5), ("Devices", 0.2)):
        for _ in range(40):
            rows.append((rng.randint(0, 10), rng.random() < share_true, category))
    rows += [(0, True, "Musculoskeletal")] * 3  # too few sentences for α = 0.1: λ1 = 0
    reports = [report(f"r{i}", 10, rows[i:i + 7]) for i in range(0, len(rows), 7)]
    result = calibrate(reports, alpha=0.1, per_category=True)
    for category in ("Lungs", "Pleura", "Devices", "Musculoskeletal"):
        members = [row for row in rows if row[2] == category]
        assert result.lambda1_by_category[category] == select_lambda1(
            [m[0] for m in members], [m[1] for m in members], 10, 0.1)
        assert result.category_sentences[category] == len(members)
    assert result.lambda1_by_category["Musculoskeletal"] == 0
    assert "Other" not in result.lambda1_by_category  # absent categories use the overall λ1
    assert result.lambda1 == select_lambda1([r[0] for r in rows], [r[1] for r in rows], 10, 0.1)
    flagged = sum(1 for s, f, c in rows if s < result.lambda1_by_category[c])
    assert result.sentence_flag_rate == pytest.approx(flagged / len(rows))


def test_per_category_needs_categories():
    with pytest.raises(CalibrationInputError, match="category"):
        calibrate([report("a", 3, [(0, True)])], alpha=0.5, per_category=True)


# --- files -----------------------------------------------------------------------------------


def line(**record) -> str:
    return json.dumps(record)


GOOD = line(
    id="a",
    n_samples=10,
    sentences=[
        {"text": "No effusion.", "support": 9, "factual": True},
        {"text": "Big mass.", "support": 1, "factual": False, "category": "lungs"},
    ],
)


def test_pre_scored_lines_are_read_with_categories_normalised():
    records = read_lines(
        [
            GOOD,
            "",
            line(id=2, n_samples=10, sentences=[{"text": "x", "support": 0, "factual": True}]),
        ]
    )
    assert [r.id for r in records] == ["a", "2"]
    assert records[0].sentences[1].category == "Lungs" and records[0].sentences[0].category is None


@pytest.mark.parametrize(
    "bad, message",
    [
        ("{not json", r"cal.jsonl:2: bad JSON"),
        ("[1, 2]", r"cal.jsonl:2: expected a JSON object"),
        (line(n_samples=10, sentences=[]), r"cal.jsonl:2: missing 'id'"),
        (line(id="b", n_samples=10, sentences=[]), r"cal.jsonl:2: no sentences"),
        (
            line(id="b", sentences=[{"text": "x", "support": 1, "factual": True}]),
            r"cal.jsonl:2: missing 'n_samples'",
        ),
        (
            line(
                id="b",
                n_samples=10,
                sentences=[
                    {"text": "x", "support": 1, "factual": True},
                    {"text": "y", "support": 11, "factual": True},
                ],
            ),
            r"cal.jsonl:2: sentence 2: support 11 is outside 0\.\.10",
        ),
        (
            line(id="b", n_samples=10, sentences=[{"text": "x", "support": -1, "factual": True}]),
            r"outside 0\.\.10",
        ),
        (
            line(id="b", n_samples=10, sentences=[{"text": "x", "support": 1.5, "factual": True}]),
            r"whole number",
        ),
        (
            line(id="b", n_samples=10, sentences=[{"text": "x", "support": 1, "factual": "yes"}]),
            r"true or false",
        ),
        (
            line(id="b", n_samples=10, sentences=[{"support": 1, "factual": True}]),
            r"sentence 1: missing 'text'",
        ),
        (line(id="b", n_samples=10, sentences=[{"text": "x", "support": 1}]), r"missing 'factual'"),
        (
            line(
                id="b",
                n_samples=10,
                sentences=[{"text": "x", "support": 1, "factual": True, "category": "Heart"}],
            ),
            r"category 'Heart' is not one of",
        ),
        (
            line(id="b", n_samples=5, sentences=[{"text": "x", "support": 1, "factual": True}]),
            r"cal.jsonl:2: 5 samples, but line 1 has 10",
        ),
        (
            line(id="a", n_samples=10, sentences=[{"text": "x", "support": 1, "factual": True}]),
            r"id 'a' repeats line 1",
        ),
        (
            line(id="b", candidate="No effusion.", samples=["a", "b"]),
            r"cal.jsonl:2: missing 'ground_truth'",
        ),
        (
            line(id="b", candidate="No effusion.", samples=["a", " "], ground_truth="x"),
            r"sample 2 is empty",
        ),
        (line(id="b", report="x"), r"cal.jsonl:2: expected 'n_samples' and 'sentences'"),
    ],
)
def test_invalid_lines_are_refused_naming_the_line(bad, message):
    with pytest.raises(CalibrationInputError, match=message) as refused:
        read_lines([GOOD, bad], source="cal.jsonl")
    assert refused.value.line == 2


def test_an_empty_file_is_refused():
    with pytest.raises(CalibrationInputError, match="no calibration reports"):
        read_lines(["", "  "], source="cal.jsonl")


# --- raw lines, scored by the built-in engine ---------------------------------------------------

RAW = RawReport(
    id="r1",
    candidate="FINDINGS: No pneumothorax. There is a large left pleural effusion. "
              "Mild cardiomegaly.\n"
    "INDICATION: Pneumonia?",
    samples=(
        "No pneumothorax. Small left pleural effusion. Normal heart size.",
        "No pneumothorax. No effusion. Mild cardiomegaly.",
        "Lungs are clear. No pneumothorax or effusion. Mild cardiomegaly.",
    ),
    ground_truth="No pneumothorax. No pleural effusion. Mild cardiomegaly.",
    line=4,
)


def test_raw_lines_are_scored_against_samples_and_ground_truth():
    scored = score_raw(RAW)
    assert [s.text for s in scored.sentences] == [
        "No pneumothorax.",
        "There is a large left pleural effusion.",
        "Mild cardiomegaly.",
    ]  # no INDICATION
    assert [s.support for s in scored.sentences] == [3, 1, 2]  # the size differs: partial support
    assert [s.factual for s in scored.sentences] == [True, False, True]
    assert [s.category for s in scored.sentences] == ["Pleura", "Pleura", "Cardiomediastinal"]
    assert scored.n_samples == 3


def test_calibrate_lines_reads_scores_and_selects():
    raw = json.dumps({"id": "r1", "candidate": RAW.candidate, "samples": list(RAW.samples),
                      "ground_truth": RAW.ground_truth})
    result = calibrate_lines([raw], alpha=0.5, per_category=True, target_report_rate=0.5)
    assert result.n_sentences == 3 and result.n_samples == 3
    # Two true sentences with support 3 and 2: losses at λ = 0..4 are 0, 0, 0, 1, 2 → adjusted
    # 1/4, 1/4, 1/4, 2/4, 3/4 → λ1 = 3 at α = 0.5.
    assert result.lambda1 == 3
    assert set(result.lambda1_by_category) == {"Pleura", "Cardiomediastinal"}


def test_prepare_keeps_pre_scored_reports_and_fills_categories_when_asked():
    pre = read_lines([GOOD])[0]
    assert prepare([pre])[0] is pre
    filled = prepare([pre], categorise=True)[0]
    assert [s.category for s in filled.sentences] == ["Pleura", "Lungs"]
