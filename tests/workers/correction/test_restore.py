"""Restoring a replaced finding without a library worded like the report, and denials that
lost their "no" told by their own words."""
from tests.workers.library.fakes import make_library
from workers.correction import correct
from workers.correction.builtin import _keeps_own_words, denial_shape_signals, rules_out
from workers.correction.restore import ContextModel, _plain_name, gap_of, restore
from workers.study import StudyContext


def _ctx(text, library=None):
    return StudyContext(text, library=library)


def test_the_other_section_restores_a_finding_in_the_same_slot():
    ctx = _ctx("FINDINGS: There is a small right pleural effusion. No pneumothorax.\n"
               "IMPRESSION: Small right cholecystitis.")
    sentence = ctx.sentence(2).text
    start = sentence.index("cholecystitis")
    found = restore(ctx, 2, start, start + len("cholecystitis"), lambda words: True)
    assert found is not None and found.source == "report" and found.words == "pleural effusion"
    assert "sentence 1" in found.detail


def test_a_mention_in_another_slot_is_not_restored():
    ctx = _ctx("FINDINGS: Heart size is normal. No pleural effusion.\nIMPRESSION: Chronic "
               "cholecystitis.")
    sentence = ctx.sentence(2).text
    start = sentence.index("cholecystitis")
    assert restore(ctx, 2, start, start + len("cholecystitis"), lambda w: True) is None


def _gap(sentence, term, background=None):
    start = sentence.index(term)
    g_start, g_end, *_ = gap_of(sentence, start, start + len(term), background)
    return sentence[g_start:g_end]


def test_the_gap_takes_in_the_rest_of_a_disease_name_but_not_a_side_or_size():
    library = ContextModel([["Small right pleural effusion."], ["Mild cardiomegaly."]])
    assert _gap("Small right gastroesophageal reflux disease increased.", "reflux",
                library.background) == "gastroesophageal reflux disease"
    assert _gap("Gastroesophageal reflux disease, if any, are small.", "reflux",
                library.background) == "Gastroesophageal reflux disease"  # stops at the comma
    # a report's own verb is context, not part of the name
    assert _gap("Opacities could reflect cirrhosis but infection is not excluded.",
                "cirrhosis", library.background) == "cirrhosis"


def test_the_context_model_reads_the_words_either_side():
    reports = [["Multiple remote rib fractures."], ["Remote rib fractures on the left."],
               ["Old rib fractures."], ["Small left pleural effusion."],
               ["Small right pleural effusion."], ["Moderate left pleural effusion."],
               ["Remote rib fractures."], ["Left pleural effusion."],
               ["Remote rib fractures again."], ["Small pleural effusion."]]
    model = ContextModel(reports * 3)
    [(_, best, _), *_] = model.rank([(-2, "multiple"), (-1, "remote"), (1, "again")])
    assert best == ("rib", "fractures")
    [(_, best, _), *_] = model.rank([(-2, "small"), (-1, "left"), (1, "</s>")])
    assert best == ("pleural", "effusion")


def test_a_finding_worded_as_a_denial_is_caught_and_its_denial_restored():
    for text in ("Definite pneumothorax.", "Obvious pneumothorax.",
                 "Evidence of pneumothorax, although the sensitivity to detect a pneumothorax "
                 "is diminished given supine technique.", "Pneumothorax is identified.",
                 "Displaced fractures are demonstrated.", "Displaced fractures identified."):
        ctx = _ctx("FINDINGS: Heart size is normal. " + text)
        assert [i for i, _ in denial_shape_signals(ctx)] == [1], text
    for text in ("No definite pneumothorax.", "Small right apical pneumothorax.",
                 "There is evidence of prior vertebroplasty at the thoracolumbar junction.",
                 "Small right pneumothorax is identified.", "Cardiomegaly is noted.",
                 "Pleural effusions.",
                 "No pneumothorax, although the sensitivity to detect a pneumothorax is "
                 "diminished."):
        assert denial_shape_signals(_ctx("FINDINGS: " + text)) == [], text


def test_a_denial_shape_fix_rests_on_the_sentences_own_words():
    result = correct(_ctx("FINDINGS: Heart size is normal. Definite pneumothorax.\n"
                          "IMPRESSION: Normal chest.", make_library()))
    [fix] = [d for d in result.detections if d.sentence_index == 1]
    assert fix.suggestion is not None and "no" in fix.suggestion.lower().split()
    assert fix.evidence["stages"]["correct"]["basis"] == "own_words"


def test_the_verb_after_the_gap_decides_the_number():
    # the library never writes "are" beside a finding, so only the verb's number tells
    reports = [["Pleural effusions."]] * 5 + [["Left pleural effusion."]] * 10
    model = ContextModel(reports)
    [(_, best, _), *_] = model.rank([(-1, "left"), (1, "are")])
    assert best == ("pleural", "effusions")
    [(_, best, _), *_] = model.rank([(-1, "left"), (1, "is")])
    assert best == ("pleural", "effusion")


