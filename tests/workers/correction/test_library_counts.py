"""The library's counts kept on disk between runs (count_library with a cache_dir)."""
import pickle

import pytest

from tests.workers.library.fakes import REFERENCE_REPORTS, make_library
from workers.audit import batch
from workers.audit.library_counts import count_library
from workers.combine import CombinationConfig
from workers.correction import restore
from workers.library import kept
from workers.rules import denials

SOUND = REFERENCE_REPORTS[3][1]
INPUT = [
    {"id": "a", "report": SOUND.replace("No pleural effusion or pneumothorax.",
                                        "Pleural effusion or pneumothorax.")},
    {"id": "b", "report": REFERENCE_REPORTS[0][1].replace("The lungs are clear.",
                                                          "The lungs are not clear.")},
    {"id": "c", "report": "FINDINGS: Stable cardiomegaly. No pneumothorax.\nIMPRESSION: ___."},
    {"id": "ref-2", "report": REFERENCE_REPORTS[1][1]},
]


def audit(library):
    return list(batch.audit_records(INPUT, library=library, config=CombinationConfig(),
                                    embed=library.sentence_vectors.embed))


def key_of(library):
    return kept.library_key(e.text for e in library.entries)


def counts_of(library):
    stats, model = library.stats, restore.context_model(library)
    counts = denials.finding_counts(library)
    return (stats._sentences, stats._ngrams, stats._own_sentences, model.phrases,
            model.features, model.per_report, counts.stated, counts.denied, counts.denied_alone)


def test_counts_read_back_are_the_counts_and_the_audit_is_the_same(tmp_path):
    plain = make_library()
    count_library(plain)
    expected = audit(plain)
    assert any(line["has_error"] for line in expected)

    first = make_library()
    assert count_library(first, tmp_path) is False  # counted, and kept
    [path] = tmp_path.glob(f"*{kept.SUFFIX}")
    again = make_library()
    assert count_library(again, tmp_path) is True  # read back
    assert denials._COUNTS[again] is not denials._COUNTS[first]
    assert counts_of(again) == counts_of(plain)
    assert audit(again) == expected
    assert list(tmp_path.iterdir()) == [path]  # nothing half-written left beside it


def test_a_changed_library_is_counted_again(tmp_path):
    count_library(make_library(), tmp_path)
    reports = list(REFERENCE_REPORTS)
    reports[2] = (reports[2][0], reports[2][1].replace("Normal chest.", "Small left effusion."))
    changed = make_library(reports)
    assert count_library(changed, tmp_path) is False
    assert changed.stats.count(("small", "left", "effusion")) == 1
    assert counts_of(changed) == counts_of(make_library(reports))
    # the same texts in another order are another library (counts are per position)
    assert count_library(make_library(REFERENCE_REPORTS[::-1]), tmp_path) is False
    assert len(list(tmp_path.glob(f"*{kept.SUFFIX}"))) == 3


def test_other_code_gives_another_key(monkeypatch):
    library = make_library()
    before = key_of(library)
    monkeypatch.setattr(kept, "code_fingerprint", lambda: "0123456789abcdef")
    assert key_of(library) != before


@pytest.mark.parametrize("damage", [
    b"",
    b"not a pickle at all",
    pickle.dumps(("a", "tuple", "of strings")),
    pickle.dumps({"stats": 1}),
])
def test_a_damaged_file_is_ignored_and_written_anew(tmp_path, damage):
    library = make_library()
    path = tmp_path / f"{key_of(library)}{kept.SUFFIX}"
    path.write_bytes(damage)
    assert count_library(library, tmp_path) is False
    assert counts_of(library) == counts_of(make_library())
    assert path.read_bytes() != damage
    assert count_library(make_library(), tmp_path) is True


def test_a_cut_short_file_is_ignored(tmp_path):
    library = make_library()
    count_library(library, tmp_path)
    path = tmp_path / f"{key_of(library)}{kept.SUFFIX}"
    path.write_bytes(path.read_bytes()[:len(path.read_bytes()) // 2])
    again = make_library()
    assert count_library(again, tmp_path) is False
    assert audit(again) == audit(library)


def test_counts_of_another_library_size_are_refused(tmp_path):
    """A file under the right name holding counts of fewer reports is not used."""
    small = make_library(REFERENCE_REPORTS[:2])
    count_library(small)
    library = make_library()
    kept.save(tmp_path, key_of(library), (small.stats, restore.context_model(small),
                                          denials.finding_counts(small)))
    assert count_library(library, tmp_path) is False
    assert library.stats.n_reports == len(REFERENCE_REPORTS)


def test_a_failed_write_leaves_the_kept_file_whole_and_no_partial_file(tmp_path):
    kept.save(tmp_path, "key", {"counts": 1})
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        kept.save(tmp_path, "key", {"counts": lambda: 2})  # cannot be pickled
    assert [p.name for p in tmp_path.iterdir()] == [f"key{kept.SUFFIX}"]
    assert kept.load(tmp_path, "key") == {"counts": 1}


def test_only_the_newest_files_are_kept(tmp_path):
    for n in range(kept.KEEP + 3):
        kept.save(tmp_path, f"key{n}", n)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert len(names) == kept.KEEP
    assert kept.load(tmp_path, f"key{kept.KEEP + 2}") == kept.KEEP + 2
