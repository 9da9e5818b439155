"""python manage.py build_vrag_finetune_data --output DIR — V-RAG's three fine-tuning task sets.

Writes DIR/image_text_awareness.jsonl, DIR/image_focus.jsonl and DIR/retrieved_similar.jsonl
from the reference library (one frontal image per study, absolute image paths; where media are
in the object store, the images are copied under DIR/images/): see
workers/vrag/finetune.py for the tasks and the distinctive-label condition.
"""
from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from radreview.library import image_memory, index_store
from radreview.library.models import ReferenceStudy
from radreview.studies import storage
from workers.imagememory import ImageMemory
from workers.vrag.finetune import TASKS, build_tasks, make_study


def _local_image(name: str, output: Path) -> str:
    """The absolute path of a reference image for the task files: in the media folder, or,
    where media are in the object store, a copy under ``output/images/`` fetched now."""
    if not storage.in_bucket():
        return str(Path(settings.MEDIA_ROOT) / name)
    target = output / "images" / name
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(storage.read_media(name))
    return str(target.resolve())


class Command(BaseCommand):
    help = "Build V-RAG's fine-tuning task sets (JSONL with image paths) from the library."

    def add_arguments(self, parser):
        parser.add_argument("--output", type=Path, required=True)
        parser.add_argument("--k", type=int, default=3, help="images per example (target + K-1)")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--limit", type=int, default=None, help="at most this many per task")
        parser.add_argument("--neighbours", type=int, default=20,
                            help="similar studies searched for the retrieval task")

    def handle(self, *args, **options):

        if options["k"] < 2:
            raise CommandError("--k must be at least 2")
        try:
            index_store.pull(index_store.IMAGE_MEMORY, strict=True)
        except index_store.IndexStoreError as exc:
            raise CommandError(exc.message) from exc
        memory = ImageMemory.open(image_memory.directory(), **image_memory.options())
        studies, image_of = [], {}
        for study in ReferenceStudy.objects.prefetch_related("images"):
            images = sorted(study.images.all(),
                            key=lambda i: (i.view not in ("PA", "AP"), i.view != "PA", i.pk))
            if not images or images[0].pk not in memory.images:
                continue
            image_of[study.pk] = images[0].pk
            studies.append(make_study(study.pk, study.external_id, study.report,
                                      _local_image(images[0].file.name, options["output"])))
        if not studies:
            raise CommandError("No reference study has an image in the image memory.")
        by_id = {s.id: s for s in studies}

        def neighbours(target):
            vector = memory.vectors([image_of[target.id]])
            hits = memory.search(vector, options["neighbours"], exclude_studies={target.id})[0]
            return [by_id[h.study.id] for h in hits if h.study.id in by_id]

        tasks = build_tasks(studies, neighbours, k=options["k"], seed=options["seed"],
                            limit=options["limit"])
        options["output"].mkdir(parents=True, exist_ok=True)
        for task in TASKS:
            path = options["output"] / f"{task}.jsonl"
            with path.open("w", encoding="utf-8") as handle:
                for example in tasks[task]:
                    handle.write(json.dumps(example, ensure_ascii=False) + "\n")
            self.stdout.write(f"{task}: {len(tasks[task])} examples → {path}")
