"""What a chest radiograph report talks about: observations, their synonyms and attributes.

Every observation the engine knows is one ``Concept``: a normalised name (used everywhere
downstream: findings, labels, entailment, harm levels, key phrases), the finding category of
RadFlag's Appendix C, the CheXpert-14 labels it feeds, and the surface forms (regular
expressions over lower-cased text) that mention it. Surface forms are written for the wording
of real reports ("heart size is mildly enlarged", "pleural-parenchymal scarring", "NG tube"),
not for any benchmark's particular sentences.

The module also holds the attribute vocabularies (laterality, severity, location, comparison)
and the "normal statement" rules ("lungs are clear", "heart size is normal", "no acute
cardiopulmonary abnormality") that state whole groups of observations absent.
"""
from __future__ import annotations

import re
import re._parser as sre_parse  # the stdlib's own regex parser (first characters of a pattern)
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from re._constants import (
    ANY,
    ASSERT,
    ASSERT_NOT,
    AT,
    BRANCH,
    CATEGORY,
    IN,
    LITERAL,
    MAX_REPEAT,
    MIN_REPEAT,
    NEGATE,
    RANGE,
    SUBPATTERN,
)

from workers.nlp.hierarchy import HIERARCHY

DEVICES = "Devices"
CARDIOMEDIASTINAL = "Cardiomediastinal"
LUNGS = "Lungs"
MUSCULOSKELETAL = "Musculoskeletal"
PLEURA = "Pleura"
OTHER = "Other"
CATEGORIES = (DEVICES, CARDIOMEDIASTINAL, LUNGS, MUSCULOSKELETAL, PLEURA, OTHER)

CHEXPERT_LABELS = (
    "No Finding", "Enlarged Cardiomediastinum", "Cardiomegaly", "Lung Opacity", "Lung Lesion",
    "Edema", "Consolidation", "Pneumonia", "Atelectasis", "Pneumothorax", "Pleural Effusion",
    "Pleural Other", "Fracture", "Support Devices",
)

SUPPORT = "Support Devices"


@dataclass(frozen=True)
class Concept:
    """One observation of the vocabulary.

    ``labels``: the CheXpert labels a present mention makes positive. ``lung``: a lung-field
    observation (opacity, nodule, edema...), which stops counting for the lung labels when the
    report places it somewhere else ("mediastinal mass", "soft tissue density").
    ``abnormal``: False for normal variants and look-alikes ("nipple shadow"), which never
    break "No Finding". ``noun``: how a short phrase names it ("opacity", "pleural effusion").
    """

    name: str
    category: str
    labels: tuple[str, ...]
    patterns: tuple[str, ...]
    lung: bool = False
    abnormal: bool = True
    device: bool = False

    @property
    def noun(self) -> str:
        return self.name


# British spellings ("oedema", "haemothorax", "oesophagus"): each surface form that has one is
# matched in it too, so a UK site's reports read as a US site's do. The British forms go after
# a concept's own, so no US wording matches differently.
_BRITISH_SPELLINGS = ((re.compile(r"(?<![a-z])edema"), "oedema"),
                      (re.compile(r"(?<![a-z])hem(?=[ao])"), "haem"),
                      (re.compile(r"(?<![a-z])(para)?esophag"), r"\1oesophag"),
                      (re.compile(r"tumor"), "tumour"))


def british_spelling(pattern: str) -> str:
    for us, uk in _BRITISH_SPELLINGS:
        pattern = us.sub(uk, pattern)
    return pattern


def _c(name, category, labels, *patterns, lung=False, abnormal=True, device=False):
    if isinstance(labels, str):
        labels = (labels,)
    british = [british_spelling(p) for p in patterns]
    patterns += tuple(b for b, p in zip(british, patterns, strict=True) if b != p)
    return Concept(name, category, tuple(labels or ()), tuple(patterns), lung, abnormal, device)


# a degree before the predicate: "mildly", "stably", "at least mildly", "mild to moderately"
_SEV = r"(?:(?:at least |still |now )?(?:(?:mild|moderate)(?:ly)?[- ]to[- ](?:moderate|marked|" \
       r"severe)(?:ly)?|mildly|moderately|markedly|severely|slightly|minimally|massively|" \
       r"borderline|somewhat|significantly|now|still|again|stably|persistently) )?"
# the verb, also after a time adverb ("the heart again appears enlarged")
_BE = r"(?:(?:again |still |now |also )?(?:is|are|appears?|remains?|seems?|was|has become|" \
      r"looks?)(?: to be)? )?"
_HEART = r"(?:heart|cardiac (?:silhouette|size|shadow|contour|diameter)s?|heart size|" \
         r"cardiac and mediastinal (?:silhouette|contour)s?|cardiomediastinal silhouette)"

