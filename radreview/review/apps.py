from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "radreview.review"
    label = "review"

    def ready(self):
        from django.db.models.signals import pre_delete, pre_save

        from radreview.studies.models import Report

        from .signals import refuse_deleting_final_reports, refuse_editing_final_reports

        pre_save.connect(refuse_editing_final_reports, sender=Report, dispatch_uid="review-final-immutable")
        pre_delete.connect(refuse_deleting_final_reports, sender=Report, dispatch_uid="review-final-immutable-del")