def test_a_name_ends_with_its_head_noun_and_keeps_its_organ():
    library = ContextModel([["Small right pleural effusion."], ["Mild cardiomegaly."]]
                           + [["Retrocardiac atelectasis."]] * 5)
    # the report's own words after the name are context, not part of it
    assert _gap("There is bibasilar esophageal cancer reflective of lower lobe", "esophageal",
                library.background) == "esophageal cancer"
    # an organ's adjective before a name's head is part of the name ...
    assert _gap("Opacity could reflect thoracic outlet syndrome but infection is not excluded.",
                "syndrome", library.background) == "thoracic outlet syndrome"
    # ... but a place before a name that has its organ is not
    assert _gap("Cardiomegaly with retrocardiac esophageal cancer and a small effusion.",
                "esophageal", library.background) == "esophageal cancer"
    # a word that is a disease's name by its ending ends it
    assert _gap("Pancreatitis despite the projection is unchanged.", "Pancreatitis",
                library.background) == "Pancreatitis"


def test_an_affirmed_gap_is_filled_with_what_reports_affirm():
    # the library names pneumothorax mostly to deny it; "There is unchanged ___." held a
    # finding reports state
    reports = ([["No pneumothorax."], ["There is no pneumothorax."]] * 20
               + [["There is unchanged cardiomegaly."], ["There is mild cardiomegaly."]] * 5)
    model = ContextModel(reports)
    context = [(-3, "<s>"), (-2, "is"), (-1, "unchanged"), (1, "</s>")]
    [(_, affirmed, _), *_] = model.rank(context, negated=False)
    [(_, denied, _), *_] = model.rank([(-1, "no"), (1, "</s>")], negated=True)
    assert affirmed == ("cardiomegaly",) and denied == ("pneumothorax",)


_TWO_STYLES = [(f"lib-{n}", text) for n, text in enumerate(
    ["FINDINGS: There is unchanged cardiomegaly. No pneumothorax.",
     "FINDINGS: There is mild cardiomegaly. No pneumothorax.",
     "FINDINGS: Multiple old rib fractures. No pleural effusion.",
     "FINDINGS: Multiple old left-sided rib fractures. No pneumothorax.",
     "FINDINGS: Old rib fractures. No pneumothorax."] * 3)]


def test_a_whole_disease_name_is_replaced_and_the_fix_rests_on_its_words():
    # "gastric" is the suspect word, "gastric cancer" the name: replacing the whole name
    # deletes no finding of the report (the "cancer" is the substituted words' own)
    result = correct(_ctx("FINDINGS: Heart size is normal. Multiple old left-sided gastric "
                          "cancer.", make_library(_TWO_STYLES)))
    [fix] = [d for d in result.detections if d.sentence_index == 1]
    assert fix.suggestion == "Multiple old left-sided rib fractures."
    assert fix.evidence["stages"]["correct"]["basis"] == "own_words"


def test_a_library_wording_keeps_the_reports_own_words_around_the_term():
    from workers.correction.builtin import _keeps_own_words
    sentence = "There is unchanged diverticulitis."
    start = sentence.index("unchanged")
    gap = (sentence.index("diverticulitis"), len(sentence) - 1)
    assert not _keeps_own_words(sentence, start, gap[1], ("hyperinflation", "of", "the",
                                                         "lungs"), gap)
    assert _keeps_own_words(sentence, start, gap[1], ("unchanged", "cardiomegaly"), gap)


def test_a_finding_the_sentence_already_names_does_not_fill_its_gap():
    # the library's most usual finding between these words is the sentence's own cardiomegaly
    library = make_library([(f"lib-{n}", text) for n, text in enumerate(
        ["FINDINGS: Opacity with cardiomegaly and a small left pleural effusion."] * 10
        + ["FINDINGS: Retrocardiac atelectasis. No pneumothorax."] * 6)])
    result = correct(_ctx("FINDINGS: No pneumothorax. Unchanged moderate cardiomegaly with "
                          "retrocardiac esophageal cancer and a small left pleural effusion.",
                          library))
    [fix] = [d for d in result.detections if d.sentence_index == 1]
    assert fix.suggestion == ("Unchanged moderate cardiomegaly with retrocardiac atelectasis "
                              "and a small left pleural effusion.")


def test_between_equal_slots_the_sentence_the_gap_restates_gives_the_finding():
    # both findings sentences write "mild" before a finding; the impression restates the one
    # with the small bilateral pleural effusions
    ctx = _ctx("FINDINGS: There is mild cardiomegaly with dense annular calcifications. "
               "There is mild pulmonary edema, new with small bilateral pleural effusions.\n"
               "IMPRESSION: Mild tracheitis with small bilateral pleural effusions.")
    index = next(i for i in ctx.image_sentences if "tracheitis" in ctx.sentence(i).text)
    sentence = ctx.sentence(index).text
    start = sentence.index("tracheitis")
    found = restore(ctx, index, start, start + len("tracheitis"), lambda words: True)
    assert found is not None and found.source == "report"
    assert found.words == "pulmonary edema"