CONCEPTS: tuple[Concept, ...] = (
    # ---- devices -------------------------------------------------------------------------
    _c("device malposition", DEVICES, SUPPORT,
       r"malposit\w*", r"mal-?positioned",
       r"(?:tube|catheter|line|tip)[\w ]{0,30} (?:in|within|into|at) the (?:right|left) main ?stem"
       r"(?: bronchus)?",
       r"(?:right|left) main ?stem (?:bronchus )?intubation",
       r"(?:coiled|kinked|looped) (?:in|within) the (?:\w+ )?"
       r"(?:neck|esophagus|pharynx|hypopharynx)",
       device=True),
    _c("endotracheal tube", DEVICES, SUPPORT,
       r"endotracheal tubes?", r"e\.?t\.? tubes?", r"ett", r"tracheal tubes?", device=True),
    _c("tracheostomy tube", DEVICES, SUPPORT,
       r"tracheostomy(?: tubes?| cannula)?", r"trach tubes?", device=True),
    _c("enteric tube", DEVICES, SUPPORT,
       r"(?:naso|oro)gastric tubes?", r"(?:ng|og|nj|dobhoff|dobbhoff|feeding|enteric|gastric|"
       r"gastrostomy|g-|peg) tubes?", r"dobb?hoff", r"[no]gts?", device=True),
    _c("chest tube", DEVICES, SUPPORT,
       r"chest tubes?", r"thoracostomy tubes?", r"pleural (?:drains?|catheters?|tubes?)",
       r"pigtail (?:catheters?|drains?)", r"mediastinal drains?", device=True),
    _c("central venous catheter", DEVICES, SUPPORT,
       r"central (?:venous )?(?:lines?|catheters?)", r"cvcs?", r"piccs?(?: lines?| catheters?)?",
       r"peripherally inserted central (?:venous )?catheters?",
       r"(?:internal jugular|ij|subclavian|jugular|femoral) (?:central )?(?:venous )?"
       r"(?:lines?|catheters?|sheaths?)",
       r"swan[- ]?ganz(?: catheters?)?", r"pulmonary arter(?:y|ial) catheters?",
       r"port[- ]?a[- ]?caths?", r"portacath(?:eter)?s?", r"port[- ]?catheters?",
       r"(?:chest|power|infusion|subcutaneous|venous|right|left) ports?", r"mediports?",
       r"(?:hemo)?dialysis (?:catheters?|lines?)", r"venous catheters?",
       r"(?:vascular|venous) access (?:devices?|catheters?)", device=True),
    _c("pacemaker", DEVICES, SUPPORT,
       r"pacemakers?", r"pacers?", r"pacing (?:devices?|generators?|leads?|wires?)",
       r"aicds?", r"icds?", r"(?:implantable )?(?:cardioverter[- ])?defibrillators?",
       r"(?:pacemaker|pacer|aicd|icd|defibrillator|transvenous|epicardial|cardiac|pacing) "
       r"(?:leads?|wires?|generators?|devices?)",
       r"(?:dual|single|biventricular|triple)[- ]chamber (?:\w+ )?(?:pacemaker|device|leads?)",
       r"leads? (?:terminat\w+|project\w+|overl\w+|extend\w+|"
       r"in the (?:right|left) (?:atrium|ventricle))",
       r"loop recorders?", device=True),
    _c("sternotomy wires", DEVICES, (),
       r"(?:median |midline |prior )?sternotomy(?: wires?| sutures?| xxxx)?",
       r"sternal (?:wires?|sutures?|cerclage(?: wires?)?)", r"cabg", device=True),
    _c("surgical clips", DEVICES, SUPPORT,
       r"(?:surgical |vascular |cholecystectomy |postoperative |postsurgical |post-surgical |"
       r"axillary |metallic |mediastinal |cervical |clustered )?clips?",
       r"(?:surgical |radiopaque |residual |metallic )?(?:staples|sutures?|suture line)",
       r"suture (?:material|lines?)",
       device=True),
    _c("stent", DEVICES, SUPPORT,
       r"(?:\w+ )?stents?", r"stent[- ]grafts?", r"endografts?", device=True),
    _c("prosthetic valve", DEVICES, SUPPORT,
       r"(?:prosthetic|mechanical|artificial|bioprosthetic|replaced?) (?:heart |cardiac |aortic |"
       r"mitral |tricuspid )?valves?",
       r"(?:aortic |mitral |tricuspid )?valve (?:replacements?|prosthes[ie]s)",
       r"annuloplasty rings?", r"tavr", r"avr", r"mvr", device=True),
    _c("support device", DEVICES, SUPPORT,
       r"(?:medical |support |monitoring |implanted |implantable |electronic )?devices?",
       r"(?:indwelling )?catheters?", r"(?:shunt )?tubing", r"shunt catheters?",
       r"(?:vp|ventriculoperitoneal) shunts?", r"(?:neuro|spinal cord |vagal nerve )?stimulators?",
       # a line whose name was lost ("right chest XXXX tip in the SVC") still has a tip
       r"(?:distal |catheter |its )?tips? (?:is |are |now |again |remains? |terminat\w+ |"
       r"project\w+ |overl\w+ |locat\w+ |position\w+ |lies |seen |visualized |in |at |"
       r"with(?:in)? |near |over |to |into |of )+(?:the )?(?:level of the )?"
       r"(?:expected |region of the |junction of the )?"
       r"(?:\w+ )?(?:svc|superior vena cava|right atrium|atrium|cavoatrial|cavo-atrial|"
       r"brachiocephalic|innominate|carina|stomach|ventricle|jugular|subclavian|azygos|"
       r"atriocaval|pulmonary artery|esophagus)",
       device=True),
    _c("monitoring leads", DEVICES, SUPPORT,
       r"(?:ekg|ecg|telemetry|monitoring|monitor|external) (?:leads?|wires?|electrodes?|pads?)",
       r"electrodes?", device=True),
    _c("orthopedic hardware", MUSCULOSKELETAL, (),
       r"(?:orthopedic |orthopaedic |spinal |fixation |surgical |postsurgical |fusion |"
       r"cervical |thoracic |lumbar |metallic |internal fixation )?hardware",
       r"(?:fixation |pedicle |surgical )?screws?", r"(?:spinal |harrington |fixation )rods?",
       r"(?:spinal |cervical |thoracic |lumbar |anterior |posterior )fusion",
       r"(?:side|fixation|compression) plates?", r"plate and screws?", r"kyphoplasty",
       r"vertebroplasty", r"(?:shoulder |humeral |joint |total )?arthroplast(?:y|ies)",
       r"(?:shoulder|humeral|joint) prosthes[ie]s", device=True),
    _c("breast implants", OTHER, (), r"breast (?:implants?|prosthes[ie]s)", device=True),
    _c("foreign body", OTHER, (),
       r"foreign bod(?:y|ies)", r"bullet(?: fragments?)?", r"shrapnel", r"bb",
       r"(?:nipple|body) (?:rings?|piercings?)", r"piercings?",
       r"(?:metallic|radiopaque|metal) (?:fragments?|densit(?:y|ies)|foreign bod(?:y|ies)|"
       r"objects?|pellets?|artifacts?)"),

    # ---- cardiomediastinal ----------------------------------------------------------------
    _c("cardiomegaly", CARDIOMEDIASTINAL, "Cardiomegaly",
       r"cardiomegaly", r"cardiac enlargement", r"cardiomyopathy",
       r"(?:heart|cardiac (?:silhouette|shadow|size)) enlargement",
       r"enlarge(?:d|ment of the) " + _HEART,
       r"enlargement of the (?:heart|cardiac silhouette)",
       r"(?:large|prominent|globular|increased) (?:heart|cardiac (?:silhouette|size|shadow))",
       _HEART + r" " + _BE + _SEV + r"(?:enlarged|large|increased|prominent|globular)",
       r"increase(?:d)? (?:in )?(?:the )?size of the (?:heart|cardiac silhouette)",
       r"(?:enlarged|prominent) cardiomediastinal silhouette",
       r"cardiomediastinal silhouette " + _BE + _SEV + r"(?:enlarged|prominent)",
       r"(?:left|right|bi)(?: |-)?(?:ventricular|atrial) (?:enlargement|hypertrophy|prominence)",
       r"enlarged (?:left|right) (?:atrium|ventricle)",
       r"(?:left|right) (?:atrium|ventricle) (?:is |appears )?enlarged",
       r"(?:upper limits? of normal|top(?:-| )normal|high(?:-| )normal) (?:heart|cardiac)"
       r"(?: size| silhouette)?",
       _HEART + r" " + _BE + r"(?:at |at the |in the |within the )?(?:upper limits? of normal"
       r"|top(?:-| )normal|high(?:-| )normal|upper normal)"),
    _c("enlarged cardiomediastinum", CARDIOMEDIASTINAL, "Enlarged Cardiomediastinum",
       r"widen(?:ed|ing) (?:of )?(?:the )?(?:superior )?"
       r"mediastin(?:um|al(?: contours?| silhouette)?)",
       r"mediastinal (?:widening|enlargement|prominence|fullness)",
       r"(?:enlarged|prominent|wide) (?:superior )?mediastin(?:um|al(?: contours?| silhouette)?)",
       r"(?:superior )?mediastin(?:um|al (?:contours?|silhouette)) " + _BE + _SEV
       + r"(?:widened|enlarged|prominent|wide)",
       r"(?:paratracheal|mediastinal) (?:stripe )?(?:prominence|fullness|widening)",
       r"prominen(?:t|ce of the) (?:right )?paratracheal (?:stripe|region|soft tissues?)"),
    _c("pericardial effusion", CARDIOMEDIASTINAL, (), r"pericardial (?:effusions?|fluid)"),
    _c("pneumomediastinum", CARDIOMEDIASTINAL, (), r"pneumomediastinum", r"pneumopericardium"),
    _c("tortuous aorta", CARDIOMEDIASTINAL, (),
       r"(?:tortuous|ectatic|unfolded|dilated|uncoiled|elongated) "
       r"(?:thoracic |descending |ascending |atherosclerotic )?aort(?:a|ic (?:arch|knob|root))",
       r"aort(?:a|ic (?:arch|knob|root)) " + _BE + _SEV
       + r"(?:tortuous|ectatic|unfolded|dilated|uncoiled|elongated|prominent|enlarged)",
       r"(?:tortuosity|ectasia|unfolding|dilatation|dilation|uncoiling|elongation) (?:and \w+ )?"
       r"(?:of )?(?:the )?(?:thoracic |descending |ascending )?aort(?:a|ic)",
       r"aortic (?:tortuosity|ectasia|dilatation|unfolding|prominence)",
       r"(?:prominent|enlarged) aortic (?:knob|arch|knuckle)",
       r"prominent (?:ascending |descending |thoracic )?aorta"),
    _c("aortic aneurysm", CARDIOMEDIASTINAL, (), r"(?:aortic )?aneurysm(?:al(?: dilatation)?)?"),
    _c("atherosclerosis", CARDIOMEDIASTINAL, (),
       r"atherosclero(?:sis|tic)(?: (?:disease|changes?|calcifications?|plaque|vascular "
       r"calcifications?))?",
       r"(?:aortic|vascular|arterial|aortic arch|aortic knob|aortic valve|mitral annular|"
       r"coronary(?: artery)?|arch) calcifications?",
       r"calcifi(?:ed|cation of the|cations of the) (?:thoracic )?(?:aorta|aortic (?:arch|knob|"
       r"valve)|coronary arter(?:y|ies))",
       r"aort(?:a|ic (?:arch|knob)) (?:is |are |appears )?(?:\w+ )?calcified"),
    _c("lymphadenopathy", CARDIOMEDIASTINAL, (),
       r"(?:hilar |mediastinal |paratracheal |axillary )?(?:lymph)?adenopathy",
       r"(?:enlarged|prominent) (?:\w+ )?lymph nodes?", r"lymph node enlargement"),
    _c("hilar enlargement", CARDIOMEDIASTINAL, (),
       r"(?:enlarged|prominent|full|bulky) (?:right |left |bilateral )?hil(?:a|um|ar (?:regions?|"
       r"structures?|contours?|shadows?))",
       r"hil(?:a|um|ar (?:regions?|structures?|contours?|shadows?)) " + _BE + _SEV
       + r"(?:enlarged|prominent|full|bulky)",
       r"hilar (?:enlargement|prominence|fullness)",
       r"prominen(?:ce|t) (?:of )?(?:the )?(?:left |right |bilateral )?hil(?:ar contours?|um|a)"),
    _c("pulmonary artery enlargement", CARDIOMEDIASTINAL, (),
       r"(?:enlarged|prominent|dilated|large) (?:main |central |proximal )?pulmonary arter(?:y|ies)"
       r"(?: segments?)?",
       r"pulmonary arter(?:y|ies)(?: segments?)? " + _BE + _SEV + r"(?:enlarged|prominent|dilated)",
       r"pulmonary (?:arterial |artery )?hypertension"),
    _c("calcified lymph node", CARDIOMEDIASTINAL, (),
       r"calcified (?:hilar |mediastinal |paratracheal |subcarinal |aortopulmonary |right |left )*"
       r"(?:lymph )?(?:nodes?|xxxx)"),

    # ---- pleura ---------------------------------------------------------------------------
    _c("pneumothorax", PLEURA, "Pneumothorax", r"pneumothora(?:x|ces|xes)", r"ptx",
       r"pleural air"),
    _c("hydropneumothorax", PLEURA, ("Pneumothorax", "Pleural Effusion"),
       r"(?:hydro|hemo|pyo)pneumothora(?:x|ces)"),
    _c("pleural effusion", PLEURA, "Pleural Effusion",
       r"(?:pleural )?effusions?", r"pleural (?:fluid|collections?)", r"(?:hydro|hemo)thorax",
       r"empyema", r"(?:layering|loculated|subpulmonic) (?:pleural )?fluid",
       r"fluid (?:in|within) the (?:\w+ )?(?:pleural spaces?|fissures?|costophrenic)"),
    _c("costophrenic angle blunting", PLEURA, (),
       r"blunt(?:ing|ed) (?:of )?(?:the )?(?:\w+ )?(?:costophrenic|cp|costodiaphragmatic)"
       r"(?: (?:angles?|sulc(?:us|i)|recess(?:es)?|xxxx))?",
       r"(?:costophrenic|cp) (?:angles?|sulc(?:us|i)|recess(?:es)?|xxxx) (?:\w+ )?blunting",
       r"(?:costophrenic|cp) (?:angles?|sulc(?:us|i)|xxxx) " + _BE + _SEV + r"blunted",
       r"blunting of the (?:\w+ )?(?:pleural spaces?|lateral sulc(?:us|i))"),
    _c("pleural thickening", PLEURA, "Pleural Other",
       r"pleural (?:thickening|plaques?|calcifications?|scarring|scars?|reaction|densit(?:y|ies)"
       r"|abnormalit(?:y|ies))",
       r"pleural[- ]?parenchymal (?:scarring|scars?|thickening|opacit(?:y|ies)|changes?|"
       r"densit(?:y|ies)|fibrosis)",
       r"pleuro-?parenchymal (?:scarring|scars?|thickening|opacit(?:y|ies)|changes?|fibrosis)",
       r"thicken(?:ing|ed) (?:of )?(?:the )?(?:\w+ )?(?:pleura|pleural surfaces?)",
       r"(?:apical|biapical) (?:pleural )?(?:thickening|capping|caps?)",
       r"calcified pleura(?:l plaques?)?", r"fibrothorax",
       r"(?:fissural|fissure|interlobar) thickening", r"thicken(?:ing|ed) (?:of )?(?:the )?"
       r"(?:\w+ )?(?:minor |major |horizontal |oblique |interlobar )?fissures?"),

    # ---- lungs ----------------------------------------------------------------------------
    # consolidation is an opacity by definition (Fleischner glossary: parenchymal opacity that
    # obscures the vessels), so it also states Lung Opacity; the diagnoses below it in
    # CheXpert's hierarchy (atelectasis, edema, pneumonia) do not, they can show without one
    _c("consolidation", LUNGS, ("Consolidation", "Lung Opacity"),
       r"consolidat(?:ion|ions|ive(?: (?:opacit(?:y|ies)|changes?|process))?|ed)"),
    _c("pneumonia", LUNGS, "Pneumonia",
       r"(?:broncho|aspiration |multifocal |lobar )?pneumonias?", r"pneumonitis",
       r"infectious (?:process(?:es)?|etiology|infiltrates?|causes?|change)",
       r"(?:pulmonary |lung |superimposed |acute )?infections?", r"aspiration"),
    _c("atelectasis", LUNGS, "Atelectasis",
       r"atelecta(?:sis|ses|tic(?: changes?| opacit(?:y|ies)| scarring)?)",
       r"(?:lobar|lobe|segmental|lung) collapse",
       r"collapse (?:of )?(?:the )?(?:[\w-]+ ){0,4}(?:lungs?|lobes?)",
       r"collapsed (?:\w+ )?(?:lungs?|lobes?)"),
    _c("edema", LUNGS, "Edema",
       r"(?:pulmonary |interstitial |alveolar |airspace |perihilar )?edema",
       r"congestive (?:heart )?failure",
       r"(?:heart|cardiac) failure", r"chf", r"fluid overload", r"cephalization",
       r"kerley(?: b)? lines", r"(?:pulmonary )?vascular (?:engorgement|redistribution)",
       r"indistinct(?:ness of the)? (?:pulmonary )?vascula(?:r markings|ture)",
       lung=True),
    _c("vascular congestion", LUNGS, "Edema",
       r"(?:pulmonary )?(?:vascular |venous )?congestion",
       r"(?:pulmonary |central )?vascular (?:prominence|fullness|congestive changes?)",
       r"prominen(?:ce|t) (?:of )?(?:the )?(?:central |upper lobe |pulmonary )*(?:vasculature|"
       r"vascularity|vessels|vascular markings)",
       r"pulmonary venous (?:hypertension|congestion)",
       r"(?:vessels|vasculature|xxxx) (?:are|is|appear) (?:mildly |slightly )?engorged",
       r"(?:increased|prominent) (?:pulmonary |central |interstitial )?"
       r"vascula(?:rity|ture|r markings)",
       r"(?:pulmonary )?vascula(?:rity|ture) (?:is |are |appears )?" + _SEV
       + r"(?:prominent|increased|engorged|indistinct)", lung=True),
    _c("nodule", LUNGS, "Lung Lesion",
       r"(?:micro)?nodules?", r"nodular (?:lesions?|foc(?:us|i))", r"coin lesions?", lung=True),
    _c("mass", LUNGS, "Lung Lesion",
       r"mass(?:es|like)?", r"mass-like(?: opacit(?:y|ies))?", r"tumou?rs?", r"neoplasms?",
       r"neoplastic (?:process|disease)", r"malignan(?:cy|cies)",
       r"(?:broncho(?:genic)?)?carcinomas?", r"(?:lung |pulmonary )?cancer", r"metastas[ie]s",
       r"metastatic (?:disease|lesions?|nodules?)",
       lung=True),
    _c("lesion", LUNGS, "Lung Lesion",
       r"(?:pulmonary |lung |parenchymal |spiculated |cavitary |focal )?lesions?",
       r"cavit(?:y|ies|ation|ary (?:lesions?|nodules?|mass(?:es)?))", lung=True),
    _c("granuloma", LUNGS, (),
       r"(?:calcified )?granulomas?", r"granulomata",
       r"(?:old |prior |healed |sequela of )?granulomatous (?:disease|changes?|process|infection|"
       r"exposure|sequela)",
       r"calcified (?:pulmonary |lung |right |left |\w+ lobe )?"
       r"(?:nodules?|foc(?:us|i)|densit(?:y|ies))"
       r"(?= (?:consistent with|compatible with|likely|representing|suggestive of|may represent) "
       r"(?:a |an |old |prior |healed )*granulom)",
       r"histoplasmosis", r"ghon (?:complex|lesion|focus)"),
    _c("scarring", LUNGS, (),
       r"(?:parenchymal |apical |biapical |linear |basilar |fibrotic |lung |pulmonary )?"
       r"(?:scarring|scars?|cicatri(?:x|ces))",
       r"scarr?ed"),
    _c("fibrosis", LUNGS, (),
       r"(?:pulmonary |interstitial |lung |apical )?fibros(?:is|es)",
       r"fibrotic (?:changes?|lung disease|process)", r"honeycomb(?:ing)?"),
    _c("interstitial markings", LUNGS, (),
       r"(?:increased|prominent|coarse(?:ned)?|accentuated|chronic|diffuse|mild|bilateral)"
       r"(?: (?:and|,) \w+)? (?:interstitial|lung|bronchovascular|pulmonary|reticular|"
       r"reticulonodular|parenchymal) markings",
       r"interstitial (?:markings|prominence|thickening|pattern|changes?|lung disease|disease|"
       r"process)",
       r"reticul(?:ar|onodular|ation)(?: (?:pattern|markings|changes?))?",
       r"markings (?:are )?(?:increased|prominent|coarse(?:ned)?|accentuated)",
       r"(?:peribronchial|bronchial wall|bronchovascular) (?:thickening|cuffing)",
       r"(?:airway|small airways?) (?:disease|inflammation)", r"bronchitis"),
    _c("opacity", LUNGS, "Lung Opacity",
       r"opacit(?:y|ies)", r"opacifi(?:cation|ed)", r"(?:air[- ]?space|alveolar) (?:disease|"
       r"process|filling|opacit(?:y|ies)|densit(?:y|ies))",
       r"infiltrat(?:e|es|ion|ive(?: process| changes?)?)", r"densit(?:y|ies)",
       r"ground[- ]glass(?: opacit(?:y|ies)| attenuation)?", r"hazy|haziness",
       r"(?:increased|abnormal) (?:lung |pulmonary )?(?:attenuation|markings)",
       lung=True),
    _c("emphysema", LUNGS, (),
       r"(?:centrilobular |paraseptal |panlobular |bullous )?"
       r"emphysema(?:tous(?: changes?| lungs?)?)?",
       r"copd", r"chronic obstructive (?:pulmonary|lung|airway) disease",
       r"bull(?:a|ae|ous (?:changes?|disease))", r"blebs?"),
    _c("hyperinflation", LUNGS, (),
       r"hyper-?inflat(?:ion|ed)", r"hyper-?expan(?:sion|ded)", r"hyper-?aerat(?:ion|ed)",
       r"over-?inflat(?:ion|ed)", r"over-?expan(?:sion|ded)", r"hyperlucen(?:t|cy)",
       r"flatten(?:ed|ing of the) (?:\w+ )?(?:hemi)?diaphragms?",
       r"(?:hemi)?diaphragms? (?:are |is )?(?:\w+ )?flattened",
       r"increased (?:ap|anteroposterior|retrosternal) (?:diameter|air ?space|clear space)"),
    _c("hypoinflation", LUNGS, (),
       r"(?:low|diminished|decreased|reduced|small) (?:lung )?volumes?",
       r"(?:lung )?volumes (?:\w+ ){0,3}(?:low|diminished|decreased|reduced)",
       r"hypo-?inflat(?:ion|ed)", r"hypoventilat(?:ion|ed|ory(?: changes?)?)",
       r"(?:bronchovascular|vascular) crowding",
       r"hypoexpan(?:sion|ded)", r"under-?inflat(?:ion|ed)",
       r"(?:poor|shallow|low|suboptimal|limited) (?:inspiratory effort|inspiration|inflation)"),
    _c("bronchiectasis", LUNGS, (), r"bronchiectas(?:is|es|tic(?: changes?)?)"),
    _c("cyst", LUNGS, (), r"(?:pulmonary |lung |bronchogenic )?cysts?",
       r"cystic (?:changes?|lesions?)"),
    _c("tuberculosis", LUNGS, (), r"tuberculosis", r"tb", r"tuberculous(?: disease)?",
       r"mycobacterial (?:disease|infection)"),
    _c("sarcoidosis", LUNGS, (), r"sarcoid(?:osis)?"),
    _c("volume loss", LUNGS, (), r"volume loss", r"loss of (?:\w+ )?volume"),
    _c("mediastinal shift", CARDIOMEDIASTINAL, (),
       r"(?:mediastinal|tracheal) (?:shift|deviation)", r"shift of the (?:mediastinum|trachea)"),

    # ---- musculoskeletal ------------------------------------------------------------------
    _c("fracture", MUSCULOSKELETAL, "Fracture",
       r"fractur(?:e|es|ed|ing)", r"fx", r"compression fractures?",
       r"fracture deformit(?:y|ies)"),
    _c("compression deformity", MUSCULOSKELETAL, (),
       r"(?:compression|wedge|wedging|wedge-shaped|anterior wedge) (?:deformit(?:y|ies)|"
       r"compression)",
       r"(?:loss of|decreased) (?:vertebral )?(?:body )?height", r"vertebral (?:body )?(?:collapse|"
       r"height loss|wedging)", r"wedging"),
    _c("dislocation", MUSCULOSKELETAL, (), r"(?:sub)?luxation", r"dislocat(?:ion|ed)",
       r"(?:acromioclavicular|ac) (?:joint )?separation"),
    _c("degenerative change", MUSCULOSKELETAL, (),
       r"degenerat(?:ive|ion)(?: (?:changes?|disease|disc disease|joint disease|spurring|"
       r"arthritis|arthropathy|endplate changes?))?",
       r"(?:thoracic |cervical |lumbar )?spondylo(?:sis|tic(?: changes?)?)",
       r"osteophyt(?:es?|osis|ic)",
       r"(?:osteo)?arthrit(?:is|ic(?: changes?)?)", r"djd", r"(?:bony |osseous )?spurring",
       r"arthropath(?:y|ies)", r"(?:disc|disk) space narrowing",
       r"(?:endplate|facet) (?:sclerosis|hypertrophy|changes?)", r"dish"),
    _c("scoliosis", MUSCULOSKELETAL, (),
       r"(?:dextro|levo|thoracolumbar |thoracic |lumbar |mild |rotary |s-shaped )?scolio(?:sis|tic"
       r"(?: curvature| deformity)?)",
       r"(?:dextro|levo)curvature", r"curvature of the (?:\w+ )?spine",
       r"(?:spinal|spine|thoracic) curvature"),
    _c("kyphosis", MUSCULOSKELETAL, (), r"kypho(?:sis|tic(?: curvature| deformity)?)",
       r"kyphoscoliosis"),
    _c("osteopenia", MUSCULOSKELETAL, (),
       r"osteopeni(?:a|c)", r"osteoporo(?:sis|tic)", r"(?:osseous |bone )?demineraliz(?:ation|ed)"),
    _c("bone lesion", MUSCULOSKELETAL, (),
       r"(?:lytic|sclerotic|blastic|osseous|bony|bone|osteolytic|osteoblastic|expansile) "
       r"(?:lesions?|metastas[ie]s|foc(?:us|i)|destruction)",
       r"bone islands?", r"enchondromas?"),
    _c("deformity", MUSCULOSKELETAL, (),
       r"(?:bony |osseous |rib |vertebral |skeletal |spinal )?deformit(?:y|ies)"),
    _c("rib abnormality", MUSCULOSKELETAL, (),
       r"(?:cervical|bifid|notched|anomalous) ribs?", r"rib (?:notching|anomal(?:y|ies)|"
       r"deformit(?:y|ies))"),

    # ---- other ----------------------------------------------------------------------------
    _c("subcutaneous emphysema", OTHER, (),
       r"subcutaneous (?:emphysema|air|gas)", r"soft tissue (?:emphysema|air|gas)",
       r"surgical emphysema"),
    _c("pneumoperitoneum", OTHER, (),
       r"pneumoperitoneum", r"free (?:intraperitoneal |intra-abdominal |subdiaphragmatic )?air"
       r"(?: under the (?:\w+ )?(?:hemi)?diaphragms?)?"),
    _c("elevated hemidiaphragm", OTHER, (),
       r"elevat(?:ed|ion of the) (?:\w+ )?(?:hemi-?)?diaphragms?",
       r"(?:hemi-?)?diaphragms? (?:is |are |remains? )?(?:\w+ )?elevated",
       r"eventration(?: of the (?:\w+ )?(?:hemi)?diaphragm)?",
       r"diaphragmatic (?:elevation|paralysis)"),
    _c("hernia", OTHER, (), r"(?:hiatal|hiatus|diaphragmatic|paraesophageal|bochdalek|morgagni)"
       r" hernias?", r"hernias?"),
    _c("postsurgical changes", OTHER, (),
       r"post-?(?:surgical|operative|op|thoracotomy|sternotomy|radiation|treatment) changes?",
       r"(?:surgical|postsurgical|postoperative) changes?", r"(?:lobectomy|pneumonectomy|"
       r"wedge resection|thoracotomy|mastectomy|lumpectomy|cholecystectomy|esophagectomy|"
       r"thyroidectomy|resection)s?"),
    _c("calcification", OTHER, (),
       r"(?:\w+ )?calcifications?", r"calcified (?:densit(?:y|ies)|foc(?:us|i)|structures?|"
       r"material|opacit(?:y|ies))"),
    _c("soft tissue abnormality", OTHER, (),
       r"soft tissue (?:swelling|mass(?:es)?|densit(?:y|ies)|opacit(?:y|ies)|prominence|"
       r"thickening)"),
    _c("goiter", OTHER, (), r"goiter", r"(?:enlarged|substernal|intrathoracic) thyroid(?: gland)?",
       r"thyromegaly"),
    _c("dilated bowel", OTHER, (), r"(?:dilated|distended) (?:small )?(?:bowel|colon|loops?)",
       r"air[- ]fluid levels?"),
    _c("nipple shadow", OTHER, (), r"nipple (?:shadows?|markers?)", abnormal=False),
    _c("azygos fissure", OTHER, (), r"azygo(?:s|us) (?:fissure|lobe)", abnormal=False),
)

