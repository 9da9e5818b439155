"""The detector registry: every detector declared once as a ``DetectorSpec``.

    from workers.detectors import DETECTORS      name → spec, in declaration order
    register(spec) / unregister(name)            a plugin's or a test's own detector
    in_stage(stage), stage_roles(stage)          what a pipeline stage runs, its model roles
    stage_needs(stage)                           the parts of the study context it reads
    evidence_schema(spec)                        the JSON schema of its evidence

Plain Python, no Django; the method packages load only when a detector runs.
"""
from . import builtin  # noqa: F401 - declares the built-in detectors
from .spec import (
    DETECTORS,
    GENERAL,
    GENERIC_TEMPLATE,
    NEEDS,
    SINGLE_PURPOSE,
    DetectorError,
    DetectorSpec,
    Guarantee,
    Models,
    dataclass_schema,
    evidence_schema,
    in_stage,
    load_plugins,
    register,
    stage_needs,
    stage_roles,
    unregister,
)

__all__ = [
    "DETECTORS", "GENERAL", "GENERIC_TEMPLATE", "NEEDS", "SINGLE_PURPOSE", "DetectorError",
    "DetectorSpec", "Guarantee", "Models", "dataclass_schema", "evidence_schema", "in_stage",
    "load_plugins", "register", "stage_needs", "stage_roles", "unregister",
]
