"""The tags a reviewer needs, taken from a DICOM data set into a plain dataclass.

Patient identifiers stay in the metadata (reviewers need them on the study page) but this
package never logs them; :data:`PHI_FIELDS` lists them for callers that must strip them (logs,
a shared reference library).

The view position is normalised to "PA", "AP", "LATERAL", "OTHER" (a recognised view that is
none of these: oblique, decubitus, lordotic, ...) or "UNKNOWN" (no usable information), looked
for in this order: View Position; View Code Sequence (code meaning); Series Description;
Protocol Name; and last Patient Orientation, whose row direction A or P can only come from a
lateral projection (it cannot tell PA from AP). Image Laterality describes the side of a paired
organ and says nothing about the projection, so it is kept as ``laterality`` only.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, fields
from typing import Any

from pydicom import Dataset
from pydicom.multival import MultiValue
from pydicom.uid import UID

VIEWS = ("PA", "AP", "LATERAL", "OTHER", "UNKNOWN")

PHI_FIELDS = frozenset(
    {
        "patient_id",
        "patient_name",
        "patient_birth_date",
        "patient_age",
        "patient_sex",
        "accession_number",
        "institution",
        "study_date",
        "study_time",
    }
)


@dataclass(frozen=True)
class DicomMetadata:
    """What RadReview keeps of a DICOM image's header. Strings are None when absent; dates
    are ISO (YYYY-MM-DD), times HH:MM:SS, when the file's values parse."""

    study_instance_uid: str | None
    series_instance_uid: str | None
    sop_instance_uid: str | None
    sop_class_uid: str | None
    sop_class_name: str | None
    modality: str | None
    view_position: str  # one of VIEWS
    view_position_raw: str | None  # the value the view was derived from
    view_position_source: str | None  # the keyword of the tag it came from
    laterality: str | None
    body_part: str | None
    study_date: str | None
    study_time: str | None
    study_description: str | None
    series_description: str | None
    accession_number: str | None
    patient_id: str | None
    patient_name: str | None
    patient_sex: str | None
    patient_age: str | None
    patient_birth_date: str | None
    institution: str | None
    manufacturer: str | None
    rows: int
    columns: int
    photometric_interpretation: str | None
    bits_stored: int | None
    pixel_spacing: tuple[float, float] | None
    transfer_syntax_uid: str | None
    transfer_syntax_name: str | None
    window_center: float | None
    window_width: float | None

    def to_dict(self, *, include_phi: bool = True) -> dict[str, Any]:
        """JSON-serialisable; ``include_phi=False`` leaves out :data:`PHI_FIELDS`."""
        data = asdict(self)
        if data["pixel_spacing"] is not None:
            data["pixel_spacing"] = list(data["pixel_spacing"])
        if not include_phi:
            for name in PHI_FIELDS:
                data.pop(name)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DicomMetadata:
        values = {f.name: data.get(f.name) for f in fields(cls)}
        if values["pixel_spacing"] is not None:
            values["pixel_spacing"] = tuple(values["pixel_spacing"])
        values["view_position"] = values["view_position"] or "UNKNOWN"
        return cls(**values)


def extract_metadata(ds: Dataset, transfer_syntax_uid: str | None) -> DicomMetadata:
    """Read the metadata; a tag whose value cannot be read counts as absent."""
    view, raw, source = normalise_view(ds)
    sop_class = _text(ds, "SOPClassUID")
    return DicomMetadata(
        study_instance_uid=_text(ds, "StudyInstanceUID"),
        series_instance_uid=_text(ds, "SeriesInstanceUID"),
        sop_instance_uid=_text(ds, "SOPInstanceUID"),
        sop_class_uid=sop_class,
        sop_class_name=uid_name(sop_class),
        modality=_text(ds, "Modality"),
        view_position=view,
        view_position_raw=raw,
        view_position_source=source,
        laterality=_text(ds, "ImageLaterality") or _text(ds, "Laterality"),
        body_part=_text(ds, "BodyPartExamined"),
        study_date=_iso_date(_text(ds, "StudyDate")),
        study_time=_iso_time(_text(ds, "StudyTime")),
        study_description=_text(ds, "StudyDescription"),
        series_description=_text(ds, "SeriesDescription"),
        accession_number=_text(ds, "AccessionNumber"),
        patient_id=_text(ds, "PatientID"),
        patient_name=_text(ds, "PatientName"),
        patient_sex=_text(ds, "PatientSex"),
        patient_age=_text(ds, "PatientAge"),
        patient_birth_date=_iso_date(_text(ds, "PatientBirthDate")),
        institution=_text(ds, "InstitutionName"),
        manufacturer=_text(ds, "Manufacturer"),
        rows=int(ds.Rows),
        columns=int(ds.Columns),
        photometric_interpretation=_text(ds, "PhotometricInterpretation"),
        bits_stored=_number(ds, "BitsStored", int),
        pixel_spacing=_spacing(ds),
        transfer_syntax_uid=transfer_syntax_uid,
        transfer_syntax_name=uid_name(transfer_syntax_uid),
        window_center=_number(ds, "WindowCenter", float),
        window_width=_number(ds, "WindowWidth", float),
    )