CONCEPT_BY_NAME: dict[str, Concept] = {c.name: c for c in CONCEPTS}


_ANY_FIRST = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def _first_chars(pattern: str) -> frozenset[str]:
    """The characters a match of ``pattern`` can start with (lower-case text assumed)."""
    def seq(items) -> tuple[set[str], bool]:
        out: set[str] = set()
        for op, av in items:
            chars, nullable = item(op, av)
            out |= chars
            if not nullable:
                return out, False
        return out, True

    def item(op, av) -> tuple[set[str], bool]:
        if op is LITERAL:
            return {chr(av)}, False
        if op is IN:
            chars: set[str] = set()
            for sub_op, sub_av in av:
                if sub_op is LITERAL:
                    chars.add(chr(sub_av))
                elif sub_op is RANGE:
                    chars.update(chr(c) for c in range(sub_av[0], sub_av[1] + 1))
                elif sub_op in (CATEGORY, NEGATE):
                    return set(_ANY_FIRST), False
            return chars, False
        if op is SUBPATTERN:
            return seq(av[3])
        if op is BRANCH:
            chars, nullable = set(), False
            for branch in av[1]:
                c, n = seq(branch)
                chars |= c
                nullable = nullable or n
            return chars, nullable
        if op in (MAX_REPEAT, MIN_REPEAT):
            chars, nullable = seq(av[2])
            return chars, nullable or av[0] == 0
        if op in (AT, ASSERT, ASSERT_NOT):
            return set(), True
        if op is ANY:
            return set(_ANY_FIRST), False
        return set(_ANY_FIRST), False

    chars, _ = seq(sre_parse.parse(pattern))
    return frozenset(chars)


