"""Harm levels: the table's rules and the admin document that shows it."""
from pathlib import Path

import pytest

from workers.nlp.harm import HARM_TABLE, UNKNOWN_HARM, harm_of, render_harm_table
from workers.nlp.vocabulary import CONCEPTS
from workers.types import Harm

DOC = Path(__file__).resolve().parents[3] / "docs" / "harm-levels.md"


@pytest.mark.parametrize("observation, status, harm", [
    ("pneumothorax", "present", Harm.HIGH),
    ("pneumothorax", "absent", Harm.HIGH),
    ("device malposition", "present", Harm.HIGH),
    ("pneumonia", "absent", Harm.HIGH),
    ("pleural effusion", "present", Harm.MEDIUM),
    ("pleural effusion", "uncertain", Harm.LOW),
    ("cardiomegaly", "present", Harm.LOW),
    ("granuloma", "present", Harm.VERY_LOW),
    ("granuloma", "uncertain", Harm.VERY_LOW),
    ("nipple shadow", "present", Harm.NONE),
    ("something new", "present", UNKNOWN_HARM),
])
def test_harm_of(observation, status, harm):
    assert harm_of(observation, status) == harm


def test_every_vocabulary_observation_has_a_harm_level():
    assert {c.name for c in CONCEPTS} <= set(HARM_TABLE)


def test_document_table_matches_the_code():
    text = DOC.read_text(encoding="utf-8")
    start = text.index("<!-- harm-table:start -->") + len("<!-- harm-table:start -->\n")
    end = text.index("<!-- harm-table:end -->")
    assert text[start:end] == render_harm_table()
