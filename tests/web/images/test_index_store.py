"""The reference indexes in an S3-compatible store (moto's server, a real process on loopback):
a build on one host is pulled and queried by another with an empty INDEX_DIR."""
from __future__ import annotations

import io
import os
import secrets
import threading
import time

import pytest
from botocore.exceptions import EndpointConnectionError
from django.core.files.storage import storages
from django.core.management import call_command

from radreview.library import image_import, image_memory, index_store, text_library
from radreview.studies import storage
from tests.support import object_store
from workers.imagememory import ImageMemory
from workers.imagememory.access import open_memory

from .library_files import flat_with_jsonl, folder_per_study

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def store():
    """A server of the module's own (in the second pass too: its store holds the media)."""
    server = object_store.ObjectStore()
    server.start()
    yield server
    server.close()


class Hosts:
    """Two hosts of one site: the same database and bucket, an INDEX_DIR each."""

    def __init__(self, settings, root):
        self.settings, self.root = settings, root

    def on(self, host: str):
        self.settings.INDEX_DIR = self.root / host / "indexes"
        self.settings.RARRG_RETRIEVER_CHECKPOINT = self.settings.INDEX_DIR / "phrase_retriever.pt"
        return self.settings.INDEX_DIR

    def client(self):
        return storages["indexes"].connection.meta.client


@pytest.fixture
def hosts(settings, tmp_path, store):
    # Each test has a prefix of its own in the one bucket of the module's server.
    settings.STORAGES = {**settings.STORAGES, "indexes": {
        "BACKEND": "radreview.media.bucket.BucketStorage",
        "OPTIONS": store.storage_options(f"indexes-{secrets.token_hex(4)}")}}
    return Hosts(settings, tmp_path)


def neighbours(memory, image_ids):
    found = memory.search(memory.vectors(image_ids), 3)
    return [[(n.image.id, n.study.id, round(n.similarity, 5)) for n in row] for row in found]


def test_a_build_on_one_host_is_pulled_and_queried_on_another(hosts, tmp_path):
    hosts.on("a")
    image_import.run_import(*folder_per_study(tmp_path / "one", n=3))
    built = ImageMemory.open(image_memory.directory())
    probe = sorted(built.images)[:2]
    on_a = neighbours(built, probe)
    text_on_a = text_library.load_text_library().neighbours("Small left pleural effusion.", 2)

    empty = hosts.on("b")
    assert not empty.exists()
    assert index_store.pull(index_store.IMAGE_MEMORY) is True
    pulled = open_memory(str(empty), image_memory.options())
    assert set(pulled.images) == set(built.images)
    assert neighbours(pulled, probe) == on_a
    text_library.forget_cached_library()
    assert text_library.load_text_library().neighbours("Small left pleural effusion.", 2) \
        == text_on_a
    assert (empty / "text.faiss").exists()
    assert image_memory.status().images == 6


def test_a_new_version_is_picked_up_on_the_next_pull_and_two_are_kept(hosts, tmp_path):
    hosts.on("a")
    image_import.run_import(*folder_per_study(tmp_path / "one", n=2))
    assert index_store.pull(index_store.IMAGE_MEMORY) is False  # host A holds the newest
    hosts.on("b")
    index_store.pull(index_store.IMAGE_MEMORY)
    assert len(open_memory(str(hosts.on("b")), image_memory.options())) == 4
    first = index_store.published(index_store.IMAGE_MEMORY)["version"]

    hosts.on("a")
    image_import.run_import(*flat_with_jsonl(tmp_path / "two"), source="other")
    hosts.on("b")
    # the same process, no restart: the pull installs a new generation, the cache follows it
    assert index_store.pull(index_store.IMAGE_MEMORY) is True
    assert len(open_memory(str(hosts.on("b")), image_memory.options())) == 7
    pointer = index_store.published(index_store.IMAGE_MEMORY)
    assert pointer["previous"] == first and pointer["meta"]["images"] == 7

    hosts.on("a")
    call_command("rebuild_image_index", verbosity=0)
    bucket = index_store._Bucket()
    assert bucket.versions(index_store.IMAGE_MEMORY) == sorted(
        [pointer["version"], index_store.published(index_store.IMAGE_MEMORY)["version"]])