def _concept_buckets() -> dict[str, list[tuple[int, int, str]]]:
    """Every surface form, longest first, bucketed by the characters it can start with."""
    alternatives = []
    for i, concept in enumerate(CONCEPTS):
        for j, pattern in enumerate(concept.patterns):
            alternatives.append((len(pattern), i, j, pattern))
    alternatives.sort(key=lambda a: (-a[0], a[1], a[2]))
    buckets: dict[str, list[tuple[int, int, str]]] = {}
    for _, i, j, pattern in alternatives:
        for char in sorted(_first_chars(pattern)):
            buckets.setdefault(char, []).append((i, j, pattern))
    return dict(sorted(buckets.items()))


def _bucket_alternation(char: str, members: list[tuple[int, int, str]],
                        groups: dict[str, Concept]) -> str:
    parts = []
    for i, j, pattern in members:
        group = f"c{i}_{j}_{ord(char)}"
        groups[group] = CONCEPTS[i]
        parts.append(f"(?P<{group}>{pattern})")
    return "|".join(parts)


@lru_cache(maxsize=1)
def concept_alternation() -> tuple[re.Pattern, dict[str, Concept]]:
    """One alternation over every surface form, longest first, so that "pericardial effusion"
    wins over "effusion" and "subcutaneous emphysema" over "emphysema"; and the concept of
    each of its named groups. The alternatives are bucketed by the character they can start
    with, each bucket behind a one-character lookahead.

    What the engine matches is this expression; ``concept_mentions`` finds its matches faster
    by trying one bucket at each word start, and the tests hold it to this. Compiled when
    first asked for, not at import: compiling it costs every process that labels a report
    0.07 s of CPU, and the engine itself never runs it."""
    groups: dict[str, Concept] = {}
    branches = [f"(?={re.escape(char)})(?:{_bucket_alternation(char, members, groups)})"
                for char, members in _concept_buckets().items()]
    regex = re.compile(r"(?<![\w-])(?:" + "|".join(branches) + r")(?![\w])")
    return regex, groups


