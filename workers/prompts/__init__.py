"""Every prompt RadReview sends to a model, versioned, one module per task.

Adding a task: write ``workers/prompts/<task>.py`` that builds a ``Prompt`` in our own words
and passes it to ``register``; callers use ``get_prompt("<task>")``. See base.py and
docs/models.md ("Prompts").
"""
from .base import Prompt, Provenance, all_prompts, get_prompt, register

__all__ = ["Prompt", "Provenance", "all_prompts", "get_prompt", "register"]
