"""The DICOM JSON and frame payloads of RadReview's DICOMweb answers (PS3.18 F.2, 8.7.3)."""
from __future__ import annotations

from collections import OrderedDict

import numpy as np
from pydicom.dataset import Dataset
from pydicom.uid import UID, ExplicitVRLittleEndian

from radreview.studies.age import dicom_age

from . import catalog
from .catalog import PublishedStudy

NATIVE_SYNTAXES = {UID("1.2.840.10008.1.2"), ExplicitVRLittleEndian}
# Each frame part says its transfer syntax, as WADO-RS asks (PS3.18 8.7.3.5).
FRAME_TYPE = f"application/octet-stream; transfer-syntax={ExplicitVRLittleEndian}"


def _json(ds: Dataset) -> dict:
    return ds.to_json_dict()


def study_document(entry: PublishedStudy, retrieve_url: str) -> dict:
    study = entry.first
    ds = Dataset()
    ds.SpecificCharacterSet = "ISO_IR 192"
    ds.StudyDate = study.study_date.strftime("%Y%m%d") if study.study_date else ""
    ds.AccessionNumber = study.accession_number
    ds.ModalitiesInStudy = sorted({(i.metadata or {}).get("modality") or "DX"
                                   for i in entry.images})
    ds.StudyDescription = study.description
    ds.PatientName = study.patient_name
    ds.PatientID = study.patient_id
    ds.PatientBirthDate = (study.patient_birth_date.strftime("%Y%m%d")
                           if study.patient_birth_date else "")
    ds.PatientSex = (study.patient_sex or "")[:1].upper()
    if dicom_age(study):
        ds.PatientAge = dicom_age(study)
    ds.StudyInstanceUID = entry.uid
    ds.NumberOfStudyRelatedSeries = len({i.series_instance_uid for i in entry.images})
    ds.NumberOfStudyRelatedInstances = len(entry.images)
    ds.RetrieveURL = retrieve_url
    return _json(ds)


def series_documents(study_uid: str, images, retrieve_root: str) -> list[dict]:
    by_series: OrderedDict[str, list] = OrderedDict()
    for image in images:
        by_series.setdefault(image.series_instance_uid, []).append(image)
    documents = []
    for number, (series_uid, members) in enumerate(by_series.items(), start=1):
        meta = members[0].metadata or {}
        ds = Dataset()
        ds.StudyInstanceUID = study_uid
        ds.SeriesInstanceUID = series_uid
        ds.Modality = meta.get("modality") or "DX"
        ds.SeriesNumber = number
        ds.SeriesDescription = meta.get("series_description") or ""
        ds.NumberOfSeriesRelatedInstances = len(members)
        ds.RetrieveURL = f"{retrieve_root}/series/{series_uid}"
        documents.append(_json(ds))
    return documents


def instance_documents(study_uid: str, images, retrieve_root: str) -> list[dict]:
    documents = []
    for number, image in enumerate(images, start=1):
        meta = image.metadata or {}
        ds = Dataset()
        ds.StudyInstanceUID = study_uid
        ds.SeriesInstanceUID = image.series_instance_uid
        ds.SOPClassUID = meta.get("sop_class_uid") or ""
        ds.SOPInstanceUID = image.sop_instance_uid
        ds.InstanceNumber = number
        ds.Rows, ds.Columns = image.rows or 0, image.columns or 0
        ds.RetrieveURL = (f"{retrieve_root}/series/{image.series_instance_uid}"
                          f"/instances/{image.sop_instance_uid}")
        documents.append(_json(ds))
    return documents


def metadata_document(image) -> dict:
    """Every attribute but the pixels; the frames are served uncompressed (see ``frame``), so
    the metadata says so."""
    ds = catalog.read(image, pixels=False)
    document = _json(ds)
    document["00083002"] = {"vr": "UI", "Value": [str(ExplicitVRLittleEndian)]}
    return document


class NoSuchFrame(LookupError):
    pass


def frame(image, number: int) -> bytes:
    """Frame ``number`` (1-based) as native little-endian pixel bytes: compressed files are
    decoded here, so any DICOMweb client reads them without a codec of its own."""
    ds = catalog.read(image)
    frames = int(ds.get("NumberOfFrames", 1) or 1)
    if not 1 <= number <= frames:
        raise NoSuchFrame(f"frame {number} of {frames}")
    if ds.file_meta.TransferSyntaxUID in NATIVE_SYNTAXES:
        size = len(ds.PixelData) // frames
        return bytes(ds.PixelData[(number - 1) * size:number * size])
    pixels = ds.pixel_array
    if frames > 1:
        pixels = pixels[number - 1]
    return np.ascontiguousarray(pixels).astype(pixels.dtype.newbyteorder("<")).tobytes()
