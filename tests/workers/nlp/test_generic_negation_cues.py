"""Generic clinical negation cues (issue 31): what indications, histories and impressions write
beside radiology's own wording, one sentence per kind of cue, and the look-alikes that deny
nothing. bench/negation_recall.py measures the whole set against medspacy's default rules."""
import pytest

from workers.nlp.polarity import assertion_at


def _at(sentence: str, target: str):
    start = sentence.lower().index(target.lower())
    return assertion_at(sentence, start, start + len(target))


@pytest.mark.parametrize("sentence, target", [
    ("The patient denies hemoptysis.", "hemoptysis"),                        # a denial
    ("Patient declined the biopsy.", "biopsy"),                               # a refusal
    ("Lack of pleural thickening.", "pleural thickening"),                   # a lack
    ("She never had a pneumothorax.", "pneumothorax"),                       # never had
    ("Cough not associated with hemoptysis.", "hemoptysis"),                 # a denying phrase
    ("Not known to have emphysema.", "emphysema"),
    ("The opacity does not look like a mass.", "mass"),
    ("Abdomen unremarkable for free air.", "free air"),
    ("The pattern is inconsistent with edema.", "edema"),
    ("Ruled out for pulmonary embolism.", "pulmonary embolism"),             # ruled out, forward
    ("The lateral view fails to reveal a nodule.", "nodule"),                # a study fails to show
    ("The images did not show a fracture.", "fracture"),
    ("The lungs are negative for consolidation.", "consolidation"),          # after a verb
    ("Tuberculosis screening was negative.", "tuberculosis"),                # negative, after
    ("Aspiration is unlikely.", "aspiration"),                               # unlikely, after
    ("The density is unlikely to represent a mass.", "mass"),                # unlikely, before
    ("No history of pneumothorax.", "pneumothorax"),                         # a denied history
    ("The previously seen nodule is not identified.", "nodule"),             # gone since before
])
def test_a_generic_cue_negates(sentence, target):
    assert _at(sentence, target).negated, sentence


@pytest.mark.parametrize("sentence, target, reading", [
    ("No definite change in the right pleural effusion.", "pleural effusion", "affirmed"),
    ("No increase in the left pneumothorax.", "pneumothorax", "affirmed"),
    ("Gram negative pneumonia.", "pneumonia", "affirmed"),
    ("No effusion, yet a small pneumothorax is present.", "pneumothorax", "affirmed"),
    ("No consolidation as a cause of the fever.", "fever", "affirmed"),
    ("This is not necessarily an infection.", "infection", "affirmed"),
    ("Pneumonia cannot be excluded.", "pneumonia", "uncertain"),
    ("Infection has not been ruled out.", "infection", "uncertain"),
    ("The patient is at risk of aspiration.", "aspiration", "uncertain"),
    ("Hx of sarcoidosis.", "sarcoidosis", "historical"),
])
def test_a_look_alike_does_not_negate(sentence, target, reading):
    polarity = _at(sentence, target)
    assert not polarity.negated, sentence
    assert getattr(polarity, reading), (sentence, polarity)
