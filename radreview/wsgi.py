import os

from django.core.wsgi import get_wsgi_application

from radreview.longlived import freeze_long_lived

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "radreview.settings")
application = get_wsgi_application()

from radreview.media.startup import check_before_serving  # noqa: E402 - needs the app registry

check_before_serving()
# What the app loaded lives as long as the worker: out of every full collection's walk.
freeze_long_lived()
