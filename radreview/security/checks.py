"""Deployment checks Django's own cannot make for this project's middleware."""
from django.conf import settings
from django.core.checks import Tags, Warning, register
from django.middleware.csrf import CsrfViewMiddleware
from django.utils.module_loading import import_string


@register(Tags.security, deploy=True)
def csrf_middleware_installed(app_configs, **kwargs):
    """Django's security.W003, for a CSRF middleware that subclasses Django's (silenced in
    settings because it looks for Django's class by name)."""
    for path in settings.MIDDLEWARE:
        middleware = import_string(path)
        if isinstance(middleware, type) and issubclass(middleware, CsrfViewMiddleware):
            return []
    return [Warning("No CSRF middleware: MIDDLEWARE has no subclass of Django's "
                    "CsrfViewMiddleware, so forms are not protected against cross-site request "
                    "forgery.", id="radreview.W003")]
