"""python manage.py publish_indexes — put this host's reference indexes into the object store.

For a site moving from one host to the object store (RADREVIEW_MEDIA_STORE=s3): the image
memory, the text index and the phrase retriever of INDEX_DIR are published, each one the store
has no version of yet. Afterwards imports and rebuilds publish on their own.
"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from radreview.library import index_store


class Command(BaseCommand):
    help = "Publish this host's reference indexes to the object store (RADREVIEW_MEDIA_STORE=s3)."

    def handle(self, *args, **options):
        if not index_store.enabled():
            raise CommandError("RADREVIEW_MEDIA_STORE is not s3: INDEX_DIR is the only copy.")
        try:
            done = index_store.publish_local()
        except index_store.IndexStoreError as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(f"Published: {', '.join(done)}." if done else
                          "Nothing to publish: the store holds a version of every index "
                          "this host has.")
