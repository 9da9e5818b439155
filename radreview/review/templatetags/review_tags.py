"""Small display helpers for the review templates."""
from django import template

register = template.Library()

HARM_ICONS = {"high": "‼", "medium": "⚠", "low": "◆", "very low": "◇", "none": "·"}
VERDICTS = {
    "complete": ("✓", "entails it"),
    "partial": ("≈", "partly entails it"),
    "none": ("✕", "does not entail it"),
}
STATE_MARKS = {
    "accepted": ("✓", "flag accepted"),
    "rejected": ("✕", "flag rejected, sentence kept"),
    "edited": ("✎", "edited"),
}


@register.filter
def percent(value) -> str:
    try:
        return f"{round(float(value) * 100)}%"
    except (TypeError, ValueError):
        return ""


@register.filter
def harm_icon(harm: str) -> str:
    return HARM_ICONS.get(harm, "⚠")


@register.filter
def harm_label(harm: str) -> str:
    return f"{(harm or 'unknown').capitalize()} harm"


@register.filter
def verdict_icon(verdict: str) -> str:
    return VERDICTS.get(verdict, ("?", ""))[0]


@register.filter
def verdict_label(verdict: str) -> str:
    return VERDICTS.get(verdict, ("?", verdict or "unknown"))[1]


@register.filter
def state_icon(state: str) -> str:
    return STATE_MARKS.get(state, ("", ""))[0]


@register.filter
def state_label(state: str) -> str:
    return STATE_MARKS.get(state, ("", ""))[1]


@register.filter
def ordinal(index) -> int:
    """Sentence indices are 0-based; people count from 1."""
    try:
        return int(index) + 1
    except (TypeError, ValueError):
        return index
