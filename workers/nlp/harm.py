"""How much a wrong statement about each observation could hurt a patient.

``harm_of(observation, status)`` reads one table. The harm of a statement is the harm of it
being wrong: a "present" (or "uncertain") statement that is wrong is a hallucinated finding,
an "absent" statement that is wrong hides a real one. A hedged ("uncertain") statement is one
level below the plain affirmation. The table is rendered into docs/harm-levels.md by
``render_harm_table()`` (python -m workers.nlp.harm), and a test checks that the document and
this code agree.
"""
from __future__ import annotations

from workers.types import Harm

N, VL, L, M, H = Harm.NONE, Harm.VERY_LOW, Harm.LOW, Harm.MEDIUM, Harm.HIGH

# observation -> (harm if a "present" statement is wrong, harm if an "absent" one is wrong, why)
HARM_TABLE: dict[str, tuple[Harm, Harm, str]] = {
    "pneumothorax": (H, H, "a false one leads to a chest tube, a missed one can tension"),
    "hydropneumothorax": (H, H, "as pneumothorax"),
    "device malposition": (H, H, "a misplaced tube or line is used for ventilation or infusion"),
    "pneumoperitoneum": (H, H, "free air means a perforated viscus until proven otherwise"),
    "pneumomediastinum": (H, H, "airway or oesophageal rupture"),
    "mediastinal shift": (H, H, "tension or massive collapse"),
    "enlarged cardiomediastinum": (M, H, "a missed widened mediastinum can be an aortic injury"),
    "aortic aneurysm": (M, H, "a missed aneurysm can rupture"),
    "mass": (M, H, "a missed mass delays a cancer diagnosis; a false one triggers a CT"),
    "lesion": (M, H, "as mass"),
    "nodule": (M, M, "follow-up imaging either way"),
    "pneumonia": (M, H, "antibiotics are given or withheld"),
    "consolidation": (M, M, "usually read as infection"),
    "tuberculosis": (M, M, "isolation and treatment decisions"),
    "edema": (M, M, "diuretics are given or withheld"),
    "pleural effusion": (M, M, "may prompt or skip a thoracentesis"),
    "opacity": (M, M, "drives the differential of infection, edema, mass"),
    "pericardial effusion": (M, M, "tamponade risk when large"),
    "fracture": (M, M, "pain management, abuse and trauma work-up"),
    "bone lesion": (M, M, "possible metastasis"),
    "dislocation": (M, M, "needs reduction"),
    "dilated bowel": (M, M, "possible obstruction"),
    "subcutaneous emphysema": (L, M, "sign of air leak"),
    "cardiomegaly": (L, L, "chronic; rarely changes acute care"),
    "atelectasis": (L, L, "common, rarely treated"),
    "lymphadenopathy": (L, M, "possible malignancy or infection"),
    "hilar enlargement": (L, M, "adenopathy or vascular enlargement"),
    "pulmonary artery enlargement": (L, L, "suggests pulmonary hypertension"),
    "vascular congestion": (L, L, "early heart failure"),
    "costophrenic angle blunting": (L, L, "small effusion or scarring"),
    "pleural thickening": (L, L, "usually old"),
    "interstitial markings": (L, L, "chronic lung disease"),
    "fibrosis": (L, L, "chronic lung disease"),
    "bronchiectasis": (L, L, "chronic"),
    "emphysema": (L, L, "chronic"),
    "hyperinflation": (VL, VL, "chronic"),
    "hypoinflation": (VL, VL, "technique or effort"),
    "volume loss": (L, L, "collapse or scarring"),
    "cyst": (L, L, "usually benign"),
    "sarcoidosis": (L, L, "chronic"),
    "elevated hemidiaphragm": (L, L, "phrenic palsy or volume loss"),
    "hernia": (VL, VL, "incidental"),
    "compression deformity": (L, L, "osteoporotic or old"),
    "foreign body": (L, L, "usually known"),
    "goiter": (L, L, "incidental"),
    "soft tissue abnormality": (L, L, "incidental"),
    "endotracheal tube": (L, M, "presence matters to position checks"),
    "tracheostomy tube": (L, L, "known to the team"),
    "enteric tube": (L, M, "a feeding tube must be checked before use"),
    "chest tube": (L, L, "known to the team"),
    "central venous catheter": (L, L, "known to the team"),
    "pacemaker": (L, L, "known to the team"),
    "support device": (L, L, "known to the team"),
    "prosthetic valve": (VL, VL, "known history"),
    "stent": (VL, VL, "known history"),
    "sternotomy wires": (VL, VL, "known history"),
    "surgical clips": (VL, VL, "known history"),
    "orthopedic hardware": (VL, VL, "known history"),
    "breast implants": (VL, VL, "known history"),
    "postsurgical changes": (VL, VL, "known history"),
    "monitoring leads": (VL, VL, "external, removed after the exam"),
    "granuloma": (VL, VL, "healed infection"),
    "calcified lymph node": (VL, VL, "healed infection"),
    "scarring": (VL, VL, "old"),
    "calcification": (VL, VL, "incidental"),
    "atherosclerosis": (VL, VL, "incidental"),
    "tortuous aorta": (VL, VL, "incidental, age-related"),
    "degenerative change": (VL, VL, "age-related"),
    "scoliosis": (VL, VL, "chronic"),
    "kyphosis": (VL, VL, "chronic"),
    "osteopenia": (VL, VL, "chronic"),
    "rib abnormality": (VL, VL, "congenital variant"),
    "deformity": (VL, L, "usually old trauma or surgery"),
    "nipple shadow": (N, N, "a look-alike, not a finding"),
    "azygos fissure": (N, N, "a normal variant"),
}

# An observation the table does not know (free text from a model) is treated as low harm
# until a person reviews it.
UNKNOWN_HARM = L


def _lower(h: Harm) -> Harm:
    return Harm.VERY_LOW if h.rank <= Harm.LOW.rank and h != Harm.NONE else (
        Harm.NONE if h == Harm.NONE else list(Harm)[h.rank - 1])


def harm_of(observation: str, status: str) -> Harm:
    """The harm of ``observation`` with ``status`` ("present", "absent", "uncertain") being
    wrong. Unknown observations get ``UNKNOWN_HARM``."""
    row = HARM_TABLE.get(observation)
    if row is None:
        return UNKNOWN_HARM
    present, absent, _ = row
    if status == "absent":
        return absent
    if status == "uncertain":
        return _lower(present)
    return present


def render_harm_table() -> str:
    """The Markdown table of docs/harm-levels.md, most harmful first."""
    rows = sorted(HARM_TABLE.items(), key=lambda kv: (-max(kv[1][0].rank, kv[1][1].rank),
                                                       -kv[1][0].rank, kv[0]))
    lines = ["| observation | wrongly stated present | wrongly stated uncertain | "
             "wrongly stated absent (missed) | why |",
             "|---|---|---|---|---|"]
    for name, (present, absent, why) in rows:
        lines.append(f"| {name} | {present.value} | {harm_of(name, 'uncertain').value} | "
                     f"{absent.value} | {why} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render_harm_table(), end="")
