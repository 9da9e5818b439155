"""The built-in radiology language engine: plain Python, no Django, no model weights.

The public API (docs/nlp.md describes each function and its rules):

    parse_report(text) -> ParsedReport             sections and sentences with spans
    extract_findings(report) -> list[Finding]      observation, status, side, size, place, ...
    findings_by_sentence(report), sentence_categories(report)   per-sentence views
    chexpert_labels(findings) -> dict               the 14 CheXpert labels, 1 / 0 / -1 / None
    entail(sentence, report) -> Entailment          RadFlag's complete / partial / none
    extract_graph(text) -> Graph                    RadGraph-schema entities and relations
    graph_phrases(graph), graph_from_radgraph(annotation, text)
    key_phrases(text), find_comparisons(sentence), remove_comparisons(text), COMPARATIVE_TERMS
    category_of(sentence_or_finding) -> str        Devices, Cardiomediastinal, Lungs, ...
    harm_of(observation, status) -> Harm
    is_radiographic(text), out_of_domain_terms(text), radiographic_status(text)
    label_file(input_path, output_path)             JSONL batch labeling

Importing the package is cheap, and neither it nor an extraction imports spaCy or medspacy:
ConText runs in plain Python (workers/nlp/context.py).
"""
from workers.nlp.batch import label_file
from workers.nlp.categories import category_of, sentence_categories
from workers.nlp.entailment import Entailment, entail
from workers.nlp.findings import Finding, extract_findings, findings_by_sentence
from workers.nlp.graph import (
    Entity,
    Graph,
    Relation,
    extract_graph,
    graph_from_radgraph,
    graph_phrases,
)
from workers.nlp.harm import harm_of
from workers.nlp.labels import LABELS, chexpert_labels
from workers.nlp.phrases import (
    COMPARATIVE_TERMS,
    find_comparisons,
    key_phrases,
    remove_comparisons,
)
from workers.nlp.radiographic import is_radiographic, out_of_domain_terms, radiographic_status
from workers.nlp.sections import ParsedReport, Section, Sentence, parse_report

__all__ = [
    "COMPARATIVE_TERMS", "Entailment", "Entity", "Finding", "Graph", "LABELS", "ParsedReport",
    "Relation", "Section", "Sentence", "category_of", "chexpert_labels", "entail",
    "extract_findings", "extract_graph", "find_comparisons", "findings_by_sentence",
    "graph_from_radgraph", "graph_phrases", "harm_of", "is_radiographic", "key_phrases",
    "label_file", "out_of_domain_terms", "parse_report", "radiographic_status",
    "remove_comparisons", "sentence_categories",
]
