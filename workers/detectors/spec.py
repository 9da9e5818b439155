"""The declaration of a detector: ``DetectorSpec``, and the registry every other part reads.

A detector is declared once, here or in a plugin module, and the stages, the system
combination, the review page, the exports and docs/detections.md all read its spec. Adding a
detector is ``register(DetectorSpec(...))``; nothing else names it.
"""
from __future__ import annotations

import dataclasses
import importlib
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from workers.errors import WorkerError

#: The detector's silence on a sentence is a vote that the sentence is right.
GENERAL = "general"
#: It looks for one kind of error only: its silence is no vote on other errors.
SINGLE_PURPOSE = "single-purpose"
SCOPES = (GENERAL, SINGLE_PURPOSE)

#: The model roles a detector may ask for (workers.backends.ROLES, without importing it).
ROLES = ("generator", "llm", "text_embedder", "image_encoder", "extractor")

#: The parts of the study context (workers.study.StudyContext) a detector may read: the stage
#: layer builds those its detectors need. "report": the audited report, read once (sentences,
#: findings, statements); "library": the reference library and the report's most similar
#: reports; "prior_report": the patient's prior report; "images": the study's images, their
#: descriptors and the reference images nearest them; "samples": the reports sampled for the
#: study (RadFlag's).
NEEDS = ("report", "library", "prior_report", "images", "samples")

#: The review page's fallback when a detector has no evidence template of its own.
GENERIC_TEMPLATE = "review/evidence/generic.html"

Guarantee = dict[str, Any]
"""What a calibrated flag was raised under: calibration, version, α, threshold, ``text``."""

Models = Mapping[str, Any]
"""role → model, resolved by the stage layer; None means the role's built-in default."""


