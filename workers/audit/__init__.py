"""The text audit outside the pipeline: the detectors of the "audit" stage run over one study
context per report and folded by the system combination.

    text.audit_text(text, ...) -> TextAudit      one report (benchmarks, the batch audit)
    batch.audit_records(records, ...)            a JSONL file's reports (manage.py
                                                 audit_reports)

It stands above the detector registry and the system combination, which it joins. Nothing is
re-exported here: import the modules. Plain Python, no Django.
"""
