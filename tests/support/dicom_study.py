"""A review study whose images are real DICOM files (for DICOMweb, the viewer, SR sends)."""
from radreview.studies.models import Image, Study
from radreview.studies.storage import write_media_atomically
from tests.support import dicom_factory as dicom
from tests.web.review import factories as rf


def make_dicom_review_study(dicom_options: dict | None = None, **fields) -> Study:
    """The review study with two DICOM views (DX with Imager Pixel Spacing, unless
    ``dicom_options`` for ``make_dicom`` say otherwise)."""
    study = rf.make_review_study(dicom=True, **fields)
    for number, image in enumerate(study.images.order_by("position")):
        data = dicom.make_dicom(study_uid=rf.STUDY_UID, series_uid=rf.SERIES_UID,
                                sop_uid=image.sop_instance_uid, seed=number,
                                view="PA" if image.view == Image.View.PA else "LATERAL",
                                patient_name="Doe^Jane", patient_id="P-0042", accession="ACC-7",
                                **(dicom_options or {}))
        write_media_atomically(image.original.name, data)
        Image.objects.filter(pk=image.pk).update(size_bytes=len(data), rows=256, columns=256)
    return study
