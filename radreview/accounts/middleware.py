from django.contrib.auth.middleware import LoginRequiredMiddleware


class LoginRequiredEverywhere(LoginRequiredMiddleware):
    """Every page needs a logged-in user; views opt out only with ``@login_not_required``.

    The API is left to Django REST framework, which authenticates tokens as well as sessions
    and answers 401/403 in JSON instead of redirecting to the login page.
    """

    def process_view(self, request, view_func, view_args, view_kwargs):
        if request.path_info.startswith("/api/"):
            return None
        return super().process_view(request, view_func, view_args, view_kwargs)
