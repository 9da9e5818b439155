"""Small display helpers for the review templates."""
from django import template
from django.template.loader import get_template
from django.utils import timezone
from django.utils.safestring import mark_safe

from radreview.review.memo import Memo

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


# Rendered decision lines, kept per process: a decision is append-only, so its line changes
# only when it is undone or its user renamed (both in the key). The decision log and the panel
# histories show up to 25 of them in every answer, each formatting two dates.
_lines = Memo(limit=4096)


@register.simple_tag
def decision_line(d) -> str:
    """``review/_decision_line.html`` for decision ``d``, rendered once per process."""
    key = (d.pk, d.created_at, bool(getattr(d, "is_undone", False)), d.user.get_username(),
           timezone.get_current_timezone_name())
    line = _lines.get(key)
    if line is None:
        line = get_template("review/_decision_line.html").render({"d": d})
        _lines.put(key, line)
    return mark_safe(line)  # noqa: S308 - rendered by the template, which escapes


# The app's own evidence templates read only the flag, the study's id, whether the reader may
# decide and whether they administer the site; a site's own detector templates may read more.
APP_EVIDENCE = "review/evidence/"


@register.simple_tag(takes_context=True)
def flag_evidence(context, flag) -> str:
    """``review/_flag_evidence.html`` for ``flag``: rendered once per kept flag (a reviewable
    report's, ``selectors.StaticFlag``) and kind of reader, when every source's template is the
    app's own; each time otherwise."""
    user = context.get("user")
    key = (bool(context.get("can_decide")), bool(getattr(user, "is_site_admin", False)))
    kept = flag.kept
    keep = kept is not None and all(source.templates[0].startswith(APP_EVIDENCE)
                                    for source in flag.sources)
    if keep and key in kept.rendered:
        return kept.rendered[key]
    template = context.template.engine.get_template("review/_flag_evidence.html")
    with context.push(flag=flag):
        html = template.render(context)
    if keep:
        kept.rendered[key] = html
    return html
