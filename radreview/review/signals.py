"""A signed (final) report's text never changes: sign-off creates it, nothing edits or
deletes it."""

from radreview.studies.models import Report


def refuse_editing_final_reports(sender, instance: Report, **kwargs):
    if (instance.pk is not None and instance.kind == Report.Kind.FINAL
            and Report.objects.filter(pk=instance.pk).exists()):
        raise ValueError("final reports are immutable; sign a new version instead")


def refuse_deleting_final_reports(sender, instance: Report, **kwargs):
    if instance.kind == Report.Kind.FINAL:
        raise ValueError("final reports are immutable")
