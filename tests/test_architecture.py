"""The package's shape (docs/design.md §7), read from the code's own imports: no cycle between its parts,
imports point down the layers only, no module over 400 lines, function-level imports only for optional extras
and for the model layers of a command whose early errors come first."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

PACKAGE = Path(__file__).resolve().parents[1] / "uner"
# low to high; a part may import its own layer's parts (without a cycle) and the layers below
LAYERS = [
    {"paths", "checks", "io"},
    {"models", "conventions", "spans"},
    {"vectors"},
    {"labels"},
    {"vocab", "pretrain"},
    {"tagger", "server"},
    {"analysis"},
    {"distill", "adapt"},
    {"cli", "spacy_component", "__init__"},
]
OPTIONAL = {"ray", "selenium", "matplotlib", "onnxruntime", "onnx", "uvicorn", "IPython"}  # extras: imported where used
# The command line tells a bad option or a missing file before torch and spaCy load (seconds): it imports a
# command's module only when the command runs (uner/cli/_util.py COMMANDS), and what every command loads, with the
# commands that check files first (`tag`), imports at its top only the light parts of uner and these modules;
# such a command imports the layers it runs in its body, after its checks (tests/cli/test_early_errors.py).
LIGHT_PARTS = {"paths", "checks", "io"}
LIGHT_CLI = {"uner.cli", "uner.cli.__main__", "uner.cli._util", "uner.cli._engine", "uner.cli._config", "uner.cli.tag"}
HEAVY_LIBRARIES = {"torch", "transformers", "spacy"}
MAX_LINES = 400


def _module(path: Path, package: Path = PACKAGE) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _part(module: str) -> str:
    """The top-level part of the package a module belongs to (``uner.tagger.core`` -> ``tagger``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(path: Path, root: Path = PACKAGE) -> list[tuple[str, bool]]:
    """(imported module, at function level) for every import in the file; relative imports resolved."""
    module = _module(path, root)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(node) for node in tree.body}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            names = [".".join(base + ([node.module] if node.module else []))]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        out += [(name, id(node) not in top) for name in names]
    return out


def _files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_the_parts_import_each_other_without_a_cycle_and_only_downwards():
    layer = {part: n for n, parts in enumerate(LAYERS) for part in parts}
    graph = nx.DiGraph()
    upward = []
    for path in _files():
        source = _part(_module(path))
        assert source in layer, f"{path}: part {source!r} is in no layer of docs/design.md §7 (add it to LAYERS)"
        for name, _ in _imports(path):
            if name.split(".")[0] != "uner" or _part(name) == source:
                continue
            graph.add_edge(source, _part(name))
            if layer[_part(name)] > layer[source]:
                upward.append(f"{path.relative_to(PACKAGE.parent)} imports {name} (a higher layer)")
    assert not upward, upward
    assert nx.is_directed_acyclic_graph(graph), list(nx.simple_cycles(graph))


def test_modules_inside_a_part_import_each_other_without_a_cycle():
    graph = nx.DiGraph()
    for path in _files():
        module = _module(path)
        for name, _ in _imports(path):
            if name.startswith("uner.") and _part(name) == _part(module) and not path.name == "__init__.py":
                target = name if (PACKAGE.parent / name.replace(".", "/")).with_suffix(".py").is_file() else None
                if target and target != module:
                    graph.add_edge(module, target)
    assert nx.is_directed_acyclic_graph(graph), list(nx.simple_cycles(graph))



def test_no_stage_imports_another():
    """Issue 77: a stage module imports only what the stages share (``registry``, ``shared``, ``edges``), never
    another stage, so that a stage is read, changed or removed in one place."""
    stages = PACKAGE / "tagger" / "stages"
    own = {p.stem for p in stages.glob("*.py")} - {"__init__", "registry", "shared", "edges"}
    crossing = [f"{path.name} imports {name}" for path in sorted(stages.glob("*.py")) if path.stem in own
                for name, _ in _imports(path)
                if name.startswith("uner.tagger.stages.") and name.rsplit(".", 1)[1] in own]
    assert own and not crossing, crossing

def test_no_module_is_over_400_lines():
    long = {str(p.relative_to(PACKAGE.parent)): n for p in _files()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, long


def test_only_optional_extras_and_the_light_cli_s_model_layers_are_imported_inside_functions():
    """Everything uner needs is imported at the top of its module (an import cycle is mended by moving the shared
    code down a layer, not by a late import); only an optional extra waits until the function that uses it runs,
    and a light command (LIGHT_CLI) imports the parts of uner it runs in its body."""
    late = [f"{path.relative_to(PACKAGE.parent)} imports {name} inside a function" for path in _files()
            for name, inner in _imports(path) if inner and name.split(".")[0] not in OPTIONAL
            and not (_module(path) in LIGHT_CLI and name.split(".")[0] == "uner")]
    assert not late, late


def test_what_every_command_loads_imports_no_model_layer_at_its_top():
    heavy = [f"{_module(path)} imports {name} at its top" for path in _files() if _module(path) in LIGHT_CLI
             for name, inner in _imports(path) if not inner
             and (name.split(".")[0] in HEAVY_LIBRARIES
                  or name.split(".")[0] == "uner" and _part(name) not in LIGHT_PARTS and name not in LIGHT_CLI)]
    assert not heavy, heavy
    assert LIGHT_CLI <= {_module(path) for path in _files()}  # (no name in it is stale)


def test_the_import_reader_resolves_relative_imports_and_sees_function_level_ones(tmp_path):
    """The checks above rest on this reader: relative imports at any depth, imports inside functions."""
    pkg = tmp_path / "uner" / "tagger"
    pkg.mkdir(parents=True)
    (pkg / "core.py").write_text("from ..distill import x\nfrom . import scoring\n\ndef f():\n    import ray\n")
    assert _imports(pkg / "core.py", tmp_path / "uner") == [("uner.distill", False), ("uner.tagger", False),
                                                           ("ray", True)]
