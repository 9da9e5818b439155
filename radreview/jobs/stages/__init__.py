"""How each pipeline stage reads its inputs from the database and writes its results back.

A stage adapter has three parts: ``load(job)`` returns the plain inputs, ``compute(inputs,
progress)`` is a pure function from ``workers``, and ``store(job, result)`` writes the
results. ``store`` runs inside the transaction that also marks the job done. Study stages read
``job.study``; site jobs read ``job.params``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from radreview.calibration import stage as calibrate
from radreview.dicomnet import pacs_import
from radreview.library import text_stage as import_reference
from radreview.modelroles import stage as probe_role

from . import audit, combine, image_import, ingest, radflag, rarrg, report, sample, vrag


@dataclass(frozen=True)
class StageAdapter:
    load: Callable[[Any], Any]
    compute: Callable[..., Any]
    store: Callable[[Any, Any], None]


ADAPTERS: dict[str, StageAdapter] = {
    "ingest": StageAdapter(ingest.load, ingest.compute, ingest.store),
    "sample": StageAdapter(sample.load, sample.compute, sample.store),
    "parse_report": StageAdapter(report.load, report.compute, report.store),
    "radflag": StageAdapter(radflag.load, radflag.compute, radflag.store),
    "vrag": StageAdapter(vrag.load, vrag.compute, vrag.store),
    "rarrg": StageAdapter(rarrg.load, rarrg.compute, rarrg.store),
    "audit": StageAdapter(audit.load, audit.compute, audit.store),
    "combine": StageAdapter(combine.load, combine.compute, combine.store),
    # Site jobs
    "probe_role": StageAdapter(probe_role.load, probe_role.compute, probe_role.store),
    "calibrate": StageAdapter(calibrate.load, calibrate.compute, calibrate.store),
    import_reference.STAGE: StageAdapter(import_reference.load, import_reference.compute,
                                         import_reference.store),
    image_import.IMPORT_STAGE: StageAdapter(image_import.load, image_import.compute,
                                            image_import.store),
    image_import.REBUILD_STAGE: StageAdapter(image_import.rebuild_load,
                                             image_import.rebuild_compute, image_import.store),
    pacs_import.STAGE: StageAdapter(pacs_import.load, pacs_import.compute, pacs_import.store),
}
