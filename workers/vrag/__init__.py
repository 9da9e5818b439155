"""V-RAG (Chu, Zhang, Malon, Min): retrieval-augmented entity probing of a draft report.

    run_vrag(VragInputs(index_dir, report, images), progress) -> VragResult
        top-k similar reference images (image memory), the disease entities of the report and
        of the retrieved reports (extractor role) mapped to their shortest terminal
        sub-phrase seen in the library, a yes/no probe per entity (generator, llm or built-in
        vote), a ``vrag`` Detection per disagreement, and a rewritten report.
    build_tasks(studies, neighbours, k=3)  the three fine-tuning task sets (finetune.py)

Plain Python, no Django; docs/images.md describes the method and its choices.
"""
from .entities import EntityMention, extract_entities, shortest_library_subphrase, statement
from .finetune import TASKS, FinetuneStudy, build_tasks, make_study, positive_labels
from .probe import Probe, builtin_answer
from .rewrite import rewrite_report
from .run import VragInputs, VragResult, run_vrag

__all__ = [
    "TASKS", "EntityMention", "FinetuneStudy", "Probe", "VragInputs", "VragResult",
    "build_tasks", "builtin_answer", "extract_entities", "make_study", "positive_labels",
    "rewrite_report", "run_vrag", "shortest_library_subphrase", "statement",
]
