"""RadFlag entailment: one table row per rule, the paper's examples included."""
import pytest

from workers.nlp.entailment import Entailment, entail
from workers.nlp.sections import parse_report

R = "FINDINGS: "


@pytest.mark.parametrize("rule, sentence, report, verdict", [
    # 1. negative findings are entailed unless the report states the opposite
    ("negative implied", "No pneumothorax.", R + "Small left pleural effusion.", "complete"),
    ("negative implied (paper)", "No pleural effusion.", R + "Mild cardiomegaly.", "complete"),
    ("negative stated", "No pneumothorax.", R + "No pneumothorax.", "complete"),
    ("negative contradicted (paper)", "No pneumothorax.", R + "There is a pneumothorax.", "none"),
    ("negative contradicted by narrower", "No opacity.", R + "Left lower lobe consolidation.",
     "none"),
    ("negative other side", "No left pleural effusion.", R + "Right pleural effusion.",
     "complete"),
    ("negative vs hedge", "No effusion.", R + "Possible small left effusion.", "partial"),
    ("normal statement contradicted", "The lungs are clear.", R + "Right lower lobe opacity.",
     "none"),
    ("global normal contradicted", "No acute cardiopulmonary abnormality.",
     R + "Small left pleural effusion.", "none"),
    ("global normal implied", "No acute cardiopulmonary abnormality.",
     R + "Mild degenerative change of the spine.", "complete"),
    # 2. positive findings: stated, or a larger finding that includes it
    ("positive stated", "Mild cardiomegaly.", R + "Mild cardiomegaly.", "complete"),
    ("larger finding (paper)", "Atelectasis in the left lung.", R + "Bilateral atelectasis.",
     "complete"),
    ("unsided report finding includes a side", "Left basilar atelectasis.",
     R + "Basilar atelectasis.", "complete"),
    ("narrower report finding implies it", "Left lower lobe opacity.",
     R + "Left lower lobe consolidation.", "complete"),
    ("synonym", "Right lower lobe infiltrate.", R + "Right lower lobe airspace disease.",
     "complete"),
    # 3. partial: severity, size, location, similar device, prior exam, broader, hedge
    ("severity (paper)", "Mild cardiomegaly.", R + "Moderate cardiomegaly.", "partial"),
    ("size", "Small right pleural effusion.", R + "Large right pleural effusion.", "partial"),
    ("side", "Left pleural effusion.", R + "Right pleural effusion.", "partial"),
    ("location", "Opacity in the right upper lobe.", R + "Right lower lobe opacity.",
     "partial"),
    ("similar device", "Endotracheal tube in place.", R + "Tracheostomy tube in place.",
     "partial"),
    ("similar lesion", "Right upper lobe nodule.", R + "Right upper lobe mass.", "partial"),
    ("broader report finding", "Left lower lobe pneumonia.", R + "Left lower lobe opacity.",
     "partial"),
    ("hedge on one side", "Right lower lobe pneumonia.", R + "Possible right lower lobe pneumonia.",
     "partial"),
    ("prior exam (paper)", "Stable cardiomegaly compared to prior.", R + "Cardiomegaly.",
     "partial"),
    ("prior exam without finding", "Compared with the prior study.", R + "Cardiomegaly.",
     "partial"),
    ("prior exam shared", "Stable cardiomegaly.", R + "Cardiomegaly, unchanged.", "complete"),
    # 4. none: positive finding absent from the report, or a contradiction
    ("absent from report (paper)", "Right lower lobe consolidation.",
     R + "Heart size is normal. No effusion.", "none"),
    ("contradiction", "There is a pneumothorax.", R + "No pneumothorax.", "none"),
    ("different diagnosis", "Left lower lobe atelectasis.", R + "Left lower lobe pneumonia.",
     "none"),
    # 5. a sentence takes its weakest finding
    ("weakest finding", "Small left effusion and a right pneumothorax.",
     R + "Small left effusion. No pneumothorax.", "none"),
    # 6. sentences with no finding
    ("no finding", "PA and lateral views of the chest were obtained.", R + "Cardiomegaly.",
     "complete"),
    # 7. unknown disease-like terms
    ("unknown term affirmed", "There is cirrhosis.", R + "Heart normal.", "none"),
    ("unknown term negated", "No cirrhosis.", R + "Heart normal.", "complete"),
    ("unknown term named by report", "Pharyngitis is present.", R + "Pharyngitis.",
     "complete"),
])
def test_entailment_rules(rule, sentence, report, verdict):
    result = entail(sentence, report)
    assert result.verdict == verdict, f"{rule}: {result}"
    assert result.reason


def test_only_image_sections_of_the_report_count():
    report = "INDICATION: Pneumonia.\nFINDINGS: Lungs are clear."
    assert entail("Right lower lobe pneumonia.", report).verdict == "none"


def test_accepts_parsed_report_and_returns_dataclass():
    report = "FINDINGS: Mild cardiomegaly."
    result = entail("Mild cardiomegaly.", parse_report(report))
    assert isinstance(result, Entailment)
    assert result == entail("Mild cardiomegaly.", report)
