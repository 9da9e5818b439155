from django.apps import AppConfig
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from radreview.jobs.stages import declare
from workers.backends import BackendConfigError, configure, set_cache_dir


class ModelRolesConfig(AppConfig):
    name = "radreview.modelroles"
    label = "modelroles"
    verbose_name = "Model roles"

    def ready(self):
        # Validate every role's setting when a process starts (web or worker), so a missing
        # model folder stops the process with a message naming the setting. Nothing loads here:
        # models load lazily, once per worker process, on first use.

        try:
            configure(settings.MODEL_ROLES)
        except BackendConfigError as exc:
            raise ImproperlyConfigured(str(exc)) from None
        set_cache_dir(settings.DATA_DIR / "cache")
        declare(probe_role="radreview.modelroles.stage:PROBE_ROLE")
