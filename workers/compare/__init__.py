"""Report comparison with explained errors: a candidate report against a reference.

    workers.compare.compare.compare_reports(candidate, reference) -> Comparison
    workers.compare.categories      the six error categories
    workers.compare.statements      what a report states (the one interface to workers/nlp)
    workers.compare.batch           JSONL pairs in, comparisons out (manage.py compare_reports)

docs/compare.md says what each category means, how significance and the score are decided and
what the dev sets measure. The package re-exports nothing: import the module you need.
"""
