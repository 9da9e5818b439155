"""RadGraph-schema entities, relations, phrases and the radgraph-package dict format."""
import pytest

from workers.nlp.graph import (
    ANAT_DP,
    LOCATED_AT,
    MODIFY,
    OBS_DA,
    OBS_DP,
    OBS_U,
    SUGGESTIVE_OF,
    extract_graph,
    graph_from_radgraph,
    graph_phrases,
)


def by_tokens(graph):
    return {e.tokens.lower(): e for e in graph.entities}


def test_labels_follow_status():
    g = by_tokens(extract_graph("Small left effusion. No pneumothorax. Possible pneumonia."))
    assert g["effusion"].label == OBS_DP
    assert g["pneumothorax"].label == OBS_DA
    assert g["pneumonia"].label == OBS_U
    assert g["left"].label == ANAT_DP


def test_relations_located_at_modify_suggestive_of():
    text = "Small opacity in the left lower lobe, likely pneumonia."
    g = extract_graph(text)
    e = by_tokens(g)
    rel = {(r.type, g.entity(r.source).tokens.lower(), g.entity(r.target).tokens.lower())
           for r in g.relations}
    assert (LOCATED_AT, "opacity", "lobe") in rel
    assert (MODIFY, "left", "lobe") in rel and (MODIFY, "lower", "lobe") in rel
    assert (MODIFY, "small", "opacity") in rel
    assert (SUGGESTIVE_OF, "opacity", "pneumonia") in rel
    assert text[e["opacity"].start:e["opacity"].end] == "opacity"
    assert all(x.sentence_index == 0 for x in g.entities)


@pytest.mark.parametrize("text, phrases", [
    ("No left pleural effusion.", ["no left pleural effusion"]),
    ("There is a left lower lobe opacity.", ["left lower lobe opacity"]),
    ("Opacity in the left lower lobe.", ["left lower lobe opacity"]),
    ("Small bilateral pleural effusions.", ["small bilateral pleural effusions"]),
    ("Possible mild cardiomegaly.", ["possible mild cardiomegaly"]),
    ("The lungs are clear.", ["lungs clear"]),
    ("No acute cardiopulmonary abnormality.", ["no acute cardiopulmonary abnormality"]),
])
def test_graph_phrases(text, phrases):
    assert graph_phrases(extract_graph(text)) == phrases


def test_radgraph_dict_round_trip():
    text = ("FINDINGS: Small left pleural effusion. "
            "Opacity in the right lower lobe, likely pneumonia.")
    g = extract_graph(text)
    d = g.to_radgraph()
    assert set(d) >= {"text", "entities"}
    first = d["entities"]["1"]
    assert set(first) == {"tokens", "label", "start_ix", "end_ix", "relations"}
    back = graph_from_radgraph(d, text)
    assert back == g
    assert graph_phrases(back) == graph_phrases(g)


def test_graph_from_radgraph_package_output():
    # the shape the radgraph package returns, with its own tokenization and long labels
    text = "Mild left basilar atelectasis. No effusion."
    annotation = {
        "text": "Mild left basilar atelectasis . No effusion .",
        "entities": {
            "1": {"tokens": "Mild", "label": "Observation::definitely present", "start_ix": 0,
                  "end_ix": 0, "relations": [["modify", "4"]]},
            "2": {"tokens": "left", "label": "Anatomy::definitely present", "start_ix": 1,
                  "end_ix": 1, "relations": [["modify", "3"]]},
            "3": {"tokens": "basilar", "label": "Anatomy::definitely present", "start_ix": 2,
                  "end_ix": 2, "relations": []},
            "4": {"tokens": "atelectasis", "label": "Observation::definitely present",
                  "start_ix": 3, "end_ix": 3, "relations": [["located_at", "3"]]},
            "5": {"tokens": "effusion", "label": "Observation::definitely absent",
                  "start_ix": 6, "end_ix": 6, "relations": []},
        },
    }
    g = graph_from_radgraph(annotation, text)
    labels = {e.tokens: e.label for e in g.entities}
    assert labels == {"Mild": OBS_DP, "left": ANAT_DP, "basilar": ANAT_DP,
                      "atelectasis": OBS_DP, "effusion": OBS_DA}
    effusion = next(e for e in g.entities if e.tokens == "effusion")
    assert text[effusion.start:effusion.end] == "effusion" and effusion.sentence_index == 1
    assert graph_phrases(g) == ["mild left basilar atelectasis", "no effusion"]


def test_graph_from_radgraph_falls_back_to_searching_tokens():
    text = "Right pneumothorax."
    annotation = {"entities": {"a": {"tokens": "pneumothorax", "label": "OBS-DP",
                                     "start_ix": 99, "end_ix": 99, "relations": []}}}
    g = graph_from_radgraph(annotation, text)
    assert (g.entities[0].start, g.entities[0].end) == (6, 18)
