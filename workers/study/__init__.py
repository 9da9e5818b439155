"""The study context: built once per study by the stage layer and handed to every detector,
the way spaCy hands one ``Doc`` to every component of a pipeline.

    StudyContext(text, library=..., images=..., ...)    the report read once (sentences,
        findings, statements), its similar library reports, the prior report, the study's
        images with their descriptors and the reference images nearest to them
    slot_fills(ctx, index, start, end)                  library wordings for a gap
    numbered_report(ctx), references(ctx)               the context shown to a language model

A detector declares in its spec which parts it reads (``DetectorSpec.needs``); the stage
builds those parts and nothing else. Plain Python, no Django.
"""
from .context import DEFAULT_NEIGHBOURS, StudyContext
from .images import StudyImages

__all__ = ["DEFAULT_NEIGHBOURS", "StudyContext", "StudyImages"]
