"""What a chest radiograph can show, so that out-of-domain claims stand out.

A chest radiograph shows shadows of the chest: the lungs, pleura, heart and mediastinum, bones,
soft tissues and devices. It cannot show a gastric ulcer, a migraine or cirrhosis. Two
mechanisms decide:

* known radiographic vocabulary: every observation of the engine's vocabulary (with all its
  surface forms), chest anatomy and radiographic descriptors;
* disease-like words outside it: words built like disease names (-itis, -osis, -oma, -emia,
  -pathy, -algia, -iasis, -megaly, -plasia, ...), organs and sites outside the chest
  ("gastric", "hepatic", "renal", "cerebral", ...) and conditions that are diagnosed clinically
  (symptoms, metabolic and psychiatric disorders).

A few thoracic diagnoses can be suggested by a radiograph but not shown by it (fungal and
occupational lung diseases, lymphoma): they are "borderline".
"""
from __future__ import annotations

import re
from functools import lru_cache

from workers.nlp.vocabulary import CONCEPT_BY_NAME, CONCEPT_RE, CONCEPT_BY_GROUP

RADIOGRAPHIC = "radiographic"
BORDERLINE = "borderline"
OUT_OF_DOMAIN = "out_of_domain"
UNKNOWN = "unknown"

# Chest anatomy and radiographic descriptors (words a radiograph report uses for what it sees).
_ANATOMY = (
    "lung", "lungs", "lobe", "lobes", "lobar", "segment", "segmental", "subsegmental", "lingula",
    "lingular", "apex", "apices", "apical", "base", "bases", "basilar", "bibasilar", "hilum",
    "hila", "hilar", "perihilar", "parahilar", "pleura", "pleural", "fissure", "fissures",
    "costophrenic", "diaphragm", "hemidiaphragm", "hemidiaphragms", "heart", "cardiac",
    "cardiomediastinal", "mediastinum", "mediastinal", "aorta", "aortic", "trachea", "tracheal",
    "carina", "bronchus", "bronchi", "bronchial", "airway", "airways", "vasculature", "vascular",
    "vascularity", "pulmonary", "parenchyma", "parenchymal", "interstitium", "interstitial",
    "alveolar", "airspace", "rib", "ribs", "spine", "spinal", "vertebra", "vertebrae",
    "vertebral", "clavicle", "clavicles", "scapula", "sternum", "sternal", "shoulder", "humerus",
    "humeral", "thoracic", "thorax", "chest", "osseous", "bony", "bone", "bones", "soft",
    "tissue", "tissues", "svc", "atrium", "ventricle", "pericardial", "retrocardiac",
    "subpleural", "paratracheal", "azygos", "esophagus", "stomach", "upper", "lower", "middle",
    "left", "right", "bilateral", "silhouette", "contour", "contours", "size", "volume",
    "volumes", "inspiration", "markings", "lucency", "lucent", "shadow", "shadows", "opacity",
    "density", "line", "lines", "tube", "tip", "view", "views", "frontal", "lateral", "pa", "ap",
    "film", "radiograph", "exam", "examination", "study", "acute", "chronic", "cardiopulmonary",
    "abnormality", "disease", "process", "finding", "findings",
)
ANATOMY_RE = re.compile(r"\b(?:" + "|".join(sorted(_ANATOMY, key=len, reverse=True)) + r")\b")

# Diagnoses a radiograph can suggest but not prove.
_BORDERLINE = frozenset({
    "aspergillosis", "aspergilloma", "histoplasmosis", "coccidioidomycosis", "blastomycosis",
    "cryptococcosis", "nocardiosis", "actinomycosis", "mucormycosis", "silicosis", "asbestosis",
    "anthracosis", "berylliosis", "pneumoconiosis", "siderosis", "lymphoma", "lymphomas",
    "hamartoma", "hamartomas", "hematoma", "hematomas", "haematoma", "mesothelioma", "thymoma",
    "teratoma", "neurofibroma", "lipoma",
    "schwannoma", "lymphangioleiomyomatosis", "amyloidosis", "pleuritis", "pericarditis",
    "mediastinitis", "vasculitis", "alveolitis", "bronchiolitis", "myocarditis",
    "cardiomyopathy", "endocarditis", "osteomyelitis", "tracheitis", "empyema", "septic",
    "sepsis", "embolism", "embolus", "emboli", "infarct", "infarction", "asthma", "pleurisy",
    "cystic fibrosis", "hepatomegaly", "splenomegaly", "achalasia", "myeloma", "hypertrophy",
    "organomegaly", "cholelithiasis", "tendinitis", "tendonitis", "esophageal", "esophagus",
    "bursitis", "stricture",
})

