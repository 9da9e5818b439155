"""The audit stage's library counts (issue 33): counted by the first process that meets a
library version and kept under DATA_DIR/cache/library-counts; a later process reads them back
instead of counting, a process counts nothing for its second study, and a changed library is
counted again. The detections are the same whether the counts were counted or read back."""
import pytest

from radreview.jobs import services
from radreview.library import text_library
from tests import factories
from tests.web.audit.test_stages import REPORT, run_pipeline
from tests.workers.library.fakes import REFERENCE_REPORTS
from workers.audit import library_counts
from workers.library import LibraryReport, kept


@pytest.fixture
def sent(monkeypatch):
    messages = []
    monkeypatch.setattr(services, "send", lambda job_id, queue: messages.append(job_id))
    return messages


@pytest.fixture
def counted(monkeypatch):
    """Every library the audit stage counted (not read back)."""
    libraries = []
    count = library_counts.context_model

    def counting(library):
        libraries.append(library)
        return count(library)

    monkeypatch.setattr(library_counts, "context_model", counting)
    return libraries


def import_reports(reports, capture):
    plan = text_library.ImportPlan("jsonl", [LibraryReport(i, t) for i, t in reports], 0)
    with capture(execute=True):
        text_library.store_import(plan, text_library.embed_plan(plan))


def audited(sent, capture):
    study = factories.make_study(has_prior=False)
    report = factories.make_report(study, REPORT, with_sentences=False)
    run_pipeline(study, sent, capture)
    assert study.status == study.Status.READY, [j.error for j in study.jobs.all()]
    return sorted(report.detections.values_list("detector", "sentence_index", "confidence",
                                                "flagged", "explanation", "suggestion"))


@pytest.mark.django_db
def test_a_library_version_is_counted_once_and_read_back_by_other_processes(
        sent, embedder, settings, tmp_path, counted, django_capture_on_commit_callbacks):
    capture = django_capture_on_commit_callbacks
    settings.DATA_DIR = tmp_path / "data"
    import_reports(REFERENCE_REPORTS, capture)

    first = audited(sent, capture)
    assert len(counted) == 1  # this process met the library first: counted, and kept
    [path] = text_library.counts_dir().glob(f"*{kept.SUFFIX}")
    assert audited(sent, capture) == first
    assert len(counted) == 1  # the process's second study: its library has its counts

    text_library.forget_cached_library()  # another worker process: a library object anew
    assert audited(sent, capture) == first
    assert len(counted) == 1  # read back from the kept file, not counted
    assert list(text_library.counts_dir().iterdir()) == [path]

    import_reports([(900, "FINDINGS: Small left effusion. No pneumothorax.")], capture)
    audited(sent, capture)
    assert len(counted) == 2  # a new library version is counted again
    assert counted[1].stats.count(("small", "left", "effusion")) == 1
    assert len(list(text_library.counts_dir().glob(f"*{kept.SUFFIX}"))) == 2
