"""``{{ study.patient_name|person_name }}``: a DICOM person name as people read it."""
from django import template

from radreview.studies.names import display_name

register = template.Library()


@register.filter
def person_name(value) -> str:
    return display_name(str(value or ""))
