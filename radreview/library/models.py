from django.db import models


class ReferenceStudy(models.Model):
    """A prior study of the reference library: its report and, when available, its images.

    Retrieval (similar reports for three-stage correction, similar images for V-RAG and RA-RRG)
    returns these rows, so every neighbour shown to a radiologist can be traced to its source.
    """

    source = models.CharField(max_length=40, db_index=True)  # "iu-xray", "jsonl", "site", ...
    external_id = models.CharField(max_length=120)  # the id in its source, e.g. "iu-5"
    report = models.TextField()
    findings = models.TextField(blank=True)
    impression = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["source", "id"]
        constraints = [
            models.UniqueConstraint(fields=["source", "external_id"], name="unique_reference_per_source"),
        ]
        verbose_name_plural = "reference studies"

    def __str__(self) -> str:
        return f"{self.source}:{self.external_id}"


def reference_image_path(image: "ReferenceImage", filename: str) -> str:
    return f"library/{image.study_id}/{filename}"


class ReferenceImage(models.Model):
    """An image of a reference study, with the preview shown next to retrieval results."""

    study = models.ForeignKey(ReferenceStudy, on_delete=models.CASCADE, related_name="images")
    file = models.FileField(upload_to=reference_image_path, max_length=300)
    view = models.CharField(max_length=10, default="UNKNOWN")
    thumbnail = models.CharField(max_length=300, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["study", "id"]
