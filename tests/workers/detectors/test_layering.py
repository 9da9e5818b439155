"""The method packages get their models passed in: none of them imports the backend registry,
at module level or inside a function."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

WORKERS = Path(__file__).resolve().parents[3] / "workers"
METHOD_PACKAGES = ("radflag", "vrag", "rarrg", "correction", "judge", "combine", "rules",
                   "contradiction", "prior", "study", "imagememory")
REGISTRY = "workers.backends.registry"


def registry_imports(path: Path) -> list[int]:
    """Line numbers where ``path`` imports the registry, in any spelling."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            if any(alias.name == REGISTRY or alias.name.startswith(REGISTRY + ".")
                   for alias in node.names):
                lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            if node.module == REGISTRY or (node.module == "workers.backends"
                                           and any(a.name == "registry" for a in node.names)):
                lines.append(node.lineno)
    return lines


@pytest.mark.parametrize("package", METHOD_PACKAGES)
def test_no_method_package_imports_the_backend_registry(package):
    files = sorted((WORKERS / package).rglob("*.py"))
    assert files
    found = {str(f.relative_to(WORKERS)): registry_imports(f) for f in files}
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_the_check_sees_both_spellings(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from workers.backends import registry\n"
                      "import workers.backends.registry as r\n")
    assert sorted(registry_imports(module)) == [2, 3]
