"""The batch audit behind audit_reports, without Django."""
import json

import pytest

from tests.workers.library.fakes import REFERENCE_REPORTS, HashEmbedder, make_library
from workers.audit import batch
from workers.audit.library_counts import count_library
from workers.combine import CombinationConfig
from workers.correction import restore
from workers.library.records import RecordError
from workers.library.vectors import SentenceVectors
from workers.rules import denials

SOUND = REFERENCE_REPORTS[3][1]
BROKEN = SOUND.replace("No pleural effusion or pneumothorax.", "Pleural effusion or pneumothorax.")


@pytest.fixture
def reference(tmp_path):
    path = tmp_path / "reference.jsonl"
    path.write_text("".join(json.dumps({"id": i, "report": r}) + "\n"
                            for i, r in REFERENCE_REPORTS))
    return path


def test_output_lines_in_the_scorers_format(tmp_path, reference):
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": "ref-4", "report": BROKEN}) + "\n"
                      + json.dumps({"id": "ok", "report": SOUND}) + "\n"
                      + json.dumps({"id": "old", "report": "FINDINGS: Stable cardiomegaly.",
                                    "has_prior": False}) + "\n")
    embedder = HashEmbedder()
    cache = tmp_path / "cache"
    library = batch.reference_library(reference, SentenceVectors(embedder), cache_dir=cache)
    lines = list(batch.audit_records(batch.read_records(source), library=library,
                                     config=CombinationConfig(),
                                     embed=library.sentence_vectors.embed))
    broken, ok, old = lines
    assert broken["has_error"] is True
    assert broken["error_sentence"] == "Pleural effusion or pneumothorax."
    assert broken["corrected_report"] == SOUND
    flagged = [d for d in broken["detections"] if d["flagged"]]
    assert flagged[0]["detector"] == "combined"
    assert {s["detector"] for s in flagged[0]["sources"]} == {"correction", "judge"}
    assert ok == {"id": "ok", "has_error": False, "error_sentence": None,
                  "corrected_report": None, "image_sentences": 4, "detections": []}
    # a comparison in a study without a prior: the comparative detector and stage 1 agree
    assert old["has_error"] and old["corrected_report"] == "FINDINGS: Cardiomegaly."
    assert {s["detector"] for s in old["detections"][0]["sources"]} == {"correction",
                                                                       "comparative"}
    # the reference's vectors were kept for the next run, and reused by it
    assert list(cache.glob("reference-*.npz"))
    again = HashEmbedder()
    batch.reference_library(reference, SentenceVectors(again), cache_dir=cache)
    assert again.calls == []
    # an embedder at another precision reads none of them: a run gets back its own vectors
    other = HashEmbedder()
    other.precision = "bfloat16"
    batch.reference_library(reference, SentenceVectors(other), cache_dir=cache)
    assert other.calls != []


def test_a_bad_line_stops_the_run_naming_it_and_writes_nothing(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": 1, "report": SOUND}) + "\n{oops\n")
    with pytest.raises(RecordError, match=r"in.jsonl:2: bad JSON"):
        batch.read_records(source)
    source.write_text(json.dumps({"id": 1}) + "\n")
    with pytest.raises(RecordError, match=r"in.jsonl:1: .*report"):
        batch.read_records(source)


def test_findings_and_impression_fields_compose_a_report(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": 1, "findings": "Clear lungs.", "impression": "Normal."}))
    [record] = batch.read_records(source)
    assert record["report"] == "FINDINGS: Clear lungs.\nIMPRESSION: Normal."


def test_output_is_written_whole_or_not_at_all(tmp_path):
    target = tmp_path / "out.jsonl"

    def lines():
        yield {"id": 1}
        raise RuntimeError("stopped")
    with pytest.raises(RuntimeError):
        batch.write_jsonl(target, lines())
    assert not target.exists() and list(tmp_path.iterdir()) == []
    assert batch.write_jsonl(target, iter([{"id": 1}, {"id": 2}])) == 2
    assert target.read_text().count("\n") == 2


def test_a_chunk_embeds_its_combinations_explanations_in_one_call():
    embedder = HashEmbedder()
    library = make_library(embedder=embedder)
    reports = [SOUND.replace("No pleural effusion or pneumothorax.",
                             "Pleural effusion or pneumothorax."),
               REFERENCE_REPORTS[0][1].replace("The lungs are clear.", "The lungs are not clear."),
               "FINDINGS: Stable cardiomegaly. Large right pneumothorax. No pneumothorax.\n"
               "IMPRESSION: Stable."]
    records = [{"id": str(i), "report": r} for i, r in enumerate(reports)]
    before = len(embedder.calls)
    lines = list(batch.audit_records(records, library=library, config=CombinationConfig(),
                                     embed=library.sentence_vectors.embed))
    aligned = [d for line in lines for d in line["detections"] if len(d["sources"]) > 1]
    assert len({d["sources"][0]["explanation"] for d in aligned}) >= 3
    # the input's new sentences, then the explanations the chunk's combinations compare
    assert len(embedder.calls) - before == 2


def test_the_library_is_counted_before_the_first_report():
    """What the detectors count over the whole library is counted once, by count_library, and
    the audit then reads those very counts."""
    library = make_library()
    count_library(library)
    counts, model, stats = denials._COUNTS[library], restore._MODELS[library], library.stats
    list(batch.audit_records([{"id": "a", "report": "FINDINGS: No pneumothorax."}],
                             library=library, config=CombinationConfig(),
                             embed=library.sentence_vectors.embed))
    assert denials.finding_counts(library) is counts
    assert restore.context_model(library) is model and library.stats is stats
