"""python manage.py media_files [--quarantine [--yes]]

Checks the media folder against the database and lists the original files that no study and no
unfinished upload names (file names only: they carry ids and hashes, never patient data). With
--quarantine, moves them to quarantine/<time>/ of the media (folder or bucket) after a
confirmation; nothing is ever deleted (docs/operations.md, "Media files").
"""
from django.core.management.base import BaseCommand, CommandError

from radreview.media import inventory
from radreview.studies import storage


class Command(BaseCommand):
    help = "List original files no study names; optionally move them to a quarantine folder."

    def add_arguments(self, parser):
        parser.add_argument("--quarantine", action="store_true",
                            help="move the listed files to quarantine/<time>/ of the media")
        parser.add_argument("--yes", action="store_true", help="do not ask before moving")

    def handle(self, *args, **options):
        found = inventory.check()
        for name in found.unreferenced:
            self.stdout.write(name)
        self.stdout.write(
            f"{found.files_seen} original files checked: {len(found.unreferenced)} named by no "
            f"study or upload; {found.studies_missing_files} studies with "
            f"{len(found.missing)} image files missing.")
        for study, image in found.missing:
            self.stdout.write(f"missing: study {study}, image {image}")
        if not options["quarantine"] or not found.unreferenced:
            return
        if not options["yes"]:
            answer = input(f"Move these {len(found.unreferenced)} files to the quarantine "
                           "folder? Type yes to move them: ")
            if answer.strip().lower() != "yes":
                raise CommandError("Nothing was moved.")
        folder = inventory.quarantine(found.unreferenced)
        self.stdout.write(f"Moved to {storage.where()}/{folder} (manifest.json lists each file "
                          "with its SHA-256).")
