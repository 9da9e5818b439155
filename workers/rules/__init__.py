"""The rule engine's checks of one report, below the detectors that read them: the judge turns
them into its detections and the three-stage correction reads them as its signals.

    checks.run_checks(ctx) -> list[Issue]     consistency and plausibility (docs/audit.md)
    denials.finding_counts(library)           what the library states and never denies
    comparative.detect(ctx)                   comparison wording in a study with no prior
                                              (detector "comparative")

Nothing is re-exported here: import the modules. Plain Python, no Django.
"""
