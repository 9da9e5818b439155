"""python manage.py rebuild_image_index — re-embed every reference image into a new image memory.

Run it after switching the image encoder (RADREVIEW_IMAGE_ENCODER), the text embedder or the
extractor, after changing the HNSW settings, or when the memory says it is inconsistent. The
new memory replaces the old one atomically when it is complete; until then workers keep using
the old one.
"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from radreview.library import image_memory, index_store
from radreview.library.models import ReferenceImage


class Command(BaseCommand):
    help = "Rebuild the image memory (FAISS index of the reference images) from the library."

    def handle(self, *args, **options):

        self.verbosity = options["verbosity"]
        if not ReferenceImage.objects.exists():
            raise CommandError("The reference library has no images: import some first "
                               "(python manage.py import_reference --images DIR --reports FILE).")
        last = [-1]

        def progress(fraction, note=""):
            step = int(fraction * 10)
            if step != last[0] and self.verbosity >= 1:
                last[0] = step
                self.stderr.write(f"{fraction:4.0%} {note}")

        try:
            memory = image_memory.rebuild(progress)
        except index_store.IndexStoreError as exc:
            raise CommandError(exc.message) from exc
        encoder = memory.encoder
        self.stdout.write(
            f"Rebuilt the image memory: {len(memory)} images of {len(memory.studies)} studies, "
            f"{len(memory.phrases)} key phrases; encoder {encoder.name} ({encoder.dim}-d"
            f"{', no learned weights' if not encoder.learned else ''}); {memory.index_kind} index; "
            f"{memory.generation}.")
