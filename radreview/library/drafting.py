"""Whether a report can be drafted here from images alone: a generator model is set up, or the
image memory holds reference studies for the built-in retrieval generator. Without either, a
study of images waits for its report (radreview/dictation)."""
from __future__ import annotations

from dataclasses import dataclass

from workers.backends import registry

from .models import ReferenceImage


@dataclass(frozen=True)
class Drafting:
    generator_configured: bool
    reference_images: int

    @property
    def available(self) -> bool:
        return self.generator_configured or self.reference_images > 0


def drafting_available() -> Drafting:
    return Drafting(generator_configured=registry.spec_for("generator").kind != "builtin",
                    reference_images=ReferenceImage.objects.count())