def _compile_concept_starts() -> tuple[re.Pattern, dict[str, re.Pattern], dict[str, Concept]]:
    """``concept_alternation()`` taken apart for ``concept_mentions``: the word starts it can
    match at, per first character that character's bucket, to be tried at a start, and the
    concept of each named group. Scanning a sentence's word starts and trying one bucket at
    each finds the same matches (same alternatives, same order, same boundaries) about four
    times faster than ``finditer`` of the whole alternation, whose engine still tries the
    buckets' lookaheads one by one at every word start."""
    groups: dict[str, Concept] = {}
    buckets = {char: re.compile(rf"(?:{_bucket_alternation(char, members, groups)})(?![\w])")
               for char, members in _concept_buckets().items()}
    starts = re.compile(r"(?<![\w-])[" + re.escape("".join(buckets)) + "]")
    return starts, buckets, groups


_CONCEPT_STARTS, _CONCEPT_BUCKETS, _CONCEPT_BY_GROUP = _compile_concept_starts()


@lru_cache(maxsize=16384)
def concept_mentions(lower: str) -> tuple[tuple[Concept, int, int], ...]:
    """(concept, start, end) of each match of ``concept_alternation()`` in ``lower``, cached
    per text: the one large alternation is the engine's costliest expression, and the
    findings, the report context and the radiographic checks ask it about the same
    sentences."""
    return tuple(_scan(lower))


