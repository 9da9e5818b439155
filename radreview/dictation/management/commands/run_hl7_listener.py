"""Run the HL7 listener (ORU^R01 over MLLP) until interrupted; see docs/hl7.md."""
import asyncio
import signal

from django.conf import settings
from django.core.management.base import BaseCommand

from radreview.dictation.listener import Listener


class Command(BaseCommand):
    help = "Receive reports from the dictation system or the RIS (HL7 v2 ORU^R01 over MLLP)."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=None,
                            help="port to listen on (default RADREVIEW_HL7_PORT; 0: a free one)")

    def handle(self, *args, **options):
        listener = Listener(port=options["port"])

        def ready(running: Listener) -> None:
            allowed = ", ".join(settings.HL7_ALLOWED_SENDERS) or "any sending application"
            self.stdout.write(f"HL7 listener on {running.host}:{running.port} (accepting "
                              f"{allowed})")
            self.stdout.flush()

        async def main() -> None:
            loop = asyncio.get_running_loop()
            for number in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(number, listener.stop)
            await listener.serve(on_ready=ready)

        asyncio.run(main())
