"""A replaced finding restored from the sentence's own words: a bone, a fracture's grade or a
rib's place around the gap (workers/correction/own_words.py)."""
from collections import Counter

from tests.workers.library.fakes import make_library
from workers.correction.own_words import fracture_wording
from workers.correction.restore import gap_of, restore
from workers.study import StudyContext


def _wording(sentence, term):
    start = sentence.index(term)
    _, _, words, a, b = gap_of(sentence, start, start + len(term))
    return fracture_wording(words, a, b)


def test_a_bone_or_a_fracture_word_around_the_gap_calls_for_a_fracture():
    assert _wording("Possible nondisplaced appendicitis of the right 1st rib.",
                    "appendicitis") == "fracture"
    assert _wording("Multiple remote cirrhosis again", "cirrhosis") == "rib fractures"
    assert _wording("A chronic-appearing right posterolateral fifth pancreatitis appears "
                    "unchanged.", "pancreatitis") == "rib fracture"
    assert _wording("Ulcerative colitis of a mid thoracic vertebral", "Ulcerative colitis") \
        == "compression fracture"
    assert _wording("There is deformity of some of the right upper ribs consistent with old "
                    "hemorrhoids.", "hemorrhoids") == "rib fractures"


def test_an_article_makes_it_one_and_a_plural_verb_several():
    assert _wording("Loss of height of several vertebral bodies including a moderate "
                    "thoracic cholecystitis.", "cholecystitis") == "compression fracture"
    assert _wording("Healed hepatitis are seen.", "hepatitis") == "rib fractures"


def test_no_bone_and_no_fracture_word_calls_for_nothing():
    assert _wording("Mild cirrhosis.", "cirrhosis") is None
    assert _wording("Small right hepatitis is unchanged.", "hepatitis") is None
    # an old finding is no fracture by age alone ("old granulomatous disease")
    assert _wording("Old pancreatitis.", "pancreatitis") is None


def test_the_gap_does_not_take_in_a_fracture_word():
    sentence = "Multiple old left-sided posterolateral gastric cancer."
    start = sentence.index("cancer")
    g_start, g_end, *_ = gap_of(sentence, start, start + len("cancer"), background=Counter())
    assert sentence[g_start:g_end] == "gastric cancer"


def test_restore_prefers_the_sentences_words_to_the_librarys_contexts():
    library = make_library([(f"iu-{n}", "FINDINGS: Multiple remote pleural effusions again.\n"
                                        "IMPRESSION: Normal.") for n in range(6)])
    ctx = StudyContext("FINDINGS: Heart size is normal. Multiple remote cirrhosis again.\n"
                       "IMPRESSION: No acute process.", library=library)
    index = next(i for i in ctx.image_sentences if "cirrhosis" in ctx.sentence(i).text)
    sentence = ctx.sentence(index).text
    start = sentence.index("cirrhosis")
    found = restore(ctx, index, start, start + len("cirrhosis"), lambda words: True)
    assert found is not None and found.source == "sentence"
    assert found.words == "rib fractures" and "'remote'" in found.detail
