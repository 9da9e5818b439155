"""No import circles in workers/ (issue 17) nor in radreview/ (issue 33): the graph of every
import statement, at module level and inside functions, computed with ``ast``; a cycle fails
with its path. Nor folder loops in workers/ (issue 33): a folder of workers/ (a package, or a
module beside them) that imports another which imports it back, file by file without a circle,
fails too."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "workers"


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _resolve(name: str, modules: set[str]) -> str | None:
    """The longest known module that ``name`` names or lies in ("workers.nlp.entail" of
    ``from workers.nlp import entail`` is workers.nlp when entail is no module)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def import_graph(root: Path = ROOT, package: str = PACKAGE, *, inits: bool = True
                 ) -> dict[str, set[str]]:
    """module -> the modules it imports; with ``inits``, also the package __init__s that an
    import runs first (``from workers.a.b import f`` runs workers/a/__init__.py)."""
    files = {_module_name(p, root): p for p in (root / package).rglob("*.py")}
    modules = set(files)
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in files.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = module.split(".")
                    anchor = anchor if is_package else anchor[:-1]
                    anchor = anchor[:len(anchor) - node.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                # "from pkg import name": the submodule pkg.name when it is one, else pkg
                targets = [f"{base}.{a.name}" for a in node.names] or [base]
            for target in targets:
                found = _resolve(target, modules)
                if found and found != module:
                    graph[module].add(found)
                # importing a.b.c runs a/__init__ and a/b/__init__ first, unless the importing
                # module lies in them (then they are already being initialised)
                parts = (found or "").split(".") if inits else []
                for i in range(1, len(parts)):
                    parent = ".".join(parts[:i])
                    if parent in modules and not module.startswith(parent + ".") \
                            and parent != module:
                        graph[module].add(parent)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def folder_graph(graph: dict[str, set[str]], package: str = PACKAGE) -> dict[str, set[str]]:
    """The same graph between the folders of ``package`` (workers.nlp, workers.jsonl, ...):
    an arrow where some module of one imports some module of another."""
    def folder(module: str) -> str:
        return ".".join(module.split(".")[:2])

    folders: dict[str, set[str]] = {folder(m): set() for m in graph}
    for module, targets in graph.items():
        folders[folder(module)] |= {folder(t) for t in targets} - {folder(module)}
    return folders


def test_the_graph_sees_function_level_and_relative_imports(tmp_path):
    pkg = tmp_path / "workers"
    (pkg / "a").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a" / "__init__.py").write_text("")
    (pkg / "a" / "x.py").write_text("def f():\n    from workers.a import y\n")
    (pkg / "a" / "y.py").write_text("from . import x\n")
    graph = import_graph(tmp_path)
    assert graph["workers.a.x"] == {"workers.a.y"}
    assert graph["workers.a.y"] == {"workers.a.x"}
    assert cycles(graph) == [["workers.a.x", "workers.a.y"]]


def test_the_graph_sees_the_packages_an_import_initialises(tmp_path):
    pkg = tmp_path / "workers"
    for name in ("a", "b"):
        (pkg / name).mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a" / "__init__.py").write_text("from .x import f\n")
    (pkg / "a" / "x.py").write_text("from workers.b.y import g\n")
    (pkg / "b" / "__init__.py").write_text("from .y import g\n")
    (pkg / "b" / "y.py").write_text("from workers.a.z import h\n")
    (pkg / "a" / "z.py").write_text("")
    graph = import_graph(tmp_path)
    # y imports a.z, which runs a/__init__, which imports x, which imports b.y: a circle
    assert "workers.a" in graph["workers.b.y"]
    assert "workers.a" not in graph["workers.a.x"]
    assert cycles(graph) == [["workers.a", "workers.a.x", "workers.b", "workers.b.y"]]


def test_a_folder_loop_is_seen_where_no_file_circle_is(tmp_path):
    pkg = tmp_path / "workers"
    for name in ("a", "b"):
        (pkg / name).mkdir(parents=True)
        (pkg / name / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a" / "x.py").write_text("from workers.b import y\n")
    (pkg / "b" / "y.py").write_text("")
    (pkg / "b" / "z.py").write_text("from workers.a.w import f\n")
    (pkg / "a" / "w.py").write_text("")
    graph = import_graph(tmp_path, inits=False)
    assert cycles(graph) == []
    assert cycles(folder_graph(graph)) == [["workers.a", "workers.b"]]


def test_no_import_circles_in_workers():
    assert cycles(import_graph(inits=False)) == []


def test_no_folder_loops_in_workers():
    """Shared pieces stand below the folders that use them (docs/design.md, "workers/")."""
    assert cycles(folder_graph(import_graph(inits=False))) == []


def test_package_inits_add_no_circle():
    """Counting the package __init__s an import runs first: the __init__s of rarrg and vrag
    re-export nothing, so importing a leaf of one runs no module of another."""
    assert cycles(import_graph()) == []


def test_no_import_circles_in_radreview():
    """The job system imports no feature (the apps register their stages with it), so no
    feature's services lead back to it; imports deferred into functions (an AppConfig.ready)
    and the package __init__s an import runs count too."""
    assert cycles(import_graph(package="radreview")) == []
