"""Factories for the web tests: users, studies and reports, made directly in the database."""
from __future__ import annotations

import itertools

from radreview.accounts.models import User
from radreview.studies.models import Report, Sentence, Study

PASSWORD = "correct-horse-battery"
_counter = itertools.count(1)


def make_user(role: str = User.Role.RADIOLOGIST, username: str | None = None,
              **names: str) -> User:
    user = User(username=username or f"{role}-{next(_counter)}", role=role, **names)
    user.set_password(PASSWORD)
    user.save()
    return user


def make_study(uploaded_by: User | None = None, **fields) -> Study:
    return Study.objects.create(uploaded_by=uploaded_by or make_user(), **fields)


def make_report(
    study: Study, text: str, kind: str = Report.Kind.UPLOADED, with_sentences: bool = True
) -> Report:
    """A report and, unless told otherwise, its sentences as the parse stage would store them."""
    from workers.pipeline import parse_report

    report = Report.objects.create(study=study, kind=kind, text=text, source="test")
    if with_sentences:
        Sentence.objects.bulk_create(
            Sentence(
                report=report,
                index=s.index,
                text=s.text,
                start=s.start,
                end=s.end,
                section=s.section,
            )
            for s in parse_report(text)
        )
    return report