def _scan(lower: str) -> Iterator[tuple[Concept, int, int]]:
    end = 0
    for start in _CONCEPT_STARTS.finditer(lower):
        if start.start() < end:
            continue  # inside the last match: finditer goes on after a match's end
        match = _CONCEPT_BUCKETS[lower[start.start()]].match(lower, start.start())
        if match:
            yield _CONCEPT_BY_GROUP[match.lastgroup], match.start(), match.end()
            end = match.end()


def concept_spans(lower: str) -> list[tuple[int, int]]:
    """The (start, end) of each match of ``concept_alternation()`` in ``lower`` (cached, see
    above)."""
    return [(a, b) for _, a, b in concept_mentions(lower)]


def is_concept_form(text: str) -> bool:
    """``text`` is, whole, a surface form of the vocabulary (``concept_alternation()``'s
    ``fullmatch``): only the bucket of its first character can match it whole."""
    bucket = _CONCEPT_BUCKETS.get(text[:1])
    return bucket is not None and bucket.fullmatch(text) is not None


@lru_cache(maxsize=16384)
def mentions_concept(text: str) -> bool:
    """``text`` names a concept of the vocabulary (a match of ``concept_alternation()``, whose
    surface forms are lower-case). Cached apart from ``concept_mentions``: it is asked about
    clauses and gaps between words (the library's fillers of a gap, the same few hundred
    wordings for every report), which would push sentences out of that cache."""
    return next(_scan(text), None) is not None


# A mention whose own words say the heart is only at the upper limit of normal is uncertain.
BORDERLINE_NORMAL_RE = re.compile(r"upper limits? of normal|top(?:-| )normal|high(?:-| )normal|"
                                  r"upper normal")

# A device named as the owner of its tip ("the tip of the right PICC is not visualized") is
# there: the words deny that its tip is seen, and they presuppose the device. Searched in the
# words before a device's mention, up to it.
DEVICE_TIP_OWNER_RE = re.compile(r"\btips? of (?:the |a |an |this |its |his |her )?"
                                 r"(?:[\w-]+ ){0,4}$")

# ---- attributes -----------------------------------------------------------------------------

LATERALITY_RE = re.compile(
    r"\b(?P<bilateral>bilateral(?:ly)?|both|bi(?:basilar|basal|apical|hilar)|bibasal)\b"
    r"|\b(?P<left>(?:left(?:-sided)?|lt)\b|l(?=[ul]l\b))"
    r"|\b(?P<right>(?:right(?:-sided)?|rt)\b|r(?=[uml]l\b))")

_SEVERITY_FORMS = {
    "trace": "trace", "tiny": "trace", "minimal": "minimal", "minimally": "minimal",
    "mild": "mild", "mildly": "mild", "slight": "mild", "slightly": "mild", "minor": "mild",
    "small": "small", "moderate": "moderate", "moderately": "moderate",
    "moderate-to-large": "moderate to large", "small-to-moderate": "small to moderate",
    "severe": "severe", "severely": "severe", "marked": "severe", "markedly": "severe",
    "large": "large", "extensive": "large", "massive": "large", "huge": "large",
    "borderline": "borderline", "subtle": "minimal", "faint": "minimal",
}
SEVERITY_RE = re.compile(
    r"\b(?:(?P<a>small|mild|moderate|minimal|trace) (?:to|-) (?P<b>moderate|large|severe|small))\b"
    r"|\b(?P<one>" + "|".join(sorted(_SEVERITY_FORMS, key=len, reverse=True)) + r")\b")


def severity_of(match: re.Match) -> str:
    if match.group("a"):
        return f"{_SEVERITY_FORMS[match.group('a')]} to {_SEVERITY_FORMS[match.group('b')]}"
    return _SEVERITY_FORMS[match.group("one")]


