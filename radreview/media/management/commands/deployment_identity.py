"""python manage.py deployment_identity [--adopt-media]

Shows which deployment the database and the media folder belong to (radreview/media/identity.py).
--adopt-media gives a database that has no identity (one restored from a backup taken before
RadReview recorded identities) the identity written in the media folder's marker.
"""
from django.core.management.base import BaseCommand, CommandError

from radreview.media import identity
from radreview.media.models import Deployment
from radreview.studies import storage


class Command(BaseCommand):
    help = "Show the deployment identity of the database and of the media folder."

    def add_arguments(self, parser):
        parser.add_argument("--adopt-media", action="store_true",
                            help="give an identity-less database the media folder's identity")

    def handle(self, *args, **options):
        try:
            if options["adopt_media"]:
                identity.adopt_media()
            marker = identity.read_marker()
        except identity.DeploymentMismatch as exc:
            raise CommandError(str(exc)) from exc
        row = Deployment.objects.filter(pk=Deployment.SINGLETON).first()
        self.stdout.write(f"database: {identity.describe_database()}: "
                          f"{row.identity if row else 'no identity yet'}")
        self.stdout.write(f"media folder: {storage.where()}: "
                          f"{marker.identity if marker else 'no marker yet'}")
        if row and marker and str(row.identity) != marker.identity:
            raise CommandError("They belong to different deployments.")
