from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import PermissionDenied
from django.utils.decorators import method_decorator

from radreview.audit.services import record_event

from . import throttling

LOCKED_MESSAGE = (
    "Too many failed logins. This account and address are locked for "
    "{minutes} minutes; ask an admin if you need access sooner."
)


@method_decorator(login_not_required, name="dispatch")
class ThrottledLoginView(auth_views.LoginView):
    """The login page, refusing further attempts once failures pass the configured limit."""

    template_name = "accounts/login.html"
    redirect_authenticated_user = True

    def post(self, request, *args, **kwargs):
        username = request.POST.get("username", "")
        address = throttling.client_address(request)
        if throttling.is_locked(username, address):
            minutes = settings.LOGIN_FAILURE_WINDOW_SECONDS // 60
            messages.error(request, LOCKED_MESSAGE.format(minutes=minutes))
            record_event("login_locked", actor=None, detail={"address": address})
            return self.render_to_response(self.get_context_data(form=self.get_form()), status=429)
        return super().post(request, *args, **kwargs)

    def form_valid(self, form):
        response = super().form_valid(form)
        throttling.clear_failures(form.get_user().get_username(), throttling.client_address(self.request))
        record_event("login", actor=form.get_user())
        return response

    def form_invalid(self, form):
        username = self.request.POST.get("username", "")
        throttling.record_failure(username, throttling.client_address(self.request))
        record_event("login_failed", actor=None, detail={"address": throttling.client_address(self.request)})
        return super().form_invalid(form)


class LogoutView(auth_views.LogoutView):
    pass


@login_not_required
def admin_login(request):
    """The Django admin's login: admins use the throttled login; others get a plain refusal."""
    if request.user.is_authenticated:
        raise PermissionDenied("The admin area is for admins only.")
    return ThrottledLoginView.as_view()(request)