class DetectorError(WorkerError):
    """A spec is malformed or names a detector twice; ``message`` says which and why."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class DetectorSpec:
    """One detector.

    ``stage``: the pipeline stage that runs it. ``roles``: the model roles ``run`` receives in
    its ``models`` mapping. ``scope``: GENERAL or SINGLE_PURPOSE, for the system combination.
    ``evidence``: the dataclass whose fields are the keys of ``Detection.evidence``.
    ``template``: the review page's evidence template ("" = the generic key/value one).
    ``needs``: the parts of the study context it reads (``NEEDS``); one that needs the images
    does not look at a study without them.
    ``run(ctx, models, progress)``: the entry point, given the stage's study context; it
    returns the detector's Detections, or, for a detector whose stage also stores other
    products (a draft, supports), a result whose ``detections`` are them.
    ``needs_no_prior``: it only looks when the study has no prior exam (with one, it examined
    nothing and does not vote). ``needs_prior_report``: it only looks when the study's prior
    report text is given (without it, it examined nothing).
    ``flags_omissions``: what it flags is something the report leaves out on purpose (a prior
    finding dropped without a word), so the site's omission rule, written for explanations
    that describe a detail left out rather than a wrong claim, does not remove its flags.
    ``weight``: its default weight
    in the system combination (a site's admin rows override it). ``guarantee``: for a
    detector whose threshold was calibrated on the site's data (conformal risk control), the
    function that reads from a detection the guarantee it was flagged under (None when it was
    flagged without one); the system combination never hides such a flag.
    """

    name: str
    label: str
    stage: str
    roles: tuple[str, ...]
    scope: str
    evidence: type
    run: Callable[..., Any]
    template: str = ""
    description: str = ""
    needs: tuple[str, ...] = ("report",)
    needs_no_prior: bool = False
    needs_prior_report: bool = False
    flags_omissions: bool = False
    weight: float = 1.0
    guarantee: Callable[[Any], Guarantee | None] | None = None

    def __post_init__(self) -> None:
        if not self.name.isidentifier() or self.name == "combined":
            raise DetectorError(f"a detector's name must be an identifier other than "
                                f"'combined', got {self.name!r}")
        if self.scope not in SCOPES:
            raise DetectorError(f"{self.name}: scope {self.scope!r}; expected one of {SCOPES}")
        unknown = [role for role in self.roles if role not in ROLES]
        if unknown:
            raise DetectorError(f"{self.name}: unknown model roles {unknown}; expected {ROLES}")
        unknown = [need for need in self.needs if need not in NEEDS]
        if unknown:
            raise DetectorError(f"{self.name}: unknown context parts {unknown}; expected {NEEDS}")
        if not dataclasses.is_dataclass(self.evidence):
            raise DetectorError(f"{self.name}: evidence must be a dataclass")

    @property
    def single_purpose(self) -> bool:
        return self.scope == SINGLE_PURPOSE

    @property
    def short_label(self) -> str:
        """The label without its parenthesis, for running text: "RadFlag", "V-RAG"."""
        return self.label.split(" (")[0]

    @property
    def templates(self) -> list[str]:
        return [self.template, GENERIC_TEMPLATE] if self.template else [GENERIC_TEMPLATE]

    def looks_at(self, ctx) -> bool:
        """Whether it examines this study context: one that needs the images does not look
        at a study without them."""
        return "images" not in self.needs or bool(ctx.images)

    def evidence_fields(self) -> list[str]:
        return [f.name for f in dataclasses.fields(self.evidence)]


DETECTORS: dict[str, DetectorSpec] = {}


def register(spec: DetectorSpec) -> DetectorSpec:
    """Declare a detector; a second spec with the same name is refused."""
    if spec.name in DETECTORS and DETECTORS[spec.name] is not spec:
        raise DetectorError(f"a detector named {spec.name!r} is already registered")
    DETECTORS[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    """Forget a detector (tests that declare their own)."""
    DETECTORS.pop(name, None)


def in_stage(stage: str) -> list[DetectorSpec]:
    """The detectors a stage runs, in the order they were declared."""
    return [spec for spec in DETECTORS.values() if spec.stage == stage]


def stage_needs(stage: str) -> frozenset[str]:
    """Every part of the study context the detectors of a stage read."""
    return frozenset(need for spec in in_stage(stage) for need in spec.needs)


def stage_roles(stage: str) -> tuple[str, ...]:
    """Every model role the detectors of a stage need, in declaration order."""
    return tuple(dict.fromkeys(role for spec in in_stage(stage) for role in spec.roles))


def load_plugins(entries) -> list[DetectorSpec]:
    """Register the specs named "module:attribute" (a deployment's own detectors)."""
    loaded = []
    for entry in entries:
        module_name, _, attribute = entry.partition(":")
        if not module_name or not attribute:
            raise DetectorError(f"a detector plugin is named 'module:attribute', got {entry!r}")
        try:
            spec = getattr(importlib.import_module(module_name), attribute)
        except (ImportError, AttributeError) as exc:
            raise DetectorError(f"the detector plugin {entry} cannot be loaded: {exc}") from exc
        if not isinstance(spec, DetectorSpec):
            raise DetectorError(f"{entry} is not a DetectorSpec")
        loaded.append(register(spec))
    return loaded


# --- the evidence schema the API documents ------------------------------------------------------

_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _schema_of(annotation) -> dict:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation in _JSON_TYPES:
        return {"type": _JSON_TYPES[annotation]}
    if origin in (typing.Union, types.UnionType):
        options = [_schema_of(a) for a in args if a is not type(None)]
        schema = options[0] if len(options) == 1 else {"anyOf": options}
        return {**schema, "nullable": True} if type(None) in args else schema
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in (list, tuple) or annotation in (list, tuple):
        return {"type": "array", "items": _schema_of(args[0]) if args else {}}
    if dataclasses.is_dataclass(annotation):
        return dataclass_schema(annotation)
    return {"type": "object"}


def dataclass_schema(cls: type) -> dict:
    """A JSON schema of a dataclass's fields, with each field's ``metadata["doc"]``."""
    hints = typing.get_type_hints(cls)
    properties = {}
    for f in dataclasses.fields(cls):
        schema = _schema_of(hints[f.name])
        if f.metadata.get("doc"):
            schema["description"] = f.metadata["doc"]
        properties[f.name] = schema
    return {"type": "object", "title": cls.__name__, "properties": properties,
            "description": (cls.__doc__ or "").strip()}


def evidence_schema(spec: DetectorSpec) -> dict:
    return dataclass_schema(spec.evidence)
