"""CheXpert-14 labels from IU MeSH <major> terms, following the mapping in
../shared/bench/README.md.

The bench's own converter is not published; this one reproduces its dev gold (checked by
``build_findings.py --check``) so that held-out reports can be scored the same way.
"""
from __future__ import annotations

LABELS = ['No Finding', 'Enlarged Cardiomediastinum', 'Cardiomegaly', 'Lung Opacity',
          'Lung Lesion', 'Edema', 'Consolidation', 'Pneumonia', 'Atelectasis',
          'Pneumothorax', 'Pleural Effusion', 'Pleural Other', 'Fracture', 'Support Devices']

# Sites that take an opacity or a nodule out of the lungs.
BONE = {"ribs", "thoracic vertebrae", "spine", "sternum", "clavicle", "shoulder", "humerus",
        "bone and bones", "lumbar vertebrae", "cervical vertebrae", "scapula", "vertebrae"}
NON_LUNG_OPACITY_SITES = BONE | {"breast", "mediastinum", "paratracheal", "abdomen",
                                 "adipose tissue", "heart", "stomach", "diaphragm",
                                 "soft tissue", "neck"}
NON_LUNG_NODULE_SITES = NON_LUNG_OPACITY_SITES | {
    "thyroid gland",
    "liver",
    "spleen",
    "kidney",
    "pleura",
}

DIRECT = {
    "cardiomegaly": "Cardiomegaly",
    "infiltrate": "Lung Opacity",
    "airspace disease": "Lung Opacity",
    "lung neoplasms": "Lung Lesion",
    "pulmonary nodule": "Lung Lesion",
    "pulmonary edema": "Edema",
    "edema": "Edema",
    "pulmonary congestion": "Edema",
    "heart failure": "Edema",
    "consolidation": "Consolidation",
    "pneumonia": "Pneumonia",
    "pulmonary atelectasis": "Atelectasis",
    "atelectases": "Atelectasis",
    "atelectasis": "Atelectasis",
    "pneumothorax": "Pneumothorax",
    "pleural effusion": "Pleural Effusion",
    "hemothorax": "Pleural Effusion",
    "pleural thickening": "Pleural Other",
    "fractures, bone": "Fracture",
    "fracture": "Fracture",
    "catheters, indwelling": "Support Devices",
    "implanted medical device": "Support Devices",
    "tube, inserted": "Support Devices",
    "surgical instruments": "Support Devices",
    "medical device": "Support Devices",
    "pacemaker, artificial": "Support Devices",
    "stents": "Support Devices",
    "sutures": "Support Devices",
}
BOTH_PLEURAL = {"hydropneumothorax", "hemopneumothorax"}
HEART_TERMS = {"cardiac shadow", "heart", "heart ventricles", "heart atria"}
EXCLUDED_ONLY = {"no indexing", "technical quality of image unsatisfactory"}


def labels_from_mesh(major_terms: tuple[str, ...]) -> dict[str, int] | None:
    """The 14 labels (1 = coded positive, 0 = not), or None for a report the bench excludes."""
    terms = [t.strip() for t in major_terms if t.strip()]
    heads = {t.split("/")[0].strip().lower() for t in terms}
    if not terms or heads <= EXCLUDED_ONLY:
        return None
    found = {label: 0 for label in LABELS}
    for term in terms:
        head, *qualifiers = [part.strip().lower() for part in term.split("/")]
        quals = set(qualifiers)
        if head == "normal":
            found["No Finding"] = 1
        elif head in DIRECT:
            found[DIRECT[head]] = 1
        elif head in BOTH_PLEURAL:
            found["Pneumothorax"] = found["Pleural Effusion"] = 1
        elif (
            head == "mediastinum"
            and quals & {"enlarged", "widened", "prominent"}
            and "lymph nodes" not in quals
        ):
            found["Enlarged Cardiomediastinum"] = 1
        elif head in HEART_TERMS and "enlarged" in quals:
            found["Cardiomegaly"] = 1
        elif head in ("opacity", "density") and not quals & NON_LUNG_OPACITY_SITES:
            found["Lung Opacity"] = 1
        elif head == "lung" and "opacity" in quals:
            found["Lung Opacity"] = 1
        elif head in ("nodule", "mass") and not quals & NON_LUNG_NODULE_SITES:
            found["Lung Lesion"] = 1
        elif head == "cavitation" and "lung" in quals:
            found["Lung Lesion"] = 1
        elif head in ("thickening", "cicatrix") and "pleura" in quals:
            found["Pleural Other"] = 1
    return found
