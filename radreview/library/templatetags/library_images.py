"""Template tags of the image memory: the image viewer, and what the image stages retrieved."""
from __future__ import annotations

from django import template
from django.urls import reverse

from radreview.jobs.stages import label_of
from radreview.library import renders
from radreview.library.models import ReferenceStudy, StudyRetrieval
from radreview.studies.models import Report

register = template.Library()
PRESET_PLACEHOLDER = "__preset__"
EXCERPT_CHARS = 400
# An image stage skips only when the image memory cannot serve; its reason names files and
# commands, which are the admin's (the setup checklist's image memory step).
SKIPPED_PLAIN = ("not done for this study: the site's library of reference images is not ready. "
                 "Your administrator can set it up.")


@register.inclusion_tag("library/_viewer.html")
def image_viewer(study, image):
    """One view of a study with window/level presets and zoom (static/js/viewer.js)."""
    template_url = reverse("images:study_render", args=[study.pk, image.pk, PRESET_PLACEHOLDER])
    first = (reverse("studies:image", args=[study.pk, image.pk, "preview"]) if image.preview
             else template_url.replace(PRESET_PLACEHOLDER, "default"))
    return {"study": study, "image": image, "presets": renders.presets(),
            "template_url": template_url, "placeholder": PRESET_PLACEHOLDER, "first": first}


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS] + "…"


@register.inclusion_tag("library/_retrievals.html", takes_context=True)
def study_retrievals(context, study):
    """The neighbours the image stages retrieved, with their reports, thumbnails and
    similarity, RA-RRG's key phrases and both drafts; why a stage skipped (in plain words
    for radiologists)."""
    # The page's study comes with its jobs and reports prefetched: a study that has not been
    # through an image stage costs no query here.
    image_jobs = [job for job in study.jobs.all() if job.state == "done"
                  and job.stage in (StudyRetrieval.Stage.VRAG, StudyRetrieval.Stage.RARRG)]
    if not image_jobs:
        return {"study": study}
    for_admin = getattr(context.get("user"), "is_site_admin", False)
    skipped = [f"{StudyRetrieval.Stage(job.stage).label} skipped: {job.result['skipped']}"
               if for_admin else f"{label_of(job.stage)}: {SKIPPED_PLAIN}"
               for job in image_jobs if isinstance(job.result, dict) and job.result.get("skipped")]
    retrievals = {r.stage: r for r in StudyRetrieval.objects.filter(study=study)}
    drafts = {}
    for report in sorted(study.reports.all(), key=lambda r: r.pk):
        if report.kind == Report.Kind.DRAFT:
            drafts[report.source] = report
    main = retrievals.get(StudyRetrieval.Stage.VRAG) or retrievals.get(StudyRetrieval.Stage.RARRG)
    neighbours = []
    if main is not None:
        ids = {n.get("reference_id") for n in main.neighbours}
        studies = {s.pk: s for s in ReferenceStudy.objects.filter(pk__in=ids)}
        seen = set()
        for n in sorted(main.neighbours, key=lambda n: -float(n.get("similarity", 0))):
            if n.get("reference_id") in seen:
                continue
            seen.add(n.get("reference_id"))
            reference = studies.get(n.get("reference_id"))
            neighbours.append({
                **n, "reference": reference,
                "report": _excerpt(reference.report) if reference else "",
                "thumbnail": reverse("images:reference_thumbnail", args=[n["image_id"]])
                if reference else None,
            })
    return {"study": study, "retrieval": main, "neighbours": neighbours, "skipped": skipped,
            "rarrg": retrievals.get(StudyRetrieval.Stage.RARRG),
            "vrag": retrievals.get(StudyRetrieval.Stage.VRAG),
            "rarrg_draft": drafts.get("rarrg"), "vrag_draft": drafts.get("vrag")}
