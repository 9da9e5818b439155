"""Library counts: sentences, opposite polarity, words, gaps, fluency; the audited report's own
copy never counts."""
from collections import Counter

from workers.library.stats import LibraryStats, loose_signature, signature, tokens_of

LIBRARY = [
    ["No pleural effusion or pneumothorax.", "The lungs are clear."],
    ["No pleural effusion or pneumothorax.", "Heart size is normal."],
    ["No pleural effusion or pneumothorax.", "Small left pleural effusion."],
    ["There is no focal airspace consolidation.", "No pneumothorax."],
    ["Pneumothorax or pleural effusion."],  # the report being audited, in the library too
]


def stats():
    return LibraryStats(LIBRARY)


def test_counts_leave_out_the_excluded_report():
    s = stats()
    assert s.count(tokens_of("No pleural effusion or pneumothorax.")) == 3
    assert s.count(tokens_of("Pneumothorax or pleural effusion.")) == 1
    assert s.count(tokens_of("Pneumothorax or pleural effusion."), exclude=4) == 0


def test_variants_have_the_same_words_and_the_other_polarity():
    s = stats()
    tokens = tokens_of("Pleural effusion or pneumothorax.")
    assert s.variants(tokens) == [(tokens_of("No pleural effusion or pneumothorax."), 3)]
    # "negative for" and "no" are both denials: not a variant of each other
    assert s.variants(tokens_of("Negative for pleural effusion or pneumothorax.")) == []
    assert signature(tokens_of("Lungs clear without effusion.")) == ("lungs", "clear", "with",
                                                                      "effusion")


def test_loose_variants_ignore_function_words():
    s = stats()
    tokens = tokens_of("Focal airspace consolidation is seen.")
    assert loose_signature(tokens) == ("focal", "airspace", "consolidation")
    assert s.variants(tokens) == []
    assert s.variants(tokens, loose=True) == [
        (tokens_of("There is no focal airspace consolidation."), 1)]
    assert s.same_polarity(tokens) == 0


def test_document_frequency_and_phrases():
    s = stats()
    assert s.document_frequency("pneumothorax") == 5
    assert s.document_frequency("pneumothorax", exclude=4) == 4
    assert s.phrase_count(("pleural", "effusion")) == 5
    assert s.phrase_count(("liver", "cancer")) == 0


def test_fillers_between_whole_sentence_and_local_contexts():
    s = stats()
    whole = s.fillers_between(("<s>", "no", "pleural", "effusion", "or"), ("</s>",))
    assert whole == {("pneumothorax",): 3}
    local = s.fillers_between(("no",), ("or", "pneumothorax"))
    assert local == {("pleural", "effusion"): 3}
    assert s.fillers(("no", "pleural", "effusion", "or"), ()) == {("pneumothorax",): 3}


def test_fillers_between_answers_a_repeated_gap_from_what_it_kept(monkeypatch):
    s = stats()
    gap = (("no",), ("or", "pneumothorax"))
    first = s.fillers_between(*gap)
    searched = []

    def search(*question):
        searched.append(question)
        return Counter()

    monkeypatch.setattr(s, "_find_fillers_between", search)
    assert s.fillers_between(*gap) is first
    s.fillers_between(*gap, exclude=4)  # another question: searched
    assert searched == [(gap[0], gap[1], 4, 4)]


def test_fillers_between_keeps_a_bounded_number_of_answers(monkeypatch):
    monkeypatch.setattr("workers.library.stats.FILLERS_CACHE_SIZE", 2)
    s = stats()
    for word in ("no", "pleural", "effusion"):
        s.fillers_between((word,), ("</s>",))
    assert len(s._fillers_between) <= 2
    assert s.fillers_between(("no",), ("or", "pneumothorax")) == {("pleural", "effusion"): 3}


def test_fluency_prefers_the_library_wording():
    s = stats()
    usual = s.fluency(tokens_of("There is no focal airspace consolidation."))
    odd = s.fluency(tokens_of("No there is focal airspace consolidation."))
    assert usual > odd


def _fillers_by_every_slice(library, left, right, max_length=4):
    """What fills ``left ___ right``, found by trying every slice of every sentence."""
    found = Counter()
    for sentences in library:
        for sentence in sentences:
            padded = ("<s>",) + tokens_of(sentence) + ("</s>",)
            for i in range(len(padded) + 1):
                for j in range(i + 1, min(i + max_length, len(padded)) + 1):
                    if (padded[max(i - len(left), 0):i] == left and i >= len(left)
                            and padded[j:j + len(right)] == right and "</s>" not in padded[i:j]):
                        found[padded[i:j]] += 1
    return dict(found)


def test_fillers_between_finds_what_every_slice_finds():
    s = stats()
    words = sorted({w for sentences in LIBRARY for t in sentences for w in tokens_of(t)})
    contexts = [("<s>",), ("</s>",), ("no",), ("or",), ("pleural", "effusion"), ("<s>", "no"),
                ("or", "pneumothorax", "</s>"), ("<s>", "there", "is", "no", "focal", "airspace",
                                                 "consolidation", "or")] + [(w,) for w in words]
    for left in contexts:
        for right in contexts:
            if left[-1:] == ("</s>",) or right[:1] == ("<s>",) or set(left + right) <= {
                    "<s>", "</s>"}:
                continue  # no gap there, or no word to look for
            assert dict(s.fillers_between(left, right)) == _fillers_by_every_slice(
                LIBRARY, left, right), (left, right)