# Radiographic signs and bone descriptors shaped like disease names ("oligemia",
# "hyperostosis") that a film does show.
_RADIOGRAPHIC_WORDS = frozenset({
    "sclerosis", "sclerotic", "hyperostosis", "osteodystrophy", "osteochondroma",
    "osteochondromas", "oligemia", "enostosis", "exostosis", "exostoses", "osteonecrosis",
    "atelectasis", "bronchiectasis", "lymphangitic", "calcinosis", "ankylosis", "pectus",
})
# "X's disease" / "X's syndrome": an eponym tells nothing about the chest on its own.
_EPONYM_RE = re.compile(r"\b[A-Z][a-z]+(?:'s|s') (?:disease|syndrome)\b")

# Disease-like word shapes. "-oma" needs a consonant before it so "stoma", "coma" stay apart.
_DISEASE_SHAPE_RE = re.compile(
    r"\b[a-z]{3,}(?:itis|itides|osis|[^aeiou\s]omas?|omata|emia|aemia|pathy|pathies|algia|"
    r"iasis|megaly|plasia|trophy|plegia|paresis|rrhea|rrhoea|ectasia|cele|uria|penia|malacia|"
    r"pnea|pnoea|rrhagia)\b")

# Sites outside the chest: a claim about them is not a chest radiograph finding.
# (The upper abdomen - bowel gas, stomach bubble, liver edge - and the skin folds that cross
# the film do show on a chest radiograph, so they are not listed.)
_NON_THORACIC_SITES = (
    "gastric", "duodenal", "duodenum", "hepatic", "renal", "kidney", "kidneys", "bladder",
    "ureteral", "urethral", "cerebral", "brain", "intracranial", "cranial", "cerebellar",
    "colonic", "colorectal", "rectal", "rectum", "anal", "anus", "perianal", "ileal", "jejunal",
    "intestinal", "appendiceal", "appendix", "celiac", "pancreatic", "pancreas", "ovarian",
    "ovary", "uterine", "uterus", "endometrial", "cervical cancer", "vaginal", "prostatic",
    "prostate", "testicular", "scrotal", "penile", "pharyngeal", "pharynx", "nasopharyngeal",
    "tonsillar", "laryngeal", "larynx", "vocal cord", "vocal cords", "sinus", "sinuses",
    "nasal", "oral", "dental", "tongue", "salivary", "parotid", "ocular", "retinal", "optic",
    "otic", "ear", "eye", "eyes", "dermal", "cutaneous", "knee", "hip", "ankle", "wrist",
    "elbow", "hand", "foot", "femoral", "tibial", "fibular", "pelvic", "pelvis", "gallbladder",
    "biliary", "adrenal", "thyroid cancer", "esophageal varices",
)
# "hand" in "the right-hand side" names a side, not a hand
_NON_THORACIC_RE = re.compile(r"\b(?:" + "|".join(sorted(_NON_THORACIC_SITES, key=len,
                                                          reverse=True)) + r")\b(?![- ]sided?\b)")

