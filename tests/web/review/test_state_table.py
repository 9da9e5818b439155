"""The review's current state kept incrementally (issue 19): the state table always equals a
replay of the append-only history (undos included), and the review page and a decision cost
the same number of queries however long the history is."""
import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from radreview.review import derivation, selectors, services
from radreview.review import state as state_table
from radreview.review.models import Decision, SentenceState
from radreview.studies.models import Study
from radreview.studies.selectors import study_with_everything
from tests.web.review import factories as rf

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def version(study) -> int:
    return Study.objects.get(pk=study.pk).review_version


def act(study, user, rng: random.Random) -> None:
    """One random review action; refused ones (nothing to undo, unchanged text) are fine."""
    choice = rng.random()
    try:
        if choice < 0.35:
            services.undo_last(study, user, version=version(study))
        elif choice < 0.6:
            services.decide(study, user, action="reject", version=version(study),
                            sentence_index=rng.choice(rf.FLAGGED))
        elif choice < 0.75:
            services.decide(study, user, action="accept", version=version(study),
                            sentence_index=rng.choice(rf.FLAGGED))
        else:
            services.decide(study, user, action="edit", version=version(study),
                            sentence_index=rng.randrange(9), text=f"Revised {rng.random():.6f}.")
    except services.ReviewError:
        pass


def test_the_state_table_always_equals_a_replay_of_the_history(radiologist):
    study = rf.make_review_study()
    rng = random.Random(19)
    for _ in range(120):
        act(study, radiologist, rng)
        history = Decision.objects.filter(study=study)
        assert state_table.stored(study) == state_table.replay(history)
    actions = set(Decision.objects.filter(study=study).values_list("action", flat=True))
    assert actions == {"accept", "reject", "edit", "undo"}
    # What the page shows as each sentence's current text is the replay's.
    state = selectors.review_state(study_with_everything(study.pk))
    effective = derivation.effective_decisions(list(Decision.objects.filter(study=study)))
    for view in state.sentences:
        replayed = effective.get(view.sentence.pk)
        assert view.current == (replayed.after_text if replayed else view.original)
    everything = list(Decision.objects.filter(study=study))
    assert state.undoable == derivation.last_undoable(everything)
    assert state.decision_count == len(everything)


def test_rebuild_restores_the_table_from_the_history(radiologist):
    study = rf.make_review_study()
    rng = random.Random(7)
    for _ in range(30):
        act(study, radiologist, rng)
    expected = state_table.stored(study)
    SentenceState.objects.filter(study=study).update(decision=None, decision_count=0)
    state_table.rebuild(study)
    assert state_table.stored(study) == expected


def test_undo_finds_a_live_decision_older_than_the_shown_history(radiologist):
    study = rf.make_review_study()
    services.decide(study, radiologist, action="reject", sentence_index=rf.NODULE,
                    version=version(study))
    first = Decision.objects.get(study=study)
    for _ in range(selectors.HISTORY_SHOWN):  # pairs of decide + undo push it out of the log
        services.decide(study, radiologist, action="edit", sentence_index=rf.CLEAR,
                        version=version(study), text=f"Clear {version(study)}.")
        services.undo_last(study, radiologist, version=version(study))
    state = selectors.review_state(study_with_everything(study.pk))
    assert first not in state.decisions and state.undoable == first
    outcome = services.undo_last(study, radiologist, version=version(study))
    assert outcome.decision.undoes == first


def queries(callable_) -> int:
    with CaptureQueriesContext(connection) as captured:
        callable_()
    return len(captured.captured_queries)


def test_page_and_decision_cost_the_same_queries_with_a_long_history(
        radiologist_client, radiologist):
    fresh, long = rf.make_review_study(), rf.make_review_study()
    rng = random.Random(3)
    for _ in range(80):
        act(long, radiologist, rng)
    assert Decision.objects.filter(study=long).count() > 60
    # Every sentence has a state row in both, so neither decision creates one.
    for study in (fresh, long):
        for index in range(9):
            services.decide(study, radiologist, action="edit", sentence_index=index,
                            version=version(study), text=f"Sentence {index} revised.")

    def page(study):
        return lambda: radiologist_client.get(f"/studies/{study.pk}/")

    def decide(study):
        return lambda: radiologist_client.post(
            f"/studies/{study.pk}/review/decide/",
            {"action": "reject", "sentence": rf.NODULE, "version": version(study)}, **HTMX)

    assert queries(page(fresh)) == queries(page(long))
    # The answer's panel takes its sentence's latest decisions from the study's latest when they
    # hold them (the fresh study), else reads them in one short query (the long one): at most
    # one more, whatever the length of the history.
    assert queries(decide(fresh)) <= queries(decide(long)) <= queries(decide(fresh)) + 1
    html = radiologist_client.get(f"/studies/{long.pk}/").content.decode()
    total = Decision.objects.filter(study=long).count()
    assert f"Decision log ({total})" in html
    assert f"The latest {selectors.HISTORY_SHOWN} of {total} decisions" in html
