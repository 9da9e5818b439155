from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """A RadReview user: a radiologist who reviews and signs, or an admin who runs the site."""

    class Role(models.TextChoices):
        RADIOLOGIST = "radiologist", "Radiologist"
        ADMIN = "admin", "Admin"

    role = models.CharField(max_length=20, choices=Role.choices, default=Role.RADIOLOGIST)

    @property
    def is_radiologist(self) -> bool:
        return self.role == self.Role.RADIOLOGIST

    @property
    def is_site_admin(self) -> bool:
        return self.role == self.Role.ADMIN

    def save(self, *args, **kwargs):
        # The Django admin (user management) is the admins' area; radiologists never reach it.
        self.is_staff = self.role == self.Role.ADMIN or self.is_superuser
        super().save(*args, **kwargs)