# Conditions diagnosed clinically or elsewhere (no shadow on a chest film).
_CLINICAL_ONLY = frozenset({
    "migraine", "headache", "ulcer", "ulcers", "diabetes", "hypertension", "stroke", "dementia",
    "anxiety", "seizure", "seizures", "epilepsy", "fever", "cough", "pain",
    "nausea", "vomiting", "vertigo", "gout", "glaucoma", "cataract", "cataracts", "obesity",
    "insomnia", "fatigue", "malaise", "dizziness", "syncope", "hypothyroidism",
    "hyperthyroidism", "hyperlipidemia", "cholesterol", "influenza", "flu", "covid",
    "measles", "mumps", "hiv", "aids", "malaria", "allergy", "allergies", "rash", "eczema",
    "psoriasis", "acne", "schizophrenia", "autism", "parkinson", "alzheimer", "tinnitus",
    "hemorrhoids", "constipation", "diarrhea", "jaundice", "ascites",
    "varices", "dysphagia", "hemophilia", "reflux", "heartburn", "snoring", "incontinence",
    "infertility", "apnea", "apnoea", "syndrome", "syndromes", "disorder", "disorders",
    "dysfunction",
    "insufficiency", "intolerance", "addiction",
})


# Words shaped like disease names that are not ("diagnosis").
_NOT_DISEASES = frozenset({"diagnosis", "diagnoses", "prognosis", "osmosis", "hypothesis",
                           "thesis", "emphasis"})


def _vocabulary_spans(lower: str) -> list[tuple[int, int]]:
    return [m.span() for m in CONCEPT_RE.finditer(lower)
            if CONCEPT_BY_NAME.get(CONCEPT_BY_GROUP[m.lastgroup].name)]


def _inside(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(a <= span[0] and span[1] <= b for a, b in spans)


@lru_cache(maxsize=8192)
def _classify_terms(text: str) -> tuple[tuple[str, str], ...]:
    """(term, status) for every disease-like or site term of ``text`` that the vocabulary
    does not cover."""
    lower = text.lower()
    known = _vocabulary_spans(lower)
    found: list[tuple[str, str]] = []
    seen = set()

    def add(span, status):
        term = text[span[0]:span[1]]
        if term.lower() not in seen and not _inside(span, known):
            seen.add(term.lower())
            found.append((term, status))

    for m in _NON_THORACIC_RE.finditer(lower):
        add(m.span(), OUT_OF_DOMAIN)
    for m in _EPONYM_RE.finditer(text):
        add(m.span(), BORDERLINE)
    for m in re.finditer(r"\b[a-z][a-z-]+\b", lower):
        word = m.group()
        if word in _RADIOGRAPHIC_WORDS:
            continue
        if word in _BORDERLINE:
            add(m.span(), BORDERLINE)
        elif word in _CLINICAL_ONLY:
            add(m.span(), OUT_OF_DOMAIN)
        elif _DISEASE_SHAPE_RE.fullmatch(word) and word not in _NOT_DISEASES:
            add(m.span(), OUT_OF_DOMAIN)
    return tuple(found)


def out_of_domain_terms(text: str, *, strict: bool = False) -> list[str]:
    """Disease-like or site words of ``text`` that a chest radiograph cannot show (with
    ``strict``, also the borderline ones such as "aspergillosis")."""
    return [t for t, status in _classify_terms(text)
            if status == OUT_OF_DOMAIN or (strict and status == BORDERLINE)]


def radiographic_status(text: str) -> str:
    """"out_of_domain" if any term is, else "borderline" if any term is, else "radiographic"
    when the text names a vocabulary observation or chest anatomy, else "unknown"."""
    statuses = {status for _, status in _classify_terms(text)}
    if OUT_OF_DOMAIN in statuses:
        return OUT_OF_DOMAIN
    if BORDERLINE in statuses:
        return BORDERLINE
    lower = text.lower()
    if CONCEPT_RE.search(lower) or ANATOMY_RE.search(lower):
        return RADIOGRAPHIC
    return UNKNOWN


def is_radiographic(text: str, *, strict: bool = False) -> bool:
    """Whether ``text`` (an observation name or a phrase) is something a chest radiograph can
    show: it names no out-of-domain term (with ``strict``, no borderline one either)."""
    status = radiographic_status(text)
    if status == OUT_OF_DOMAIN:
        return False
    if status == BORDERLINE:
        return not strict
    return True