def test_a_reader_asks_the_store_at_most_every_index_check_seconds(hosts, settings, tmp_path):
    settings.INDEX_CHECK_SECONDS = 3600
    hosts.on("a")
    image_import.run_import(*folder_per_study(tmp_path / "one", n=2))
    hosts.on("b")
    assert index_store.pull(index_store.IMAGE_MEMORY) is True
    held = index_store.held_version(index_store.IMAGE_MEMORY)

    hosts.on("a")
    image_import.run_import(*flat_with_jsonl(tmp_path / "two"), source="other")
    hosts.on("b")
    # a reader that asked a moment ago goes on with its copy; a writer always asks
    assert index_store.pull(index_store.IMAGE_MEMORY) is False
    assert index_store.held_version(index_store.IMAGE_MEMORY) == held
    assert index_store.pull(index_store.IMAGE_MEMORY, strict=True) is True
    settings.INDEX_CHECK_SECONDS = 0
    assert index_store.pull(index_store.IMAGE_MEMORY) is False  # asked, and it is current
    assert index_store.held_version(index_store.IMAGE_MEMORY) \
        == index_store.published(index_store.IMAGE_MEMORY)["version"] != held


def test_a_publish_that_fails_midway_leaves_readers_on_the_version_before(hosts, tmp_path):
    hosts.on("a")
    image_import.run_import(*folder_per_study(tmp_path / "one", n=2))
    before = index_store.published(index_store.IMAGE_MEMORY)
    hosts.on("b")
    index_store.pull(index_store.IMAGE_MEMORY)

    def lose_the_manifest(params, **kwargs):
        if params["Key"].endswith("/manifest.json"):
            raise EndpointConnectionError(endpoint_url="s3")

    hosts.on("a")
    second = flat_with_jsonl(tmp_path / "two")
    upload = "before-parameter-build.s3.PutObject"
    hosts.client().meta.events.register(upload, lose_the_manifest)
    try:
        with pytest.raises(index_store.IndexStoreError, match="could not be published"):
            image_import.run_import(*second, source="other")
    finally:
        hosts.client().meta.events.unregister(upload, lose_the_manifest)
    assert len(ImageMemory.open(image_memory.directory())) == 7  # host A saved it locally

    hosts.on("b")
    assert index_store.published(index_store.IMAGE_MEMORY) == before
    assert index_store.pull(index_store.IMAGE_MEMORY) is False
    assert len(open_memory(str(hosts.on("b")), image_memory.options())) == 4

    hosts.on("a")  # importing again publishes what host A holds
    image_import.run_import(*second, source="other")
    hosts.on("b")
    assert index_store.pull(index_store.IMAGE_MEMORY) is True
    assert len(open_memory(str(hosts.on("b")), image_memory.options())) == 7


def test_an_unchanged_pointer_costs_one_small_request_and_downloads_nothing(hosts, tmp_path):
    hosts.on("a")
    image_import.run_import(*folder_per_study(tmp_path / "one", n=2))
    folder = hosts.on("b")
    index_store.pull(index_store.IMAGE_MEMORY)
    index_store.pull(index_store.TEXT)
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    stamps = [p.stat().st_mtime_ns for p in files]

    calls = []

    def count(model, **kwargs):
        calls.append(model.name)

    hosts.client().meta.events.register("before-call.s3", count)
    try:
        assert index_store.pull(index_store.IMAGE_MEMORY) is False
        assert index_store.pull(index_store.TEXT) is False
    finally:
        hosts.client().meta.events.unregister("before-call.s3", count)
    assert calls == ["GetObject", "GetObject"]
    assert sorted(p for p in folder.rglob("*") if p.is_file()) == files
    assert [p.stat().st_mtime_ns for p in files] == stamps


