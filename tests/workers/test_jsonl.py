"""The one JSONL reader and writer (workers/jsonl.py) and the one error type per layer."""
import pytest

from radreview.errors import ServiceError
from workers.audit import batch
from workers.backends.errors import BackendError
from workers.errors import WorkerError
from workers.jsonl import JsonlError, numbered_jsonl, read_jsonl, write_jsonl
from workers.library.records import RecordError, read_jsonl_reports
from workers.nlp.batch import BatchInputError, read_records
from workers.pipeline import StageError


def test_reads_every_object_and_skips_blank_lines(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text('{"id": 1}\n\n  \n{"id": "b", "report": "No effusion."}\n', encoding="utf-8")
    assert list(read_jsonl(path)) == [{"id": 1}, {"id": "b", "report": "No effusion."}]
    assert [n for n, _ in numbered_jsonl(path)] == [1, 4]


DEEP = '{"a": ' * 1100 + "1" + "}" * 1100  # past the decoder's recursion limit
TOO_DEEP = '{"a": ' * 33 + "1" + "}" * 33  # decodes, one level past the limit
TOO_DEEP_MESSAGE = r"in\.jsonl:2: the JSON is nested too deeply \(the limit is 32 levels\)"


@pytest.mark.parametrize("line,message", [
    ("{not json", r"in\.jsonl:2: bad JSON \(.* at column 2\)"),
    (DEEP, TOO_DEEP_MESSAGE),
    (TOO_DEEP, TOO_DEEP_MESSAGE),
    ("[1, 2]", r"in\.jsonl:2: expected a JSON object, got list"),
    ('"text"', r"in\.jsonl:2: expected a JSON object, got str"),
])
def test_a_bad_line_names_the_file_and_the_line(tmp_path, line, message):
    path = tmp_path / "in.jsonl"
    path.write_text('{"id": 1}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(JsonlError, match=message):
        list(read_jsonl(path))


def test_a_line_at_the_depth_limit_is_read(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text('{"a": ' * 32 + "1" + "}" * 32 + "\n", encoding="utf-8")
    assert len(list(read_jsonl(path))) == 1


def test_lines_given_are_reported_under_the_name_given():
    with pytest.raises(JsonlError, match=r"upload\.jsonl:1: bad JSON"):
        list(read_jsonl("upload.jsonl", lines=["{oops\n"]))


def test_the_writer_replaces_the_output_only_when_every_record_is_written(tmp_path):
    target = tmp_path / "out" / "result.jsonl"
    assert write_jsonl(target, [{"id": 1, "text": "épanchement"}, {"id": 2}]) == 2
    assert list(read_jsonl(target)) == [{"id": 1, "text": "épanchement"}, {"id": 2}]

    def failing():
        yield {"id": 3}
        raise RuntimeError("stopped")

    with pytest.raises(RuntimeError):
        write_jsonl(target, failing())
    assert list(read_jsonl(target)) == [{"id": 1, "text": "épanchement"}, {"id": 2}]
    assert sorted(p.name for p in target.parent.iterdir()) == ["result.jsonl"]


def test_the_batch_readers_raise_their_own_errors_with_the_same_message(tmp_path):



    path = tmp_path / "in.jsonl"
    path.write_text("{bad\n", encoding="utf-8")
    with pytest.raises(RecordError, match=r"in\.jsonl:1: bad JSON"):
        batch.read_records(path)
    with pytest.raises(RecordError, match=r"in\.jsonl:1: bad JSON"):
        list(read_jsonl_reports(path))


    with pytest.raises(BatchInputError, match=r"in\.jsonl:1: bad JSON"):
        list(read_records(path.open(encoding="utf-8"), str(path)))


@pytest.mark.parametrize("error", [JsonlError, RecordError, BatchInputError, BackendError,
                                   StageError])
def test_worker_errors_are_one_type(error):
    assert issubclass(error, WorkerError)
    assert not issubclass(error, ServiceError)