def uid_name(uid: str | None) -> str | None:
    """The registered name of a UID ("Digital X-Ray Image Storage - For Presentation")."""
    if not uid:
        return None
    name = UID(uid).name
    return name if name != uid else None


# --------------------------------------------------------------------------- view position

_LATERAL_TERMS = {"LL", "RL", "LAT", "LATERAL", "LLAT", "RLAT", "XTABLE LATERAL", "SEITLICH"}
_OTHER_TERMS = {"RLD", "LLD", "RLO", "LLO", "LAO", "RAO", "LPO", "RPO", "OBLIQUE", "LORDOTIC",
                "DECUBITUS", "SWIMMERS", "AP AXIAL", "PA AXIAL"}
_PA_RE = re.compile(r"(?<![A-Z])(P\.?A\.?|POSTERO-?\s?ANTERIOR|P-A)(?![A-Z])")
_AP_RE = re.compile(r"(?<![A-Z])(A\.?P\.?|ANTERO-?\s?POSTERIOR|A-P|PORTABLE)(?![A-Z])")
_LAT_RE = re.compile(r"(?<![A-Z])(LAT|LATERAL|LL|RL|SEITLICH)(?![A-Z])")
_OTHER_RE = re.compile(
    r"OBLIQUE|DECUBITUS|LORDOTIC|SWIMMER|(?<![A-Z])(LAO|RAO|LPO|RPO|LLD|RLD)(?![A-Z])"
)


def classify_view(value: str | None) -> str:
    """Normalise one free-text or coded view description; "UNKNOWN" if it says nothing."""
    if not value:
        return "UNKNOWN"
    text = " ".join(value.upper().replace("_", " ").split())
    if text in ("PA", "AP"):
        return text
    if text in _LATERAL_TERMS:
        return "LATERAL"
    if text in _OTHER_TERMS or _OTHER_RE.search(text):
        return "OTHER"
    found = [
        view
        for view, pattern in (("PA", _PA_RE), ("AP", _AP_RE), ("LATERAL", _LAT_RE))
        if pattern.search(text)
    ]
    # "PA and lateral" describes a study, not this image: ambiguous.
    return found[0] if len(found) == 1 else "UNKNOWN"


def normalise_view(ds: Dataset) -> tuple[str, str | None, str | None]:
    """(view, raw value, source keyword) from the first tag that tells the view."""
    candidates: list[tuple[str, str | None]] = [("ViewPosition", _text(ds, "ViewPosition"))]
    try:
        code = ds.get("ViewCodeSequence")
        meaning = code[0].get("CodeMeaning") if code else None
        candidates.append(("ViewCodeSequence", str(meaning) if meaning else None))
    except (AttributeError, IndexError, TypeError, ValueError):
        pass
    candidates += [
        ("SeriesDescription", _text(ds, "SeriesDescription")),
        ("ProtocolName", _text(ds, "ProtocolName")),
    ]
    for keyword, value in candidates:
        view = classify_view(value)
        if view != "UNKNOWN":
            return view, value, keyword
    orientation = _text(ds, "PatientOrientation")
    if orientation:
        row_direction = orientation.split("\\")[0].strip().upper()
        if row_direction[:1] in ("A", "P"):
            return "LATERAL", orientation, "PatientOrientation"
    return "UNKNOWN", None, None


# --------------------------------------------------------------------------- value helpers


def _text(ds: Dataset, keyword: str) -> str | None:
    try:
        value = ds.get(keyword)
    except Exception:  # a value that does not convert is as good as absent
        return None
    if value is None:
        return None
    if isinstance(value, (list, tuple, MultiValue)):
        text = "\\".join(str(v) for v in value)
    elif isinstance(value, bytes):
        text = value.decode("ascii", errors="replace")
    else:
        text = str(value)
    text = text.strip().strip("\x00").strip()
    return text or None


def _number(ds: Dataset, keyword: str, kind: type) -> Any:
    try:
        value = ds.get(keyword)
        if value is None or value == "":
            return None
        if isinstance(value, (list, tuple, MultiValue)):
            value = value[0]
        return kind(value)
    except Exception:
        return None


def _spacing(ds: Dataset) -> tuple[float, float] | None:
    for keyword in ("PixelSpacing", "ImagerPixelSpacing"):
        try:
            value = ds.get(keyword)
            if value is not None and len(value) == 2:
                return float(value[0]), float(value[1])
        except Exception:
            continue
    return None


def _iso_date(value: str | None) -> str | None:
    if value and re.fullmatch(r"\d{8}", value):
        return f"{value[:4]}-{value[4:6]}-{value[6:]}"
    return value


def _iso_time(value: str | None) -> str | None:
    match = re.fullmatch(r"(\d{2})(\d{2})?(\d{2})?(\.\d+)?", value or "")
    if not match:
        return value
    hours, minutes, seconds = match.group(1), match.group(2) or "00", match.group(3) or "00"
    return f"{hours}:{minutes}:{seconds}"
