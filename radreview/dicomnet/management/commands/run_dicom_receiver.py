"""Run the DICOM receiver (Storage SCP + C-ECHO) until interrupted; see docs/dicom.md."""
import signal

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from radreview.dicomnet.receiver import Receiver
from radreview.media import identity


class Command(BaseCommand):
    help = "Receive studies over DICOM (C-STORE, C-ECHO) and queue them when the sender is quiet."

    def handle(self, *args, **options):
        try:  # it writes into the media folder: only into its own deployment's
            identity.ensure()
        except identity.DeploymentMismatch as exc:
            raise CommandError(str(exc)) from exc
        receiver = Receiver()
        receiver.start()
        allowed = ", ".join(settings.DICOM_ALLOWED_AES) or "any calling AE"
        self.stdout.write(f"DICOM receiver {settings.DICOM_AE_TITLE} on {settings.DICOM_HOST}:"
                          f"{settings.DICOM_PORT} (accepting {allowed}; a study is queued "
                          f"{settings.DICOM_QUIET_SECONDS} s after its last instance)",
                          ending="\n")
        self.stdout.flush()
        signal.signal(signal.SIGTERM, lambda *_: receiver.stop())
        try:
            receiver.run_forever()
        except KeyboardInterrupt:
            pass
        finally:
            receiver.stop()
