"""python manage.py train_phrase_retriever — train RA-RRG's key-phrase retriever on the memory.

Each reference image is an example: its fused features (the image memory's vector and, when
that encoder is a learned one, the built-in appearance descriptor of the file) and the key
phrases of its study. The checkpoint goes to settings.RARRG_RETRIEVER_CHECKPOINT
(INDEX_DIR/phrase_retriever.pt); RADREVIEW_RARRG_RETRIEVER=trained makes the rarrg stage use it.
"""
from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from radreview.library import image_memory, index_store
from radreview.studies import storage
from workers.imagememory import ImageMemory, load_pixels, resolve
from workers.rarrg.retriever import save_checkpoint, train_on_memory


class Command(BaseCommand):
    help = "Train the DETR-style key-phrase retriever of RA-RRG on the image memory."

    def add_arguments(self, parser):
        parser.add_argument("--epochs", type=int, default=30)
        parser.add_argument("--batch-size", type=int, default=32)
        parser.add_argument("--lr", type=float, default=3e-4)
        parser.add_argument("--queries", type=int, default=16,
                            help="number of decoder queries (at most this many phrases per image)")
        parser.add_argument("--d-model", type=int, default=256)
        parser.add_argument("--layers", type=int, default=2)
        parser.add_argument("--noise", type=float, default=0.05,
                            help="std of the Gaussian noise on target phrase embeddings")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--no-descriptor", action="store_true",
                            help="do not fuse the appearance descriptor with a learned encoder")
        parser.add_argument("--output", type=Path, default=None,
                            help="checkpoint path (default: settings.RARRG_RETRIEVER_CHECKPOINT)")

    def handle(self, *args, **options):
        from workers.imaging import describe  # noqa: PLC0415 - defer pydicom/scipy

        try:
            index_store.pull(index_store.IMAGE_MEMORY, strict=True)
        except index_store.IndexStoreError as exc:
            raise CommandError(exc.message) from exc
        memory = ImageMemory.open(image_memory.directory(), **image_memory.options())
        if memory.is_empty or not memory.phrases:
            raise CommandError("The image memory is empty or has no key phrases: import "
                               "reference studies with images first.")
        extra = None
        if memory.encoder.learned and not options["no_descriptor"]:
            with storage.local_copies():  # the reference images, fetched where media are in S3
                root = storage.local_root(image.path for image in memory.images.values())
                extra = {image.id: [describe(load_pixels(str(resolve(image.path, root))))]
                         for image in memory.images.values()}
        last = [-1]

        def progress(fraction, note=""):
            if int(fraction * 10) != last[0]:
                last[0] = int(fraction * 10)
                self.stderr.write(f"{fraction:4.0%} {note}")

        model, losses = train_on_memory(
            memory, extra_features=extra, epochs=options["epochs"],
            batch_size=options["batch_size"], lr=options["lr"], seed=options["seed"],
            progress=progress, queries=options["queries"], d_model=options["d_model"],
            layers=options["layers"], noise=options["noise"])
        output = options["output"] or settings.RARRG_RETRIEVER_CHECKPOINT
        if Path(output) != Path(settings.RARRG_RETRIEVER_CHECKPOINT):
            save_checkpoint(model, output)  # a file of the operator's, not the site's
        else:
            try:
                with index_store.writing(index_store.PHRASE_RETRIEVER) as publish:
                    save_checkpoint(model, output)
                    publish()
            except index_store.IndexStoreError as exc:
                raise CommandError(exc.message) from exc
        first = sum(losses[:5]) / max(1, len(losses[:5]))
        last_loss = sum(losses[-5:]) / max(1, len(losses[-5:]))
        self.stdout.write(
            f"Trained on {len(memory)} images, {len(memory.phrases)} phrases, "
            f"{len(model.config.feature_dims)} feature source(s): loss {first:.3f} → "
            f"{last_loss:.3f} over {len(losses)} steps. Checkpoint: {output}")
