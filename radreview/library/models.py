from django.db import models

# The files import_reference reads (text_library.py), named here for the admin's import form,
# which every process loads with the admin: text_library brings FAISS and the sentence vectors.
IU_SOURCE = "iu-xray"
JSONL_SOURCE = "jsonl"
SOURCES = (IU_SOURCE, JSONL_SOURCE)


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
            models.UniqueConstraint(
                fields=["source", "external_id"], name="unique_reference_per_source"
            ),
        ]
        verbose_name_plural = "reference studies"

    def __str__(self) -> str:
        return f"{self.source}:{self.external_id}"


def reference_image_path(image: "ReferenceImage", filename: str) -> str:
    return f"library/{image.study_id}/{filename}"


class ReferenceImage(models.Model):
    """An image of a reference study, with the preview shown next to retrieval results.

    Its primary key is its id in the image memory (docs/images.md), so every retrieved
    neighbour leads back here and to its study.
    """

    study = models.ForeignKey(ReferenceStudy, on_delete=models.CASCADE, related_name="images")
    file = models.FileField(upload_to=reference_image_path, max_length=300)
    view = models.CharField(max_length=10, default="UNKNOWN")
    thumbnail = models.CharField(max_length=300, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # --- image import (radreview/library/image_import.py) ---
    kind = models.CharField(max_length=8, blank=True)  # "dicom", "png" or "jpeg"
    original_name = models.CharField(max_length=255, blank=True)
    sha256 = models.CharField(max_length=64, blank=True, db_index=True)
    rows = models.PositiveIntegerField(null=True, blank=True)
    columns = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["study", "id"]
        constraints = [
            models.UniqueConstraint(fields=["study", "sha256"], condition=~models.Q(sha256=""),
                                    name="unique_reference_image_content"),
        ]

    def __str__(self) -> str:
        return f"{self.study} image {self.pk} ({self.view})"


class StudyRetrieval(models.Model):
    """What an image stage retrieved for a study: the neighbours (reference image and study
    ids, similarity, view), RA-RRG's selected key phrases, V-RAG's probes. The study page
    shows it; the ids keep every neighbour traceable to its ReferenceImage/ReferenceStudy."""

    class Stage(models.TextChoices):
        VRAG = "vrag", "V-RAG"
        RARRG = "rarrg", "RA-RRG"

    study = models.ForeignKey("studies.Study", on_delete=models.CASCADE,
                              related_name="retrievals")
    stage = models.CharField(max_length=8, choices=Stage.choices)
    encoder = models.CharField(max_length=200)
    encoder_learned = models.BooleanField(default=False)
    neighbours = models.JSONField(default=list, blank=True)
    phrases = models.JSONField(default=list, blank=True)
    probes = models.JSONField(default=list, blank=True)
    detail = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["study", "stage"]
        constraints = [
            models.UniqueConstraint(fields=["study", "stage"], name="unique_retrieval_per_stage"),
        ]
