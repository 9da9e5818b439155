"""Generated within-report consistency cases: the statement reader stress-tested (issue 31).

Ours (written by the project's engineers; no case of the shared dev sets read). It builds
single reports systematically, seeded, from the engine's own knowledge (the hierarchy file's
``summary`` and ``is_a`` rows: which normal statement or broad denial a finding contradicts)
and from generic radiology surface variation: lexicon forms and plurals of a finding, size and
extent words, measured sizes, lobes, zones and sides, verbs and word orders ("there is",
"is noted", "demonstrates", "redemonstrated", a bare noun phrase), readings ("concerning for",
"compatible with"), the normal statements in their usual forms, temporal words in varied
syntax, counts in words and digits, in IU- and MIMIC-style FINDINGS/IMPRESSION templates.
Clean controls are built the same way (findings reports write beside normal statements, the
same change or count said twice, "otherwise clear").

Each case is in the format of ../shared/bench/consistency_within.jsonl, plus "form": the
attributes it was rendered with, so that misses can be grouped by the form that failed.

    .venv/bin/python bench/consistency_stress.py --write    # -> bench/consistency_generated.jsonl
    .venv/bin/python bench/consistency_stress.py --misses AUDIT_OUTPUT [--list]

``--misses`` scores an ``audit_reports`` output of the generated file and prints, for every
attribute value, how many of its cases missed a must-flag sentence or flagged a clean one.
Prints figures; asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

OUT = Path(__file__).resolve().parent / "consistency_generated.jsonl"
SEED = 31

# ---- findings: (hierarchy node, singular forms, plural forms, takes a lung place) ------------
LUNG_FINDINGS = {
    "consolidation": (["consolidation", "airspace consolidation", "consolidative opacity",
                       "focal consolidation", "dense consolidation"],
                      ["consolidations", "consolidative opacities"]),
    "pneumonia": (["pneumonia", "bronchopneumonia", "aspiration pneumonia",
                   "lobar pneumonia"], ["pneumonias"]),
    "airspace opacity": (["airspace opacity", "airspace disease", "ground-glass opacity",
                          "opacity", "alveolar opacity", "infiltrate", "opacification"],
                         ["airspace opacities", "opacities", "infiltrates",
                          "ground-glass opacities"]),
    "mass": (["mass", "spiculated mass", "mass lesion", "lobulated mass"],
             ["masses"]),
    "lobar collapse": (["collapse", "complete atelectasis"], []),
}
LUNG_PLACES = ["in the {side} lower lobe", "in the {side} upper lobe", "at the {side} lung base",
               "at the {side} base", "in the {side} mid lung", "in the {side} perihilar region",
               "in the {side} lung apex", "{side} lower lobe", "{side} basilar",
               "{side} upper lobe", "in the right middle lobe", "in the lingula",
               "retrocardiac", "bibasilar", "bilateral", "in both lower lobes"]
EXTENT = ["small", "moderate", "large", "patchy", "subtle", "focal", "mild", "dense",
          "ill-defined", "extensive", "", "", ""]
SIZES = ["2 cm", "2.5 cm", "3.1 x 2.4 cm", "18 mm", "4 cm"]
SIDES = ["left", "right"]

VERB_FRAMES = [  # {np} is the whole noun phrase (with its place), {NP} the same capitalised
    ("there_is", "There is {a} {np}."),
    ("bare", "{NP}."),
    ("is_noted", "{NP} is noted."),
    ("is_seen", "{NP} is seen."),
    ("is_present", "{NP} is present."),
    ("is_identified", "{NP} is identified."),
    ("demonstrates", "The radiograph demonstrates {a} {np}."),
    ("redemonstrated", "Redemonstrated {np}."),
    ("again_seen", "{NP} is again seen."),
    ("concerning_for", "{NP}, concerning for pneumonia."),
    ("suspicious_for", "{NP} suspicious for infection."),
    ("compatible_with", "Findings compatible with {np}."),
    ("consistent_with", "Findings are consistent with {np}."),
    ("evidence_of", "There is evidence of {np}."),
    ("with_clause", "Heart size is normal with {np}."),
    ("findings_of", "Findings of {np}."),
]
PLURAL_FRAMES = [("there_are", "There are {np}."), ("bare", "{NP}."),
                 ("are_noted", "{NP} are noted."), ("are_seen", "{NP} are seen."),
                 ("are_present", "{NP} are present."), ("redemonstrated", "Redemonstrated {np}.")]

# ---- the normal statements and broad denials, by the hierarchy node they are ------------------
DENIALS = {
    "clear lungs": ["The lungs are clear.", "Lungs are clear.", "Lungs clear.", "Clear lungs.",
                    "The lungs are clear bilaterally.", "Both lungs are clear.",
                    "The lung fields are clear.", "The lungs appear clear.",
                    "Lungs are clear bilaterally.", "The lungs are well expanded and clear.",
                    "The lungs remain clear.", "Clear lungs bilaterally."],
    "no acute cardiopulmonary abnormality": [
        "No acute cardiopulmonary process.", "No acute cardiopulmonary abnormality.",
        "No acute cardiopulmonary disease.", "No acute intrathoracic process.",
        "No acute cardiopulmonary findings.", "No evidence of acute cardiopulmonary disease.",
        "No radiographic evidence of acute cardiopulmonary disease.",
        "Negative chest radiograph.", "No acute disease.", "No acute pulmonary disease.",
        "No acute cardiopulmonary abnormalities identified.", "Normal chest radiograph.",
        "No active cardiopulmonary disease."],
    "no acute osseous abnormality": [
        "No acute osseous abnormality.", "No acute bony abnormality.",
        "No acute osseous abnormalities.", "The osseous structures are intact.",
        "Bony structures are intact.", "No acute skeletal abnormality.",
        "The visualized osseous structures are unremarkable.", "No acute bony injury."],
    "clear pleural spaces": ["No pleural abnormality.", "The costophrenic angles are clear.",
                             "Costophrenic angles are sharp.", "The pleural spaces are clear.",
                             "Pleural spaces are unremarkable."],
    "normal heart size": ["Heart size is normal.", "Normal heart size.",
                          "The cardiac silhouette is normal in size.",
                          "The heart is not enlarged.", "Cardiac size is within normal limits."],
    "normal pulmonary vasculature": ["Pulmonary vasculature is normal.",
                                     "Normal pulmonary vascularity.",
                                     "The pulmonary vasculature is within normal limits."],
    "airspace opacity": ["No focal airspace disease.", "No airspace disease.",
                         "No focal airspace opacity.", "No airspace opacities.",
                         "There is no focal airspace disease.",
                         "No focal airspace consolidation."],
    "lesion": ["No focal lung lesion.", "No focal pulmonary lesion.",
               "No suspicious pulmonary lesion.", "No lung lesion is seen.",
               "No discrete pulmonary lesion."],
}
# what each denial rules out, as the hierarchy file's summary and is_a rows say (only the
# findings this generator renders)
DENIED = {
    "clear lungs": ["consolidation", "pneumonia", "airspace opacity", "mass", "lobar collapse",
                    "edema"],
    "no acute cardiopulmonary abnormality": ["consolidation", "pneumonia", "airspace opacity",
                                             "mass", "lobar collapse", "edema",
                                             "pleural effusion", "pneumothorax"],
    "no acute osseous abnormality": ["fracture"],
    "clear pleural spaces": ["pleural effusion", "pneumothorax"],
    "normal heart size": ["cardiomegaly"],
    "normal pulmonary vasculature": ["edema", "vascular congestion"],
    "airspace opacity": ["consolidation", "pneumonia"],
    "lesion": ["mass", "nodule"],
}
OTHER_FINDINGS = {  # findings outside the lung places: their own renderings
    "pleural effusion": ["{extent} {side} pleural effusion", "{extent} {side} effusion",
                         "{side} pleural effusion", "layering {side} pleural effusion",
                         "{extent} bilateral pleural effusions", "bilateral effusions",
                         "{side} pleural fluid", "{extent} {side} hydrothorax"],
    "pneumothorax": ["{extent} {side} pneumothorax", "{side} apical pneumothorax",
                     "{side} pneumothorax", "tiny {side} apical pneumothorax",
                     "{side}-sided pneumothorax"],
    "fracture": ["fracture of the {side} {ordinal} rib", "{side} {ordinal} rib fracture",
                 "acute fracture of the {side} clavicle", "displaced {side} rib fractures",
                 "nondisplaced fracture of the {side} {ordinal} rib",
                 "acute {side} {ordinal} rib fracture", "fractures of the {side} {ordinal} "
                 "and {ordinal2} ribs", "{side} clavicular fracture"],
    "cardiomegaly": ["cardiomegaly", "mild cardiomegaly", "moderate cardiomegaly",
                     "enlarged cardiac silhouette", "enlargement of the cardiac silhouette"],
    "edema": ["pulmonary edema", "mild pulmonary edema", "interstitial edema",
              "moderate pulmonary edema", "mild interstitial pulmonary edema"],
    "vascular congestion": ["pulmonary vascular congestion", "mild vascular congestion",
                            "vascular congestion"],
    "nodule": ["{size} nodule in the {side} upper lobe", "{size} {side} upper lobe nodule",
               "{size} pulmonary nodule in the {side} lower lobe",
               "spiculated {size} nodule in the {side} upper lobe",
               "{side} upper lobe nodule measuring {size}"],
}
ORDINALS = ["fourth", "fifth", "sixth", "seventh", "8th", "9th"]

FILLERS = {  # sentences that speak of none of the findings above: must not flag
    "heart": "The cardiomediastinal silhouette is within normal limits.",
    "ptx": "No pneumothorax.",
    "bones": "No acute osseous abnormality.",
    "effusion": "No pleural effusion.",
    "mediastinum": "Mediastinal contours are unremarkable.",
}
FILLER_OF = {"cardiomegaly": "heart", "normal heart size": "heart", "pneumothorax": "ptx",
             "clear pleural spaces": "effusion", "pleural effusion": "effusion",
             "fracture": "bones", "no acute osseous abnormality": "bones"}


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _article(np: str) -> str:
    return "an" if np[:1].lower() in "aeiou" else "a"


def _plural(noun: str) -> str:
    return noun + ("es" if noun.endswith("s") else "s")


def _tidy(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def report(findings: list[str], impression: list[str], style: str) -> str:
    body, imp = " ".join(findings), " ".join(impression)
    if style == "iu":
        return f"FINDINGS: {body}\nIMPRESSION: {imp}"
    numbered = "\n".join(f"{k}. {s}" for k, s in enumerate(impression, 1))
    return ("FINAL REPORT\nEXAMINATION: CHEST (PA AND LAT)\n\nINDICATION: ___ with cough.\n\n"
            f"COMPARISON: ___\n\nFINDINGS:\n\n{body}\n\nIMPRESSION:\n\n{numbered}")


def _fillers(rng: random.Random, *concepts: str, k: int = 2) -> list[str]:
    banned = {FILLER_OF.get(c) for c in concepts}
    names = [n for n in FILLERS if n not in banned]
    return [FILLERS[n] for n in rng.sample(names, k)]


# ---- rendering one finding ------------------------------------------------------------------

def lung_phrase(rng: random.Random, concept: str, plural: bool) -> tuple[str, dict]:
    singular, plurals = LUNG_FINDINGS[concept]
    plural = plural and bool(plurals)
    noun = rng.choice(plurals if plural else singular)
    side = rng.choice(SIDES)
    place = rng.choice(LUNG_PLACES).format(side=side)
    extent = "" if concept in ("lobar collapse", "mass") else rng.choice(EXTENT)
    if extent and extent in noun:
        extent = ""
    size = rng.choice(SIZES) if concept == "mass" and rng.random() < 0.6 else ""
    if concept == "lobar collapse":
        lobe = rng.choice([f"{side} lower lobe", f"{side} upper lobe", "right middle lobe"])
        np = rng.choice([f"{noun} of the {lobe}", f"{lobe} {noun}"])
        form = {"noun": noun, "place": "lobe"}
    elif place.startswith(("in ", "at ")):
        np = f"{size} {extent} {noun} {place}"
        form = {"noun": noun, "place": re.sub(r"left|right", "SIDE", place), "extent": extent,
                "size": bool(size), "order": "place_after"}
    else:
        np = f"{size} {extent} {place} {noun}"
        form = {"noun": noun, "place": re.sub(r"left|right", "SIDE", place), "extent": extent,
                "size": bool(size), "order": "place_before"}
    form["plural"] = plural
    return _tidy(np), form


def other_phrase(rng: random.Random, concept: str) -> tuple[str, dict]:
    template = rng.choice(OTHER_FINDINGS[concept])
    first, second = rng.sample(ORDINALS[:4], 2)
    np = template.format(side=rng.choice(SIDES), extent=rng.choice(["small", "moderate",
                                                                      "large", "trace", ""]),
                         ordinal=first, ordinal2=second, size=rng.choice(SIZES))
    return _tidy(np), {"noun": re.sub(r"\{(side|extent|ordinal2?|size)\}", "", template).strip()}


def finding_sentence(rng: random.Random, concept: str) -> tuple[str, str, dict]:
    """(sentence, the finding's noun phrase, form)."""
    if concept in LUNG_FINDINGS:
        plural = rng.random() < 0.3
        np, form = lung_phrase(rng, concept, plural)
        frames = PLURAL_FRAMES if form["plural"] else VERB_FRAMES
    else:
        np, form = other_phrase(rng, concept)
        plural = np.endswith("s") and not np.endswith(("sis", "ss", "rax"))
        frames = PLURAL_FRAMES if plural else VERB_FRAMES
    frame, template = rng.choice(frames)
    if concept == "pneumonia" and frame in ("concerning_for", "suspicious_for"):
        frame, template = "is_noted", "{NP} is noted."
    sentence = template.format(a=_article(np), np=np, NP=_cap(np))
    return sentence, np, {**form, "frame": frame}


# ---- the kinds ----------------------------------------------------------------------------------

def hierarchy_cases(rng: random.Random, n: int) -> list[dict]:
    pairs = [(d, c) for d, concepts in DENIED.items() for c in concepts]
    out = []
    for k in range(n):
        denial_node, concept = pairs[k % len(pairs)]
        denial = rng.choice(DENIALS[denial_node])
        if concept == "pneumothorax" and "costophrenic" in denial.lower():
            denial = "The pleural spaces are clear."  # an angle says nothing of the apex
        sentence, np, form = finding_sentence(rng, concept)
        style = rng.choice(["iu", "mimic"])
        fill = _fillers(rng, concept, denial_node)
        where = rng.choice(["finding_then_denial", "denial_then_finding", "both_findings"])
        if where == "finding_then_denial":
            rep = report([sentence, *fill], [denial], style)
        elif where == "denial_then_finding":
            rep = report([denial, *fill], [sentence], style)
        else:
            rep = report([sentence, fill[0], denial], [fill[1]], style)
        out.append(case(f"gen-h{k:03d}", rep, "hierarchy", [sentence, denial],
                        re.escape(np), fill,
                        {**form, "concept": concept, "denial": denial, "denial_node": denial_node,
                         "where": where, "style": style}))
    return out


TEMPORAL_FORMS = {
    "new": ["new {np}", "{NP} is new.", "interval development of {np}",
            "interval appearance of {np}", "{NP}, new since the prior study.",
            "newly seen {np}", "there is a new {np}", "{NP} has developed.",
            "{NP}, not present on the prior exam.", "{NP} is newly apparent."],
    "unchanged": ["{NP}, unchanged.", "unchanged {np}", "stable {np}", "{NP} is stable.",
                  "{NP} is unchanged from prior.", "{NP} without significant change.",
                  "no significant interval change in {np}", "{NP} appears similar to prior.",
                  "{NP} is not significantly changed.", "{NP}, stable compared to prior."],
    "persists": ["persistent {np}", "{NP} persists.", "{NP} is again seen.", "redemonstrated {np}",
                 "{NP} remains.", "continued {np}", "{NP} is still present."],
    "gone": ["{NP} has resolved.", "interval resolution of {np}", "resolved {np}",
             "resolution of the {np}", "{NP} is no longer seen.", "{NP} has cleared.",
             "the previously seen {np} has resolved"],
    "worse": ["increasing {np}", "{NP} has increased.", "worsening {np}", "{NP} is worse.",
              "{NP} has increased in size.", "enlarging {np}", "progression of {np}",
              "{NP}, increased from prior.", "interval increase in {np}",
              "{NP} has worsened."],
    "better": ["decreasing {np}", "{NP} has decreased.", "improving {np}", "{NP} is improved.",
               "interval decrease in {np}", "{NP} is smaller.", "{NP}, decreased from prior.",
               "{NP} has improved."],
}
# "improving" says it is still there: against "resolved" it clashes
TEMPORAL_CLASHES = [("new", "unchanged"), ("new", "persists"), ("gone", "unchanged"),
                    ("gone", "persists"), ("gone", "worse"), ("worse", "better"),
                    ("unchanged", "worse"), ("unchanged", "better"), ("gone", "new"),
                    ("gone", "better")]
TEMPORAL_AGREE = [("new", "new"), ("unchanged", "unchanged"), ("unchanged", "persists"),
                  ("worse", "worse"), ("better", "better"), ("gone", "gone"),
                  ("persists", "persists")]
# findings with a side, as two sentences of one report name them
TEMPORAL_FINDINGS = ["{side} pleural effusion", "{side} effusion", "{side} pneumothorax",
                     "{side} lower lobe consolidation", "consolidation in the {side} lower lobe",
                     "{side} basilar opacity", "opacity at the {side} base",
                     "{side} lower lobe atelectasis", "{side} upper lobe nodule",
                     "pulmonary edema", "{side} apical pneumothorax",
                     "{side} perihilar opacity"]


def _temporal_sentence(rng: random.Random, change: str, np: str, extent: str) -> tuple[str, str]:
    template = rng.choice(TEMPORAL_FORMS[change])
    full = _tidy(f"{extent} {np}")
    text = template.format(np=full, NP=_cap(full))
    text = _cap(text if text.endswith(".") else text + ".")
    return text, template


def temporal_cases(rng: random.Random, n: int, clean: bool) -> list[dict]:
    out = []
    for k in range(n):
        a, b = rng.choice(TEMPORAL_AGREE if clean else TEMPORAL_CLASHES)
        if rng.random() < 0.5:
            a, b = b, a
        np = rng.choice(TEMPORAL_FINDINGS).format(side=rng.choice(SIDES))
        first, t1 = _temporal_sentence(rng, a, np, rng.choice(["small", "", "moderate"]))
        second, t2 = _temporal_sentence(rng, b, np, "")
        if first == second:
            continue
        style = rng.choice(["iu", "mimic"])
        fill = _fillers(rng, "pneumothorax" if "pneumothorax" in np else "pleural effusion")
        rep = report([first, *fill], [second], style)
        cid = f"gen-{'ct' if clean else 't'}{k:03d}"
        form = {"changes": f"{a}/{b}", "first": t1, "second": t2, "finding": np, "style": style}
        if clean:
            out.append(case(cid, rep, "clean", [], None, [first, second, *fill], form))
        else:
            out.append(case(cid, rep, "temporal", [first, second], None, fill, form))
    return out


COUNT_MANY = ["two {ns}", "2 {ns}", "three {ns}", "3 {ns}", "multiple {ns}", "several {ns}",
              "numerous {ns}", "a few {ns}", "at least two {ns}", "innumerable {ns}"]
COUNT_ONE = ["a single {n}", "a solitary {n}", "one {n}", "solitary {n}", "single {n}",
             "an isolated {n}"]
# one count said two ways: must not flag
COUNT_AGREE = [("two {ns}", "2 {ns}"), ("three {ns}", "3 {ns}"),
               ("multiple {ns}", "several {ns}"),
               ("a single {n}", "solitary {n}"), ("one {n}", "a single {n}"),
               ("numerous {ns}", "multiple {ns}"), ("two {ns}", "two {ns}"),
               ("a solitary {n}", "single {n}")]
COUNT_NOUNS = ["nodule", "pulmonary nodule", "mass", "rib fracture"]


def count_cases(rng: random.Random, n: int, clean: bool) -> list[dict]:
    out = []
    for k in range(n):
        noun = rng.choice(COUNT_NOUNS)
        side = rng.choice(SIDES)
        place = "in the {side} lung" if "rib" not in noun else "on the {side}"
        place = place.format(side=side)
        if clean:
            m1, m2 = rng.choice(COUNT_AGREE)
        else:
            m1, m2 = rng.choice(COUNT_MANY), rng.choice(COUNT_ONE)
            if rng.random() < 0.5:
                m1, m2 = m2, m1
        np1 = f"{m1.format(n=noun, ns=_plural(noun))} {place}"
        np2 = f"{m2.format(n=noun, ns=_plural(noun))} {place}"
        frame1 = rng.choice(["There {be} {np}.", "{NP}.", "{NP} {be} seen.", "{NP} {be} noted."])
        frame2 = rng.choice(["{NP}.", "{NP} {be} again identified.", "There {be} {np}."])
        s1 = frame1.format(np=np1, NP=_cap(np1), be="are" if not m1.startswith(
            ("a ", "one", "single", "solitary", "an ")) else "is")
        s2 = frame2.format(np=np2, NP=_cap(np2), be="are" if not m2.startswith(
            ("a ", "one", "single", "solitary", "an ")) else "is")
        if s1 == s2:
            continue
        style = rng.choice(["iu", "mimic"])
        fill = _fillers(rng, "fracture" if "rib" in noun else "")
        rep = report([s1, *fill], [s2], style)
        form = {"counts": f"{m1}/{m2}", "noun": noun, "frames": f"{frame1}/{frame2}"}
        cid = f"gen-{'cc' if clean else 'c'}{k:03d}"
        if clean:
            out.append(case(cid, rep, "clean", [], None, [s1, s2, *fill], form))
        else:
            out.append(case(cid, rep, "count", [s1, s2], None, fill, form))
    return out


# findings reports write beside the normal statements they do not contradict
BESIDE = {
    "clear lungs": ["calcified granuloma in the {side} upper lobe", "{side} basilar atelectasis",
                    "mild emphysema", "biapical pleural thickening",
                    "linear atelectasis at the {side} base", "{side} apical scarring",
                    "calcified granulomas", "hyperinflated lungs consistent with emphysema",
                    "subsegmental atelectasis in the {side} lower lobe",
                    "calcified nodule in the {side} upper lobe consistent with old granuloma"],
    "no acute cardiopulmonary abnormality": ["mild cardiomegaly", "calcified granuloma",
                                             "degenerative changes of the thoracic spine",
                                             "mild {side} basilar atelectasis",
                                             "tortuous aorta", "emphysema",
                                             "aortic atherosclerotic calcification"],
    "no acute osseous abnormality": ["degenerative changes of the thoracic spine",
                                     "healed {side} rib fractures",
                                     "old healed fracture of the {side} clavicle",
                                     "mild thoracic scoliosis", "diffuse osteopenia",
                                     "multilevel degenerative disc disease",
                                     "chronic deformity of the {side} {ordinal} rib"],
}


def clean_beside_cases(rng: random.Random, n: int) -> list[dict]:
    out = []
    nodes = list(BESIDE)
    for k in range(n):
        node = nodes[k % len(nodes)]
        np = rng.choice(BESIDE[node]).format(side=rng.choice(SIDES), ordinal=rng.choice(ORDINALS))
        frame, template = rng.choice([f for f in VERB_FRAMES if f[0] in (
            "there_is", "bare", "is_noted", "is_seen", "redemonstrated")])
        if np.endswith("s") and not np.endswith(("sis", "ss")):
            frame, template = "there_are", "There are {np}."
        sentence = template.format(a=_article(np), np=np, NP=_cap(np))
        denial = rng.choice(DENIALS[node])
        style = rng.choice(["iu", "mimic"])
        fill = _fillers(rng, node, "cardiomegaly" if "cardio" in np else "")
        rep = report([sentence, *fill], [denial], style)
        out.append(case(f"gen-cb{k:03d}", rep, "clean", [], None, [sentence, denial, *fill],
                        {"beside": np, "denial": denial, "frame": frame, "style": style}))
    return out


def otherwise_clear_cases(rng: random.Random, n: int) -> list[dict]:
    out = []
    for k in range(n):
        concept = rng.choice(["consolidation", "airspace opacity", "pneumonia"])
        sentence, np, form = finding_sentence(rng, concept)
        denial = rng.choice(["The lungs are otherwise clear.", "Otherwise, the lungs are clear.",
                             "The remainder of the lungs is clear.",
                             "Lungs are otherwise clear."])
        style = rng.choice(["iu", "mimic"])
        rep = report([sentence, denial, FILLERS["ptx"]], [_cap(np) + "."], style)
        out.append(case(f"gen-co{k:03d}", rep, "clean", [], None, [denial, FILLERS["ptx"]],
                        {**form, "denial": denial, "style": style}))
    return out


# ---- second pass: changes inside longer clauses, tubes, counts said other ways, other summaries

LONG_TEMPORAL = {  # a change said inside a longer clause, the finding in the middle
    "new": ["Since the prior radiograph, there has been interval development of {a} {np}.",
            "Compared to the prior study, there is a new {np}.",
            "There is {a} {np} which was not seen previously.",
            "{NP} is new compared to the prior exam.",
            "In the interval, {a} {np} has developed."],
    "unchanged": ["Compared to the prior study, the {np} is unchanged.",
                  "The {np} is similar in size to the prior exam.",
                  "There is no interval change in the {np}.",
                  "The previously noted {np} is stable in appearance."],
    "gone": ["The previously seen {np} has resolved in the interval.",
             "Since the prior study, the {np} has resolved.",
             "There has been interval resolution of the {np}.",
             "The {np} seen on the prior study is no longer present."],
    "worse": ["Compared to the prior study, the {np} has increased in size.",
              "The {np} is larger than on the prior exam.",
              "There has been interval worsening of the {np}.",
              "The {np} is more prominent than previously."],
    "better": ["Compared to the prior study, the {np} has decreased in size.",
               "The {np} is smaller than on the prior exam.",
               "There has been interval improvement in the {np}.",
               "The {np} is less prominent than previously."],
}
TUBE_TEMPORAL = {
    "new": ["Interval placement of {a} {np}.", "{NP} has been placed.", "New {np}."],
    "unchanged": ["{NP} is unchanged in position.", "Unchanged {np}.", "Stable {np}."],
    "gone": ["Interval removal of the {np}.", "The {np} has been removed.",
             "{NP} has been removed in the interval."],
}
TUBES = ["endotracheal tube", "right internal jugular central venous catheter",
         "left chest tube", "nasogastric tube", "right PICC line"]


def long_temporal_cases(rng: random.Random, n: int) -> list[dict]:
    out = []
    for k in range(n):
        tube = rng.random() < 0.3
        forms = TUBE_TEMPORAL if tube else LONG_TEMPORAL
        # a tube removed and one placed may be two tubes: no clash
        pairs = [p for p in TEMPORAL_CLASHES if p[0] in forms and p[1] in forms
                 and not (tube and set(p) == {"gone", "new"})]
        a, b = rng.choice(pairs)
        if rng.random() < 0.5:
            a, b = b, a
        np = rng.choice(TUBES) if tube else rng.choice(TEMPORAL_FINDINGS).format(
            side=rng.choice(SIDES))
        t1, t2 = rng.choice(forms[a]), rng.choice(forms[b])
        first = t1.format(a=_article(np), np=np, NP=_cap(np))
        second = t2.format(a=_article(np), np=np, NP=_cap(np))
        style = rng.choice(["iu", "mimic"])
        fill = _fillers(rng, "pneumothorax" if "pneumothorax" in np else "pleural effusion")
        rep = report([first, *fill], [second], style)
        out.append(case(f"gen-lt{k:03d}", rep, "temporal", [first, second], None, fill,
                        {"changes": f"{a}/{b}", "first": t1, "second": t2, "tube": tube,
                         "style": style}))
    return out


COUNT_FORMS_MANY = ["{ns} ({k})", "{k} {ns}", "{ns}, {kw} in number", "{kw} {ns}",
                    "{kw} {side} lung {ns}", "{ns} measuring up to 9 mm", "{ns} in both lungs",
                    "a {n} in each lung", "a few {ns}", "bilateral {ns}"]
COUNT_FORMS_ONE = ["the {side} upper lobe {n} is solitary", "{a} {n} in the {side} upper lobe",
                   "single {side} upper lobe {n}", "a solitary {side} upper lobe {n}",
                   "an isolated {n} in the {side} upper lobe", "only one {n}"]
RIB_COUNTS = [("fractures of the {side} {r1} through {r2} ribs", "single {side} rib fracture"),
              ("{side} {r1}-{r2} rib fractures", "a solitary {side} rib fracture"),
              ("multiple {side} rib fractures", "isolated fracture of the {side} {r1} rib"),
              ("fractures of the {side} {r1} and {r2} ribs", "one {side} rib fracture")]
WORDS = {2: "two", 3: "three", 4: "four", 5: "five"}


def count_more_cases(rng: random.Random, n: int) -> list[dict]:
    out = []
    for k in range(n):
        side = rng.choice(SIDES)
        if rng.random() < 0.3:
            many, one = rng.choice(RIB_COUNTS)
            r1, r2 = rng.choice([("4th", "6th"), ("fifth", "seventh"), ("3rd", "5th")])
            m = many.format(side=side, r1=r1, r2=r2)
            o = one.format(side=side, r1=r1)
            form = {"counts": f"{many}/{one}", "noun": "rib"}
        else:
            noun = rng.choice(["nodule", "pulmonary nodule", "mass"])
            kk = rng.choice([2, 3, 4, 5])
            many, one = rng.choice(COUNT_FORMS_MANY), rng.choice(COUNT_FORMS_ONE)
            m = many.format(ns=_plural(noun), n=noun, k=kk, kw=WORDS[kk], side=side)
            o = one.format(n=noun, a=_article(noun), side=side)
            form = {"counts": f"{many}/{one}", "noun": noun}
        s1 = rng.choice(["There are {m}.", "{M}.", "{M} are noted."]).format(m=m, M=_cap(m))
        if not re.search(r"s\b|\(", m.split(" in ")[0]) or m.startswith("a "):
            s1 = f"There is {m}." if not m.startswith("a ") else f"{_cap(m)}."
        s2 = f"{_cap(o)}."
        style = rng.choice(["iu", "mimic"])
        fill = _fillers(rng, "fracture" if "rib" in m else "")
        first, second = (s1, s2) if rng.random() < 0.5 else (s2, s1)
        rep = report([first, *fill], [second], style)
        out.append(case(f"gen-cm{k:03d}", rep, "count", [first, second], None, fill,
                        {**form, "style": style}))
    return out


MORE_HIERARCHY = [  # (finding sentence, normal statement) the hierarchy rows rule out
    ("The mediastinum is widened.", ["The mediastinal contours are normal.",
                                     "Normal mediastinum.", "The mediastinum is unremarkable."]),
    ("Mediastinal lymphadenopathy is present.", ["The mediastinal contours are normal.",
                                                 "Normal mediastinum."]),
    ("Acute compression fracture of a midthoracic vertebral body.",
     ["No acute osseous abnormality.", "No acute bony abnormality."]),
    ("There is a displaced fracture of the {side} clavicle.",
     ["Osseous structures are intact.", "No acute osseous abnormality.",
      "The bones are unremarkable."]),
    ("Small {side} pleural effusion.", ["No pleural abnormality.",
                                        "The pleural spaces are clear.",
                                        "Costophrenic angles are sharp."]),
    ("Mild pulmonary edema.", ["Pulmonary vascularity is normal.", "The lungs are clear.",
                               "No acute cardiopulmonary process."]),
    ("Enlarged cardiac silhouette.", ["Heart size is normal.", "The heart is normal in size.",
                                      "Normal cardiac silhouette."]),
    ("There is complete opacification of the {side} hemithorax.",
     ["The lungs are clear.", "No acute cardiopulmonary process."]),
    ("There is a large {side} pneumothorax.", ["No acute cardiopulmonary process.",
                                               "No pleural abnormality."]),
]


def more_hierarchy_cases(rng: random.Random, n: int) -> list[dict]:
    out = []
    for k in range(n):
        finding, normals = MORE_HIERARCHY[k % len(MORE_HIERARCHY)]
        sentence = finding.format(side=rng.choice(SIDES))
        normal = rng.choice(normals)
        style = rng.choice(["iu", "mimic"])
        order = rng.choice(["finding_then_normal", "normal_then_finding"])
        fill = [FILLERS["ptx"]] if "pneumothorax" not in sentence else [FILLERS["bones"]]
        if "fracture" in sentence:
            fill = [FILLERS["ptx"]]
        if order == "finding_then_normal":
            rep = report([sentence, *fill], [normal], style)
        else:
            rep = report([normal, *fill], [sentence], style)
        out.append(case(f"gen-mh{k:03d}", rep, "hierarchy", [sentence, normal], None, fill,
                        {"finding": finding, "normal": normal, "order": order,
                         "style": style}))
    return out


# ---- third pass: the denied finding inside a list of denials ----------------------------------
LIST_ITEMS = {  # finding sentence, the denied item's words, its kind
    "pleural effusion": ("Small {side} pleural effusion.", ["pleural effusion", "effusion",
                                                           "pleural effusions"], "presence"),
    "pneumothorax": ("Small {side} apical pneumothorax.", ["pneumothorax"], "presence"),
    "consolidation": ("Consolidation in the {side} lower lobe.", ["focal consolidation",
                                                                 "consolidation"], "presence"),
    "mass": ("There is a 3 cm mass in the {side} upper lobe.", ["masses", "mass",
                                                                "focal lung lesion",
                                                                "pulmonary lesion"],
             "hierarchy"),
    "fracture": ("Acute fracture of the {side} sixth rib.", ["fracture", "acute fracture"],
                 "presence"),
}
LIST_OTHERS = ["pneumothorax", "pleural effusion", "focal consolidation", "pulmonary edema",
               "pulmonary nodules", "free air", "acute osseous abnormality"]
LIST_FRAMES = ["No {items}.", "There is no {items}.", "No evidence of {items}.",
               "Without {items}."]


def list_denial_cases(rng: random.Random, n: int) -> list[dict]:
    out = []
    names = list(LIST_ITEMS)
    for k in range(n):
        concept = names[k % len(names)]
        template, words, kind = LIST_ITEMS[concept]
        sentence = template.format(side=rng.choice(SIDES))
        own = rng.choice(words)
        others = [o for o in LIST_OTHERS if o.split()[-1] not in own and own.split()[-1] not in o]
        items = rng.sample(others, rng.choice([1, 2]))
        joined = (f"{items[0]} or {own}" if len(items) == 1
                  else f"{items[0]}, {items[1]}, or {own}")
        frame = rng.choice(LIST_FRAMES)
        denial = frame.format(items=joined)
        style = rng.choice(["iu", "mimic"])
        rep = report([sentence, FILLERS["mediastinum"]], [denial], style)
        out.append(case(f"gen-ld{k:03d}", rep, kind, [sentence, denial], None,
                        [FILLERS["mediastinum"]],
                        {"concept": concept, "own": own, "items": len(items) + 1,
                         "frame": frame, "style": style}))
    return out


# ---- fourth pass: a denied opacity, expanded lungs ---------------------------------------------
OPACITY_DENIALS = ["No focal opacity.", "No focal opacities.", "No focal pulmonary opacity.",
                   "There is no focal opacity.", "No focal lung opacity."]
EXPANDED = ["The lungs are well expanded.", "Lungs are well expanded.",
            "The lungs are well aerated."]
OPACITY_DENIED = ["Dense consolidation in the {side} lower lobe.", "{Side} lower lobe pneumonia.",
                  "There is a 4 cm mass in the {side} upper lobe.",
                  "Airspace opacity in the {side} upper lobe."]
COLLAPSED = ["Collapse of the {side} lower lobe.", "{Side} upper lobe collapse.",
             "Complete atelectasis of the {side} lower lobe."]
OPACITY_CLEAN = ["Linear atelectasis at the {side} base.", "8 mm nodule in the {side} upper lobe.",
                 "Subsegmental atelectasis in the {side} lower lobe.",
                 "Calcified granuloma in the {side} upper lobe."]
EXPANDED_CLEAN = ["Mild bibasilar atelectasis.", "Linear atelectasis at the {side} base."]


def opacity_denial_cases(rng: random.Random, n: int) -> list[dict]:
    out = []
    for k in range(n):
        side = rng.choice(SIDES)
        clean = k % 3 == 2
        if k % 2:
            finding = rng.choice(EXPANDED_CLEAN if clean else COLLAPSED)
            denial = rng.choice(EXPANDED)
        else:
            finding = rng.choice(OPACITY_CLEAN if clean else OPACITY_DENIED)
            denial = rng.choice(OPACITY_DENIALS)
        sentence = finding.format(side=side, Side=_cap(side))
        style = rng.choice(["iu", "mimic"])
        rep = report([sentence, FILLERS["ptx"]], [denial], style)
        form = {"finding": finding, "denial": denial, "style": style}
        if clean:
            out.append(case(f"gen-od{k:03d}", rep, "clean", [], None,
                            [sentence, denial, FILLERS["ptx"]], form))
        else:
            out.append(case(f"gen-od{k:03d}", rep, "hierarchy", [sentence, denial], None,
                            [FILLERS["ptx"]], form))
    return out


def case(cid, rep, kind, must_flag, keep, must_not_flag, form) -> dict:
    return {"id": cid, "report": rep, "kind": kind, "must_flag": must_flag, "keep": keep,
            "must_not_flag": must_not_flag, "form": form}


def _valid(c: dict) -> bool:
    """Every must-flag and must-not-flag sentence occurs once in the report."""
    return all(c["report"].count(s) == 1 for s in c["must_flag"] + c["must_not_flag"])


def generate(seed: int = SEED) -> list[dict]:
    rng = random.Random(seed)
    cases = (hierarchy_cases(rng, 200) + temporal_cases(rng, 120, clean=False)
             + count_cases(rng, 50, clean=False) + temporal_cases(rng, 50, clean=True)
             + count_cases(rng, 25, clean=True) + clean_beside_cases(rng, 60)
             + otherwise_clear_cases(rng, 20)
             + long_temporal_cases(rng, 80) + count_more_cases(rng, 50)
             + more_hierarchy_cases(rng, 45) + list_denial_cases(rng, 50)
             + opacity_denial_cases(rng, 36))
    return [c for c in cases if _valid(c)]


# ---- misses by form -----------------------------------------------------------------------------

def _overlaps(report_text: str, needle: str, detections: list[dict]) -> bool:
    i = report_text.find(needle)
    return i >= 0 and any("start" in d and d["start"] < i + len(needle) and i < d["end"]
                          for d in detections)


def misses(cases: list[dict], audit: Path, show: bool) -> None:
    got = {}
    for line in audit.read_text(encoding="utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            got[r["id"]] = r.get("detections") or []
    by_value: dict[tuple[str, str, str], Counter] = defaultdict(Counter)
    listed = []
    for c in cases:
        dets = got.get(c["id"], [])
        if c["must_flag"]:
            bad = [s for s in c["must_flag"] if not _overlaps(c["report"], s, dets)]
        else:
            bad = [s for s in c["must_not_flag"] if _overlaps(c["report"], s, dets)]
        kind = c["kind"] if c["must_flag"] else "clean:" + c["id"][4:6]
        for key, value in c["form"].items():
            by_value[(kind, key, str(value))]["n"] += 1
            by_value[(kind, key, str(value))]["bad"] += bool(bad)
        by_value[(kind, "*", "*")]["n"] += 1
        by_value[(kind, "*", "*")]["bad"] += bool(bad)
        if bad:
            listed.append(f"{c['id']} [{c['kind']}] {'missed' if c['must_flag'] else 'flagged'}"
                          f": {bad}\n    {c['report']!r}")
    for (kind, key, value), n in sorted(by_value.items(),
                                        key=lambda kv: (kv[0][0], kv[0][1],
                                                        -kv[1]["bad"] / kv[1]["n"])):
        if key == "*" or n["bad"]:
            print(f"{kind:10} {key:12} {n['bad']:>3}/{n['n']:<3} {value}")
    if show:
        print("\n".join(listed))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {OUT.name}")
    parser.add_argument("--misses", help="an audit_reports output of the generated file")
    parser.add_argument("--list", action="store_true", help="also list every miss")
    args = parser.parse_args()
    cases = generate()
    if args.write:
        OUT.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
        kinds = Counter(c["kind"] for c in cases)
        print(f"{len(cases)} cases -> {OUT}: {dict(sorted(kinds.items()))}")
    if args.misses:
        misses(cases, Path(args.misses), args.list)
    if not (args.write or args.misses):
        sys.exit("--write or --misses")


if __name__ == "__main__":
    main()