# Location vocabulary: surface form -> normalised location. Lobes first (most specific).
_LOCATIONS = (
    (r"upper lobes?|upper lobar|[rl]ul", "upper lobe"),
    (r"middle lobes?|rml", "middle lobe"),
    (r"lower lobes?|lower lobar|[rl]ll", "lower lobe"),
    (r"lingul(?:a|ar)", "lingula"),
    (r"(?:bi)?bas(?:e|es|ilar|al|ally)|lung bases?|infrahilar", "base"),
    (r"(?:bi)?ap(?:ex|ices|ical)", "apex"),
    (r"(?:peri|para)hilar|hil(?:um|a|ar)", "perihilar"),
    (r"retrocardiac", "retrocardiac"),
    (r"mid ?lungs?|mid(?:dle)? lung (?:zones?|fields?)|mid[- ]lung", "midlung"),
    (r"upper lungs?|upper lung (?:zones?|fields?)", "upper lung"),
    (r"lower lungs?|lower lung (?:zones?|fields?)", "lower lung"),
    (r"costophrenic (?:angles?|sulc(?:us|i))", "costophrenic angle"),
    (r"(?:minor|major|horizontal|oblique) fissures?|fissur(?:e|es|al)", "fissure"),
    (r"periphera(?:l|lly)|subpleural", "peripheral"),
    (r"central(?:ly)?", "central"),
    (r"mediastin(?:um|al)|paratracheal|subcarinal|aortopulmonary", "mediastinum"),
    (r"(?:anterior|posterior|lateral)?\s?ribs?|costal", "rib"),
    (r"(?:thoracic|cervical|lumbar|thoracolumbar) spine|spin(?:e|al)|"
     r"vertebra(?:e|l)?(?: bod(?:y|ies))?"
     r"|[tl]-?spine|[tcl]\d{1,2}", "spine"),
    (r"clavicles?|clavicular", "clavicle"),
    (r"scapula(?:e|r)?", "scapula"),
    (r"humer(?:us|al)|shoulders?", "shoulder"),
    (r"stern(?:um|al)", "sternum"),
    (r"chest wall", "chest wall"),
    (r"soft tissues?", "soft tissue"),
    (r"breasts?", "breast"),
    (r"axill(?:a|ae|ary)", "axilla"),
    (r"neck|laryn(?:x|geal)|pharyn(?:x|geal)", "neck"),
    (r"abdom(?:en|inal)|upper quadrant|subdiaphragmatic|gastric|bowel|colon|liver|hepatic|"
     r"splen(?:ic)?",
     "abdomen"),
    (r"thyroid", "thyroid"),
)
_LOCATION_NAMES = {}
_loc_parts = []
for _k, (_pattern, _name) in enumerate(_LOCATIONS):
    _LOCATION_NAMES[f"l{_k}"] = _name
    _loc_parts.append(f"(?P<l{_k}>{_pattern})")
LOCATION_RE = re.compile(r"\b(?:" + "|".join(_loc_parts) + r")\b")
LOCATION_NAMES = _LOCATION_NAMES

# Sites outside the lung fields: a lung observation placed there is not a lung finding.
NON_LUNG_SITES = frozenset({"mediastinum", "rib", "spine", "clavicle", "scapula", "shoulder",
                            "sternum", "chest wall", "soft tissue", "breast", "axilla", "neck",
                            "abdomen", "thyroid"})
LUNG_SITES = frozenset({"upper lobe", "middle lobe", "lower lobe", "lingula", "base", "apex",
                        "perihilar", "retrocardiac", "midlung", "upper lung", "lower lung",
                        "peripheral", "central", "costophrenic angle", "fissure"})

# Comparison with a prior exam: surface form -> normalised cue (RA-RRG's comparative wording).
COMPARATIVE_TERMS: tuple[str, ...] = (
    "unchanged", "no change", "no interval change", "no significant change", "changed",
    "change", "stable", "stably", "similar", "again", "again noted", "again seen",
    "redemonstrated", "re-demonstrated", "redemonstration", "persistent", "persists", "persisting",
    "remains", "remain", "remained", "continued", "continues", "improved", "improving",
    "improvement", "worsened", "worsening", "worse", "increased", "increasing", "increase",
    "decreased", "decreasing", "decrease", "new", "newly", "interval", "interim", "since",
    "prior", "previous", "previously", "compared", "comparison", "resolved", "resolving",
    "resolution", "progressed", "progression", "progressive", "developing", "developed",
    "enlarging", "enlarged since", "smaller", "larger", "less", "more", "grossly unchanged",
    "otherwise unchanged", "now", "no longer", "cleared", "clearing", "evolving", "recurrent",
    "recurrence", "old", "chronic", "known", "healing",
)
# The cues that on their own establish a comparison; "old", "chronic", "more", "less" only
# describe and are left to key-phrase cleaning.
_CUE_FORMS = {
    "unchanged": "unchanged", "no change": "unchanged", "no interval change": "unchanged",
    "no significant change": "unchanged", "not changed": "unchanged",
    "grossly unchanged": "unchanged",
    "otherwise unchanged": "unchanged", "stable": "stable", "stably": "stable", "similar": "stable",
    "again": "again", "again noted": "again", "again seen": "again", "redemonstrated": "again",
    "re-demonstrated": "again", "redemonstration": "again", "persistent": "persistent",
    "persists": "persistent", "persisting": "persistent", "remains": "persistent",
    "remain": "persistent", "remained": "persistent", "continued": "persistent",
    "continues": "persistent", "improved": "improved", "improving": "improved",
    "improvement": "improved", "worsened": "worsened", "worsening": "worsened", "worse": "worsened",
    "increased": "increased", "increasing": "increased", "increase": "increased",
    "enlarging": "increased", "progressed": "worsened", "progression": "worsened",
    "decreased": "decreased", "decreasing": "decreased", "decrease": "decreased",
    "smaller": "decreased", "new": "new", "newly": "new", "developing": "new", "developed": "new",
    "interval": "interval", "interim": "interval", "since": "compared", "prior": "compared",
    "previous": "compared", "previously": "compared", "compared": "compared",
    "comparison": "compared", "resolved": "resolved", "resolving": "improved",
    "resolution": "resolved", "no longer": "resolved", "cleared": "resolved",
    "clearing": "improved",
    "changed": "changed", "change": "changed", "recurrent": "new", "recurrence": "new",
}
COMPARISON_RE = re.compile(
    r"\b(?:" + "|".join(re.escape(t).replace(r"\ ", r"\s+")
                        for t in sorted(_CUE_FORMS, key=len, reverse=True)) + r")\b")
# Comparative wording as RA-RRG's keyword detector sees it (every term in COMPARATIVE_TERMS).
COMPARATIVE_RE = re.compile(
    r"\b(?:" + "|".join(re.escape(t).replace(r"\ ", r"\s+")
                        for t in sorted(COMPARATIVE_TERMS, key=len, reverse=True)) + r")\b",
    re.IGNORECASE)


# When a sentence has several cues, the one that says most wins ("interval improvement":
# improved); "interval" and "compared" only say that there was a prior exam.
_CUE_PRIORITY = ("resolved", "new", "worsened", "improved", "increased", "decreased",
                 "unchanged", "stable", "again", "persistent", "changed", "interval", "compared")
_TIME_RE = re.compile(r"\b(?:interval|since|prior|previous|compared|comparison|now|from|"
                      r"earlier|recent)\b")


def comparison_cue(text: str, timed: bool | None = None) -> str | None:
    """The normalised comparison cue of a lower-cased text fragment, or None. ``timed``: the
    caller knows the text speaks of a comparison (its report compares with a prior exam), so
    "increased" and "decreased" are changes even with no time word in the fragment."""
    cues = set()
    for m in COMPARISON_RE.finditer(text):
        word = " ".join(m.group().split())
        # "increased opacity" is a description unless the text points at time ("since")
        if word in ("increased", "increase", "decreased", "decrease", "change", "changed"):
            if timed is None:
                timed = bool(_TIME_RE.search(text))
            if not timed:
                continue
        cues.add(_CUE_FORMS[word])
    return next((c for c in _CUE_PRIORITY if c in cues), None)


