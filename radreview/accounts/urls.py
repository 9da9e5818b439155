from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.urls import path

from . import oidc, views

app_name = "accounts"

urlpatterns = [
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("keepalive/", views.keepalive, name="keepalive"),
    path("settings/", views.settings_page, name="settings"),
    path("two-factor/", views.two_factor_page, name="two_factor"),
    path("two-factor/qr.svg", views.two_factor_qr, name="two_factor_qr"),
    path("sso/", login_not_required(oidc.SignOnView.as_view()), name="sso"),
    path("sso/callback/", login_not_required(oidc.CallbackView.as_view()), name="sso_callback"),
]
