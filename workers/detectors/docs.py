"""docs/detections.md's list of detectors, written from the registry.

    python -m workers.detectors.docs           rewrite the generated part of docs/detections.md
    python -m workers.detectors.docs --check   exit 1 when it differs from the registry

Only the text between the two markers is generated; the rest of the file is written by hand.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import DETECTORS, evidence_schema

BEGIN = "<!-- generated from workers/detectors by python -m workers.detectors.docs -->"
END = "<!-- end of generated part -->"
DOC = Path(__file__).resolve().parents[2] / "docs" / "detections.md"


def _type_of(schema: dict) -> str:
    if "enum" in schema:
        kind = " \\| ".join(f'"{v}"' for v in schema["enum"])
    elif "anyOf" in schema:
        kind = " \\| ".join(_type_of(s) for s in schema["anyOf"])
    elif schema.get("type") == "array":
        kind = f"list of {_type_of(schema.get('items') or {}) or 'any'}"
    else:
        kind = schema.get("type", "any")
    return f"{kind} or null" if schema.get("nullable") else kind


def render() -> str:
    """The generated part: one section per declared detector, in declaration order."""
    lines = [BEGIN, ""]
    for spec in DETECTORS.values():
        schema = evidence_schema(spec)
        lines += [
            f"### `{spec.name}` — {spec.label}", "",
            spec.description, "",
            f"Stage `{spec.stage}`; model roles: "
            f"{', '.join(f'`{r}`' for r in spec.roles) or 'none'}; scope: {spec.scope}"
            f"{'; only when the study has no prior exam' if spec.needs_no_prior else ''}; "
            f"reads of the study context: {', '.join(spec.needs) or 'nothing'}; "
            f"evidence template: `{spec.templates[0]}`.", "",
            f"Evidence (`{schema['title']}`): {schema['description']}", "",
            "| key | type | meaning |", "|---|---|---|",
        ]
        lines += [f"| `{key}` | {_type_of(field)} | {field.get('description', '')} |"
                  for key, field in schema["properties"].items()]
        lines.append("")
    lines.append(END)
    return "\n".join(lines)


def with_generated_part(text: str) -> str:
    """``text`` with its generated part replaced by ``render()``."""
    before, _, rest = text.partition(BEGIN)
    _, found, after = rest.partition(END)
    if not found:
        raise ValueError(f"{DOC} lacks the markers {BEGIN!r} … {END!r}")
    return before + render() + after


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether it drifted")
    args = parser.parse_args(argv)
    current = DOC.read_text(encoding="utf-8")
    wanted = with_generated_part(current)
    if args.check:
        if current != wanted:
            print(f"{DOC} differs from the registry: run python -m workers.detectors.docs",
                  file=sys.stderr)
            return 1
        return 0
    DOC.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
