"""Who may do what: radiologists review and sign; admins run the site."""
from django.contrib.auth.mixins import UserPassesTestMixin
from django.core.exceptions import PermissionDenied
from rest_framework.permissions import BasePermission


def require_site_admin(user) -> None:
    if not (user.is_authenticated and user.is_site_admin):
        raise PermissionDenied("Only admins may do this.")


def require_radiologist(user) -> None:
    if not (user.is_authenticated and user.is_radiologist):
        raise PermissionDenied("Only radiologists may do this.")


class SiteAdminRequiredMixin(UserPassesTestMixin):
    raise_exception = True

    def test_func(self):
        return self.request.user.is_authenticated and self.request.user.is_site_admin


class RadiologistRequiredMixin(UserPassesTestMixin):
    raise_exception = True

    def test_func(self):
        return self.request.user.is_authenticated and self.request.user.is_radiologist


class IsSiteAdmin(BasePermission):
    message = "Only admins may do this."

    def has_permission(self, request, view):
        return bool(request.user and request.user.is_authenticated and request.user.is_site_admin)


class IsRadiologist(BasePermission):
    message = "Only radiologists may do this."

    def has_permission(self, request, view):
        return bool(request.user and request.user.is_authenticated and request.user.is_radiologist)