# ---- normal statements -------------------------------------------------------------------------

# Groups of observations that a normal statement about a structure states absent.
HEART_OBS = ("cardiomegaly",)
MEDIASTINUM_OBS = ("enlarged cardiomediastinum",)
LUNG_OBS = ("opacity", "consolidation", "edema", "pneumonia", "atelectasis", "nodule", "mass")
PLEURA_OBS = ("pleural effusion", "pneumothorax")
BONE_OBS = ("fracture",)
ACUTE_OBS = ("opacity", "consolidation", "pneumonia", "edema", "pleural effusion",
             "pneumothorax")
VASCULAR_OBS = ("edema",)
LUNG_VOLUME_OBS = ("hypoinflation", "hyperinflation")
HILAR_OBS = ("hilar enlargement",)

_NORMAL = (r"(?:normal|within normal limits|wnl|unremarkable|clear|negative|intact|sharp|"
           r"not enlarged|normal in size|of normal size|normal-sized|normal sized|"
           r"within the limits of normal|grossly normal|maintained|preserved|satisfactory|"
           r"well-?expanded|well aerated|normally (?:expanded|aerated|inflated))")
NORMAL_PREDICATE_RE = re.compile(r"\b" + _NORMAL + r"\b")
# "Intact" calls bones (and devices: "leads intact") normal, never a heart or a lung.
NORMAL_BUT_INTACT_RE = re.compile(r"\b(?!intact\b)" + _NORMAL + r"\b")
NOT_NORMAL_RE = re.compile(r"\bupper limits? of normal|top(?:-| )normal|high(?:-| )normal|"
                            r"\bnot (?:normal|clear|unremarkable|intact)|\bexcept\b|"
                            r"\bother than\b|\bbut\b|\bhowever\b|\babnormal")

# A structure word that only names a device, a view or a region is no subject of a normal
# statement: "cardiac device ..., leads intact", "views of the chest", "chest wall".
_NOT_A_SUBJECT = (r"(?! (?:device|monitor\w*|pacemaker|pacer|defibrillator|leads?|tubes?|wall|"
                  r"ports?|catheters?|drains?|x-?rays?|radiographs?|films?|views?|volumes?)\b)")
# Structure words -> (observations stated absent when the sentence calls them normal, the short
# phrase that says so).
NORMAL_SUBJECTS = (
    (re.compile(r"\b(?:heart|cardiac|cardio-?mediastinal|cardiomegaly)\b" + _NOT_A_SUBJECT),
     HEART_OBS, "normal heart size"),
    (re.compile(r"\b(?:mediastin(?:um|al)|cardio-?mediastinal)\b"), MEDIASTINUM_OBS,
     "normal mediastinum"),
    (re.compile(r"\b(?:(?:lungs?|lung fields?|pulmonary parenchyma|parenchyma|lung parenchyma|"
                r"airspaces?|air spaces?)|(?<!of the )chest)\b" + _NOT_A_SUBJECT), LUNG_OBS,
     "clear lungs"),
    (re.compile(r"\b(?:(?:pleura|pleural spaces?|pleural surfaces?|costophrenic (?:angles?|sulci)|"
                r"sulci)|(?<!of the )chest)\b" + _NOT_A_SUBJECT), PLEURA_OBS,
     "clear pleural spaces"),
    (re.compile(r"\blung volumes?\b"), LUNG_VOLUME_OBS, "normal lung volumes"),
    (re.compile(r"\bhil(?:a|um|ar (?:contours?|structures?|regions?|shadows?))\b"), HILAR_OBS,
     "normal hila"),
    (re.compile(r"\b(?:bones?|bony|osseous|skeletal|skeleton|ribs?|thorax|bony thorax|"
                r"visualized osseous|osseous structures)\b"), BONE_OBS, "intact bones"),
    (re.compile(r"\b(?:pulmonary vascular(?:ity)?|vasculature|vascularity|pulmonary vessels|"
                r"vascular markings)\b"), VASCULAR_OBS, "normal pulmonary vasculature"),
)
GLOBAL_NORMAL_PHRASE = "no acute cardiopulmonary abnormality"
GLOBAL_BONE_PHRASE = "no acute osseous abnormality"

# "No acute cardiopulmonary abnormality", "negative chest", "no active disease": the acute
# observations are absent.
GLOBAL_NORMAL_RE = re.compile(
    r"\b(?:no|without|negative for)\b[\w ,/-]{0,40}?\b(?:acute|active|significant|"
    r"radiographic(?:ally)?|interval|focal|definite)?\b[\w ,/-]{0,30}?"
    r"\b(?:cardiopulmonary|cardiothoracic|pulmonary|intrathoracic|chest|thoracic|lung|"
    r"pleuropulmonary)\b[\w ,/-]{0,20}?"
    r"\b(?:abnormalit(?:y|ies)|disease|process(?:es)?|findings?|pathology|change|"
    r"radiographic findings?|abnormal findings?|problem)\b"
    r"|\b(?:normal|negative|clear|unremarkable) (?:chest|exam(?:ination)?|study|radiograph|"
    r"chest (?:x-?ray|radiograph|film|study|exam))\b"
    r"|\bchest (?:is )?(?:normal|negative|clear|unremarkable)\b"
    r"|\bno (?:acute|active) (?:disease|abnormalit(?:y|ies)|findings?|process)\b")
GLOBAL_BONE_RE = re.compile(
    r"\b(?:no|without)\b[\w ,/-]{0,30}?\b(?:bony|bone|osseous|skeletal)\b[\w ,/-]{0,20}?"
    r"\b(?:abnormalit(?:y|ies)|injur(?:y|ies)|lesions?|findings?|process|disease|pathology)\b")

# ---- relations between observations ------------------------------------------------------------

# child -> parents: a report stating the child states the parent too ("consolidation" is an
# "opacity"; every tube is a "support device"). The hierarchy file's ``is_a`` rows
# (workers/nlp/rules/hierarchy.tsv), which follow CheXpert's label hierarchy for the lung.
PARENTS: dict[str, tuple[str, ...]] = HIERARCHY.parents

# Observations close enough that stating one for the other is a partial, not a full, match:
# the hierarchy file's ``similar`` rows.
SIMILAR: tuple[frozenset[str], ...] = HIERARCHY.similar


def ancestors(observation: str) -> frozenset[str]:
    """Every observation that ``observation`` implies (not including itself)."""
    out: set[str] = set()
    stack = list(PARENTS.get(observation, ()))
    while stack:
        parent = stack.pop()
        if parent not in out:
            out.add(parent)
            stack.extend(PARENTS.get(parent, ()))
    return frozenset(out)


# Parents whose children are near-synonyms (a tube for another tube, a nodule for a mass);
# children of "opacity" are different diagnoses (atelectasis is not pneumonia).
_CLOSE_SIBLINGS = frozenset({"support device", "lesion"})


def similar(a: str, b: str) -> bool:
    """Listed as close in ``SIMILAR``, or siblings under a parent in ``_CLOSE_SIBLINGS``."""
    if a == b:
        return True
    if any(a in g and b in g for g in SIMILAR):
        return True
    shared = set(PARENTS.get(a, ())) & set(PARENTS.get(b, ()))
    return bool(shared & _CLOSE_SIBLINGS)
