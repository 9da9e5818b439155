"""python manage.py import_reference --source iu-xray [--path ARCHIVE_OR_WHEEL] [--if-empty]
python manage.py import_reference --source jsonl --path FILE
python manage.py import_reference --images DIR --reports FILE [--images-source NAME]

Imports prior reports into the reference library (ReferenceStudy rows and the text index that
the three-stage correction searches). Importing again adds only the reports that are new. The
work is in radreview/library/text_library.py; this command parses options and shows progress.
"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from radreview.library import image_import, index_store, text_library
from radreview.library.models import IU_SOURCE, SOURCES


class Command(BaseCommand):
    help = ("Import reference reports (the IU chest X-ray reports, or a JSONL file) into the "
            "library.")

    def add_arguments(self, parser):
        parser.add_argument("--source", choices=SOURCES,
                            default=IU_SOURCE,
                            help="iu-xray: the Indiana University reports (fetched with pip "
                                 "unless --path is given); jsonl: a file of "
                                 "{\"id\", \"report\"} lines")
        parser.add_argument("--path", help="the IU archive (.tgz) or the torchxrayvision wheel; "
                                           "or the JSONL file")
        parser.add_argument("--if-empty", action="store_true",
                            help="do nothing when the library already holds reports of this source")
        # Reference studies with images (docs/images.md): radreview/library/image_import.py.
        image_import.add_image_arguments(parser)

    def handle(self, *args, **options):
        self.verbosity = options["verbosity"]
        if image_import.handle_image_import(self, options):
            return
        source, path = options["source"], options["path"]
        if options["if_empty"] and not text_library.is_empty(source):
            if self.verbosity >= 1:
                self.stdout.write(f"The reference library already holds {source} reports; "
                                  "nothing to do.")
            return
        try:
            result = text_library.import_reference(source, path, progress=self._progress_bar())
        except (text_library.LibraryImportError, index_store.IndexStoreError) as exc:
            raise CommandError(exc.message) from exc
        finally:
            self._close_bar()
        self.stdout.write(
            f"Imported {result.added} {source} reports ({result.already} were already in the "
            f"library); the library holds {result.library_size} reports.")

    def _progress_bar(self):
        """A progress callback whose bar appears with the first progress (not before a
        download that may fail)."""

        self._bar = None

        def progress(fraction: float, note: str = "") -> None:
            if self._bar is None:
                self._bar = tqdm(total=100, unit="%", desc="Embedding", file=self.stderr._out,
                                 disable=self.verbosity < 1, leave=False)
            self._bar.n = round(100 * max(0.0, min(1.0, fraction)))
            self._bar.set_postfix_str(note, refresh=False)
            self._bar.refresh()

        return progress

    def _close_bar(self):
        bar = getattr(self, "_bar", None)
        if bar is not None:
            bar.close()
