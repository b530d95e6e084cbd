"""The package's layering: every module imports on its own, first, in a fresh
interpreter, and the modules import each other only downward: no cycle, no
import of the package's ``__init__`` (which only re-exports), and no import
inside a function that would hide a cycle until the function runs."""
import ast
import json
import os
import subprocess
import sys

import pytest

PYTHON = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
PACKAGE = os.path.join(PYTHON, "amp_mlir")

# The layers, lowest first. A module imports only modules of lower layers
# (not one of its own layer); a new module must be placed here.
LAYERS = [
    ("configuration", ["_config"]),
    ("C API binding", ["_capi"]),
    ("IR; element types and the CUDA runtime", ["ir", "runtime"]),
    ("execution: device arrays", ["device"]),
    ("execution: MPI processes", ["distributed"]),
    ("execution: JIT", ["jit"]),
    ("compilation", ["compiler"]),
    ("model building: autodiff", ["autodiff"]),
    ("training", ["training"]),
    ("training: the digits job", ["digits"]),
    ("re-exports", ["__init__"]),
]
RANK = {m: i for i, (_, ms) in enumerate(LAYERS) for m in ms}


def package_modules():
    return sorted(f[:-3] for f in os.listdir(PACKAGE) if f.endswith(".py"))


def parse(module):
    with open(os.path.join(PACKAGE, module + ".py")) as f:
        return ast.parse(f.read(), filename=module + ".py")


def _targets(node, modules):
    """The package modules an import statement imports (``__init__`` for a
    name taken from the package itself)."""
    def submodule(dotted):  # "x.y" below amp_mlir -> "x"
        return dotted.split(".")[0]

    def from_package(names):
        return {n if n in modules else "__init__" for n in names}

    if isinstance(node, ast.ImportFrom):
        names = [a.name for a in node.names]
        if node.level == 1:
            return {submodule(node.module)} if node.module else from_package(names)
        if node.level == 0 and node.module == "amp_mlir":
            return {"__init__"} | from_package(names)
        if node.level == 0 and node.module and node.module.startswith("amp_mlir."):
            return {"__init__", submodule(node.module[len("amp_mlir."):])}
        assert node.level == 0, f"relative import above the package: line {node.lineno}"
        return set()
    out = set()
    for alias in node.names:
        if alias.name == "amp_mlir":
            out.add("__init__")
        elif alias.name.startswith("amp_mlir."):
            out |= {"__init__", submodule(alias.name[len("amp_mlir."):])}
    return out


def import_graph():
    """``{module: {imported module: [(line, at module level)]}}`` over every
    import statement of the package, in functions too."""
    modules = set(package_modules())
    graph = {}
    for m in modules:
        tree = parse(m)
        top = {id(n) for n in tree.body}
        edges = graph.setdefault(m, {})
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for t in _targets(node, modules):
                    edges.setdefault(t, []).append((node.lineno, id(node) in top))
    return graph


def reachable(graph, module):
    seen, todo = set(), [module]
    while todo:
        for t in graph[todo.pop()]:
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


def find_cycle(graph):
    """A list of modules ``[a, b, ..., a]`` around a cycle, or None."""
    state, path = {}, []

    def visit(m):
        state[m] = "open"
        path.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == "open":
                return path[path.index(t):] + [t]
            if t not in state:
                cycle = visit(t)
                if cycle:
                    return cycle
        path.pop()
        state[m] = "done"
        return None

    for m in sorted(graph):
        if m not in state:
            cycle = visit(m)
            if cycle:
                return cycle
    return None


def test_every_module_has_a_layer():
    assert set(package_modules()) == set(RANK), \
        "place each module of python/amp_mlir in LAYERS"


def test_modules_say_their_layer():
    missing = [m for m in package_modules() if "Layer:" not in (ast.get_docstring(parse(m)) or "")]
    assert not missing, f"modules whose docstring does not say their layer: {missing}"


def test_import_graph_has_no_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_modules_import_only_lower_layers():
    graph = import_graph()
    wrong = [f"{m}.py:{line} imports {t} ({LAYERS[RANK[t]][0]}), not below "
             f"{LAYERS[RANK[m]][0]}"
             for m, edges in sorted(graph.items()) for t, uses in sorted(edges.items())
             for line, _ in sorted(uses) if RANK[t] >= RANK[m]]
    assert not wrong, "\n".join(wrong)
    # The bottom layers stand without what is built on them.
    above = {"device", "jit", "compiler", "autodiff", "training", "digits", "__init__"}
    assert reachable(graph, "_config") == set()
    assert reachable(graph, "_capi") == {"_config"}
    assert reachable(graph, "ir") & above == set()
    assert reachable(graph, "runtime") & (above | {"_capi", "ir"}) == set()
    assert "jit" not in reachable(graph, "device")
    for m in ("_capi", "ir", "runtime", "device", "jit", "compiler"):
        assert reachable(graph, m) & {"autodiff", "training", "digits"} == set(), m


def test_package_imports_are_at_module_level():
    # An import of a package module inside a function would hide a cycle
    # (or an import of a layer above) until the function runs.
    lazy = [f"{m}.py:{line} imports {t} inside a function or class"
            for m, edges in sorted(import_graph().items())
            for t, uses in sorted(edges.items()) for line, top in sorted(uses) if not top]
    assert not lazy, "\n".join(lazy)


def python(code):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [PYTHON] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300)


@pytest.mark.parametrize("module", package_modules())
def test_module_imports_first_in_a_fresh_interpreter(module):
    name = "amp_mlir" if module == "__init__" else f"amp_mlir.{module}"
    r = python(f"import {name}")
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("module", [m for m in package_modules() if m != "__init__"])
def test_module_imports_without_the_package_init(module):
    # Under a bare package (its __init__ not run) the module imports exactly
    # the modules the import graph says, in an order that works by itself.
    r = python(
        "import importlib, json, sys, types\n"
        "package = types.ModuleType('amp_mlir')\n"
        f"package.__path__ = [{PACKAGE!r}]\n"
        "sys.modules['amp_mlir'] = package\n"
        f"importlib.import_module('amp_mlir.{module}')\n"
        "print(json.dumps(sorted(m[len('amp_mlir.'):] for m in sys.modules\n"
        "                        if m.startswith('amp_mlir.'))))\n")
    assert r.returncode == 0, r.stderr
    loaded = set(json.loads(r.stdout.strip().splitlines()[-1]))
    assert loaded == reachable(import_graph(), module) | {module}