def test_without_an_index_store_nothing_is_pulled_or_published(settings, tmp_path):
    # the first pass's settings; the second pass's hold an index store beside the media
    settings.STORAGES = {k: v for k, v in settings.STORAGES.items() if k != "indexes"}
    assert not index_store.enabled()
    image_import.run_import(*folder_per_study(tmp_path / "one", n=2))
    assert index_store.pull(index_store.IMAGE_MEMORY) is False
    assert index_store.published(index_store.IMAGE_MEMORY) is None
    assert not (settings.INDEX_DIR / ".index-store").exists()


def test_the_image_stage_of_a_host_without_a_copy_reads_the_published_memory(hosts, tmp_path):
    from radreview.jobs.models import Job
    from radreview.jobs.stages import STAGES
    from workers.pipeline import RoleModels

    from .test_views import study_with_image

    hosts.on("a")
    image_import.run_import(*folder_per_study(tmp_path / "one", n=3))
    study, _ = study_with_image()
    job = Job.objects.create(study=study, stage="rarrg", order=0, state=Job.State.RUNNING)
    adapter = STAGES["rarrg"]

    def rarrg(host):
        hosts.on(host)
        with storage.local_copies():  # as the job runner runs a stage (media in a bucket)
            return adapter.compute(adapter.load(job), RoleModels(adapter.roles),
                                   lambda *a: None)

    on_a = rarrg("a")
    assert not (tmp_path / "b").exists()
    on_b = rarrg("b")  # the stage's load pulls the memory into host B's empty INDEX_DIR
    assert len(on_a.neighbours) == 3 and on_a.draft
    assert on_b == on_a
    assert index_store.held_version(index_store.IMAGE_MEMORY) == \
        index_store.published(index_store.IMAGE_MEMORY)["version"]


def test_publish_indexes_moves_a_single_host_site_into_the_store(hosts, settings, tmp_path):
    with_store = settings.STORAGES
    settings.STORAGES = {k: v for k, v in with_store.items() if k != "indexes"}
    hosts.on("a")
    image_import.run_import(*folder_per_study(tmp_path / "one", n=2))
    settings.STORAGES = with_store
    assert index_store.published(index_store.IMAGE_MEMORY) is None
    call_command("publish_indexes")
    call_command("publish_indexes")  # a second run finds every index there and changes nothing
    pointer = index_store.published(index_store.IMAGE_MEMORY)
    assert index_store._Bucket().versions(index_store.IMAGE_MEMORY) == [pointer["version"]]
    on_a = sorted(index_store.TEXT.files())
    assert "text.faiss" in on_a and any(n.startswith("text-sentences-") for n in on_a)
    assert index_store.published(index_store.TEXT)["files"] == on_a
    hosts.on("b")
    assert index_store.pull(index_store.IMAGE_MEMORY) and index_store.pull(index_store.TEXT)
    assert len(open_memory(str(hosts.on("b")), image_memory.options())) == 4


def test_a_copy_deleted_on_a_host_is_downloaded_again(hosts, tmp_path):
    hosts.on("a")
    image_import.run_import(*folder_per_study(tmp_path / "one", n=2))
    folder = hosts.on("b")
    assert index_store.pull(index_store.TEXT) is True
    (folder / "text.faiss").unlink()
    assert index_store.pull(index_store.TEXT) is True
    assert (folder / "text.faiss").exists()
    assert index_store.pull(index_store.TEXT) is False


def test_a_pull_killed_midway_leaves_nothing_behind_after_the_next(hosts, tmp_path):
    hosts.on("a")
    image_import.run_import(*folder_per_study(tmp_path / "one", n=2))
    folder = hosts.on("b")
    (folder / ".pull-text-killed").mkdir(parents=True)
    (folder / ".pull-text-killed" / "text.faiss").write_bytes(b"half")
    assert index_store.pull(index_store.TEXT) is True
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".pull-")) == []


