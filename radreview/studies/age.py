"""A patient's age at the time of a study, as reports and exports state it.

The age is computed from the birth date and the study date when both are known (the DICOM
Patient's Age tag is often missing or rounded); otherwise the tag's own value is shown.
"""
from __future__ import annotations

from datetime import date

_UNITS = {"D": "day", "W": "week", "M": "month", "Y": "year"}


def years_between(birth: date, on: date) -> int | None:
    """Whole years from ``birth`` to ``on``; None when ``on`` is before ``birth``."""
    if on < birth:
        return None
    return on.year - birth.year - ((on.month, on.day) < (birth.month, birth.day))


def age_in_years(study) -> int | None:
    if study.patient_birth_date and study.study_date:
        return years_between(study.patient_birth_date, study.study_date)
    return None


def _from_dicom_age(value: str) -> str:
    """"045Y" as "45 years"; anything unexpected as it is."""
    value = (value or "").strip().upper()
    if len(value) == 4 and value[:3].isdigit() and value[3] in _UNITS:
        number = int(value[:3])
        return f"{number} {_UNITS[value[3]]}{'s' if number != 1 else ''}"
    return value


def display_age(study) -> str:
    """"45 years" from the birth and study dates, else from the DICOM age; "" if unknown."""
    years = age_in_years(study)
    if years is not None:
        return f"{years} year{'s' if years != 1 else ''}"
    return _from_dicom_age(study.patient_age)


def dicom_age(study) -> str:
    """The age as a DICOM AS value ("045Y"), computed when the dates allow it."""
    years = age_in_years(study)
    if years is not None:
        return f"{min(years, 999):03d}Y"
    return (study.patient_age or "")[:4]