def test_an_organs_adjective_belongs_to_the_name_of_a_disease_a_film_cannot_show():
    library = ContextModel([["Small bilateral pleural effusions."]] * 5
                           + [["Multiple pulmonary nodules."]] * 5
                           + [["Stable retrocardiac atelectasis."]] * 5)
    assert _gap("Persistent small bilateral pulmonary embolism, larger on the right.",
                "embolism", library.background) == "pulmonary embolism"
    # a place before the name is the report's ("retrocardiac"), not the disease's
    assert _gap("Stable retrocardiac gastroparesis, likely atelectasis.", "gastroparesis",
                library.background) == "gastroparesis"


def _library_fix(text, term):
    library = make_library([(f"ref-{n}", "FINDINGS: Right pleural effusion is small.\n"
                                         "IMPRESSION: Mild cardiomegaly.") for n in range(6)]
                           + [(f"rib-{n}", "FINDINGS: Right rib fractures again.\n"
                                           "IMPRESSION: Normal.") for n in range(3)])
    result = correct(_ctx(text, library))
    return [d.suggestion for d in result.detections if term in d.evidence["original"]]


def test_a_finding_stated_on_the_other_side_may_stand_in_a_sided_gap():
    # "left pleural effusion" elsewhere in the section does not rule out a right one
    [suggestion] = _library_fix("FINDINGS: Heart size is normal.\nIMPRESSION: Right hepatitis "
                                "is small. Residual left pleural effusion small.", "hepatitis")
    assert suggestion == "Right pleural effusion is small."
    # on the same side, or with no side, it does
    [suggestion] = _library_fix("FINDINGS: Heart size is normal.\nIMPRESSION: Right hepatitis "
                                "is small. Residual right pleural effusion small.", "hepatitis")
    assert suggestion is None or "pleural effusion is small" not in suggestion


def test_only_a_finding_of_one_side_is_let_into_a_gap_of_the_other():
    assert not rules_out("pleural effusion", {"left"}, "right")
    assert rules_out("pleural effusion", {"left", None}, "right")
    assert rules_out("pleural effusion", {"right"}, "right")
    assert rules_out("pleural effusion", {"left"}, None)
    # the engine may give a heart a side ("edema in the left lung as does cardiac enlargement")
    assert rules_out("cardiomegaly", {"left"}, "right")
    assert not rules_out("cardiomegaly", None, "right")


def test_a_sentence_that_repeats_the_words_around_a_finding_repeats_the_finding():
    text = ("FINDINGS: The cardiomediastinal silhouette is unremarkable.\n"
            "IMPRESSION: Increased bilateral lower lobe opacities likely reflect pleural "
            "effusion. The bilateral lower lung obstructive sleep apnea appear to have "
            "progressed since the prior study.")
    [suggestion] = _library_fix(text, "apnea")
    assert suggestion == "The bilateral lower lung opacities appear to have progressed since " \
                         "the prior study."
    # not when a third sentence of the section states it already
    [suggestion] = _library_fix(text + " Stable opacities at the apices.", "apnea")
    assert suggestion is None or "lower lung opacities" not in suggestion


def test_the_side_a_sentence_names_counts_where_the_engine_gave_its_finding_none():
    [suggestion] = _library_fix("FINDINGS: Heart size is normal.\nIMPRESSION: Right hepatitis "
                                "is small. Pleural effusion is seen, particularly on the left.",
                                "hepatitis")
    assert suggestion == "Right pleural effusion is small."


def test_a_library_wording_keeps_the_sentences_verb():
    sentence = "There is pulmonary embolism at the right lung base."
    start, end = sentence.index("is"), sentence.index(" at")
    gap = (sentence.index("pulmonary"), end)
    assert not _keeps_own_words(sentence, start, end, ("are", "calcified", "granulomas"), gap)
    assert _keeps_own_words(sentence, start, end, ("is", "a", "calcified", "granuloma"), gap)


def test_a_restoration_names_the_finding_without_the_librarys_grading():
    ranked = [(-8.8, ("subsegmental", "atelectasis"), 21), (-8.9, ("edema",), 8),
              (-10.6, ("atelectasis",), 120)]
    assert _plain_name(ranked[0][1], 21, ranked) == (("atelectasis",), 120)
    assert _plain_name(("airspace", "opacity"), 9, [(-11.9, ("airspace", "opacity"), 9),
                                                    (-12.3, ("opacity",), 56)]) \
        == (("opacity",), 56)
    # without the plain name among the library's wordings there, the wording stays; a place
    # ("rib fractures", "pleural effusion") is no grading
    assert _plain_name(ranked[0][1], 21, ranked[:2]) == (("subsegmental", "atelectasis"), 21)
    assert _plain_name(("rib", "fractures"), 9, [(-1, ("rib", "fractures"), 9),
                                                 (-2, ("fractures",), 17)]) \
        == (("rib", "fractures"), 9)
