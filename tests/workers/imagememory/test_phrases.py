"""RA-RRG key phrases: rule extraction, comparisons removed, the llm refinement."""
from __future__ import annotations

import json

from tests.support.fake_llm_server import FakeServer, Reply, completion
from workers.backends.builtin import RuleExtractor
from workers.backends.openai_http import OpenAITextModel
from workers.backends.spec import parse_spec
from workers.imagememory.phrases import clean_phrase, extract_key_phrases, rule_phrases

REPORT = ("INDICATION: Pneumonia?\nFINDINGS: Right pleural effusion, unchanged from the prior "
          "study. Heart size is normal. Interval improvement of left basilar atelectasis.\n"
          "IMPRESSION: Stable right pleural effusion.")


def test_phrases_come_from_the_image_sections_without_comparisons():
    phrases = extract_key_phrases(REPORT, RuleExtractor()).phrases
    assert phrases == ("right pleural effusion", "normal heart size",
                       "left basilar atelectasis")
    assert not any(word in " ".join(phrases) for word in ("unchanged", "prior", "stable",
                                                          "improvement", "pneumonia"))


def test_comparative_words_inside_a_finding_name_stay():
    assert clean_phrase("spinal degenerative change") == "spinal degenerative change"
    assert clean_phrase("small left pleural effusion, unchanged") == "small left pleural effusion"
    assert clean_phrase("again seen right pleural effusion") == "right pleural effusion"
    assert clean_phrase("unchanged") == "" and clean_phrase("no change") == ""


class _GraphExtractor:
    """An extractor that is not the rule engine: its graph goes through graph_phrases."""

    name = "other-extractor"

    def extract(self, text):
        from workers.nlp import extract_graph
        return extract_graph(text)


def test_a_non_builtin_extractor_feeds_graph_phrases():
    phrases = rule_phrases(REPORT, _GraphExtractor())
    assert "right pleural effusion" in phrases
    assert all("unchanged" not in p and "stable" not in p for p in phrases)


def test_the_llm_refines_the_list_and_comparisons_are_still_removed():
    reply = {"phrases": ["right pleural effusion, stable", "normal heart size",
                         "left basilar atelectasis improved", "unchanged"]}
    with FakeServer() as server:
        server.script = [Reply(body=completion(json.dumps(reply)))]
        llm = OpenAITextModel(parse_spec("llm", f"openai:{server.url}?model=fake"))
        result = extract_key_phrases(REPORT, RuleExtractor(), llm)
        sent = server.requests[0]["body"]["messages"][-1]["content"]
    assert "- right pleural effusion" in sent and "Stable right pleural effusion" in sent
    assert "INDICATION" not in sent
    assert result.phrases == ("right pleural effusion", "normal heart size",
                              "left basilar atelectasis")
    assert result.prompt_version == "rarrg_key_phrases/v1" and result.model == "fake"
