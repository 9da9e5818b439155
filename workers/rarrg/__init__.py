"""RA-RRG (Park et al.): retrieval-augmented report generation from key phrases.

    extract_key_phrases(report, extractor, llm)     key phrases, comparisons removed
    select_phrases / retrieve_phrases                kNN key-phrase retrieval, threshold 0.4,
                                                     pooled over a study's views
    compose_report(phrases)                          the built-in composer (radiology order)
    run_rarrg(RarrgInputs(...), progress)            draft + ``rarrg`` detections for a study
    load_builtin_generator(index_dir)                the generator role's built-in default
    retriever.build_model / train / load_checkpoint  the trained DETR-style retriever (torch)

Plain Python, no Django (torch only for the trained retriever); docs/images.md.
"""
from .compose import compose_report
from .generator import GENERATOR_NAME, RetrievalGenerator, load_builtin_generator
from .phrases import KeyPhrases, extract_key_phrases
from .retrieval import PhraseRetrieval, ScoredPhrase, retrieve_phrases, select_phrases
from .run import RarrgInputs, RarrgResult, run_rarrg

__all__ = [
    "GENERATOR_NAME", "KeyPhrases", "PhraseRetrieval", "RarrgInputs", "RarrgResult",
    "RetrievalGenerator", "ScoredPhrase", "compose_report", "extract_key_phrases",
    "load_builtin_generator", "retrieve_phrases", "run_rarrg", "select_phrases",
]
