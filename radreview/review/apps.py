from django.apps import AppConfig
from django.db.models.signals import pre_delete, pre_save


class ReviewConfig(AppConfig):
    name = "radreview.review"
    label = "review"

    def ready(self):

        from radreview.studies.models import Report  # noqa: PLC0415 - app registry

        from .signals import refuse_deleting_final_reports, refuse_editing_final_reports  # noqa: PLC0415 - app registry

        pre_save.connect(
            refuse_editing_final_reports, sender=Report, dispatch_uid="review-final-immutable"
        )
        pre_delete.connect(
            refuse_deleting_final_reports, sender=Report, dispatch_uid="review-final-immutable-del"
        )
        from radreview.jobs.services import pipeline_finished  # noqa: PLC0415 - app registry

        from .carry_forward import on_pipeline_finished  # noqa: PLC0415 - app registry

        # A new report version, once checked, keeps the decisions on unchanged sentences.
        pipeline_finished.connect(on_pipeline_finished, dispatch_uid="review-carry-forward")
