"""The admin status page's "test" request: the smallest real round trip through a model."""
from .base import Prompt, register

PROMPT = register(Prompt(
    task="status_probe",
    version="status_probe/v1",
    system="",
    user="This is a connection test from RadReview. Reply with the single word OK.",
    max_tokens=8,
))