def test_the_s3_setting_gives_the_indexes_a_prefix_of_their_own_in_the_bucket(tmp_path):
    import json
    import subprocess
    import sys

    from django.conf import settings

    environment = {name: value for name, value in os.environ.items()
                   if not name.endswith("_PREFIX")}  # the defaults, not a test's folders
    environment.update(RADREVIEW_DATA_DIR=str(tmp_path), RADREVIEW_S3_BUCKET="b")
    code = ("import json; from radreview import settings as s; print(json.dumps({k: "
            "{o: v['OPTIONS'][o] for o in ('bucket_name', 'location') if o in v['OPTIONS']} "
            "for k, v in s.STORAGES.items() if 'OPTIONS' in v}))")
    storages_of = {}
    for mode in ("filesystem", "s3"):
        out = subprocess.run([sys.executable, "-c", code], env={
            **environment, "RADREVIEW_MEDIA_STORE": mode}, cwd=settings.BASE_DIR,
            capture_output=True, text=True, check=True).stdout
        storages_of[mode] = json.loads(out)
    assert "indexes" not in storages_of["filesystem"]
    indexes = storages_of["s3"]["indexes"]
    assert (indexes["bucket_name"], indexes["location"]) == ("b", "indexes")
    assert all(options.get("location") != "indexes"  # media never mixed with the indexes
               for name, options in storages_of["s3"].items() if name != "indexes")


def test_a_text_index_deleted_to_be_made_again_is_re_embedded_and_published(hosts, tmp_path):
    hosts.on("a")
    image_import.run_import(*folder_per_study(tmp_path / "one", n=2))
    before = index_store.published(index_store.TEXT)["version"]
    (hosts.on("a") / "text.faiss").unlink()  # what docs/audit.md says after a new embedder
    assert text_library.sync_index() == 2  # not downloaded again: every report re-embedded
    assert index_store.published(index_store.TEXT)["previous"] == before


def test_the_trained_phrase_retriever_reaches_the_stage_of_another_host(hosts, settings,
                                                                         tmp_path):
    from radreview.jobs.models import Job
    from radreview.jobs.stages import STAGES
    from workers.pipeline import RoleModels

    from .test_views import study_with_image

    hosts.on("a")
    image_import.run_import(*folder_per_study(tmp_path / "one", n=4))
    call_command("train_phrase_retriever", "--epochs", "2", "--d-model", "32", "--queries", "6",
                 "--layers", "1", "--batch-size", "4", stdout=io.StringIO(),
                 stderr=io.StringIO())
    trained = settings.RARRG_RETRIEVER_CHECKPOINT.read_bytes()
    settings.RARRG_RETRIEVER = "trained"
    study, _ = study_with_image()
    job = Job.objects.create(study=study, stage="rarrg", order=0, state=Job.State.RUNNING)
    adapter = STAGES["rarrg"]
    hosts.on("b")
    with storage.local_copies():  # as the job runner runs a stage (media in a bucket)
        result = adapter.compute(adapter.load(job), RoleModels(adapter.roles), lambda *a: None)
    assert settings.RARRG_RETRIEVER_CHECKPOINT.read_bytes() == trained
    assert result.retriever == "trained" and result.neighbours


def test_processes_of_one_host_pulling_at_once_download_once(hosts, tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    hosts.on("a")
    image_import.run_import(*folder_per_study(tmp_path / "one", n=2))
    folder = hosts.on("b")
    start = threading.Barrier(4)

    def slow_download(params, **kwargs):
        if not params["Key"].endswith("/CURRENT"):
            time.sleep(0.5)  # a download long enough for every thread to read the pointer

    def worker(_):
        index_store._Bucket().client.meta.events.register(
            "before-parameter-build.s3.GetObject", slow_download)
        start.wait()
        return index_store.pull(index_store.IMAGE_MEMORY)

    with ThreadPoolExecutor(4) as pool:  # each thread its own client and lock handle
        pulled = list(pool.map(worker, range(4)))
    assert sorted(pulled) == [False, False, False, True]
    assert sorted(p.name for p in (folder / "image_memory").iterdir()
                  if p.name.startswith("gen-")) == ["gen-000001"]
