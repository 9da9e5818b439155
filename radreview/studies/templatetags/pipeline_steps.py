"""``{{ job.stage|stage_label }}``: a pipeline step as a radiologist reads it ("Reading the
report"), and ``{{ job.stage|stage_description }}``, what the stage does, for admins. Stage
names (parse_report, combine, ...) and the errors' commands are for admins only."""
from django import template

from radreview.jobs.stages import description_of, label_of

register = template.Library()


@register.filter
def stage_label(stage: str) -> str:
    return label_of(str(stage))


@register.filter
def stage_description(stage: str) -> str:
    return description_of(str(stage))
