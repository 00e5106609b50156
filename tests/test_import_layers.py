"""The module layering (issue 22): the command layer (the `tilec` and
`tilec-tileiras` commands) sits on the library and nothing in the library
reaches up into it; no import cycle runs through a command module. The graph is
static: every `import` in tilec/**/*.py, function-level ones included."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

COMMAND_LAYER = {"tilec.cli", "tilec.driver", "tilec.cmdio", "tilec.translate", "tilec.run_command",
                 "tilec.compile_command", "tilec.verify_diagnostics", "tilec.tileiras_cli"}

# cycles inside the library that predate the test; a new one fails it (a fixed one is fine)
KNOWN_LIBRARY_CYCLES = [
    {"tilec.syntax.dense", "tilec.syntax.format", "tilec.syntax.parser", "tilec.syntax.reader"},
    {"tilec.dialects.nv_tileas.ops.pipeline", "tilec.dialects.nv_tileas.verifiers"},
    {"tilec.codegen.ptx.emitter", "tilec.codegen.ptx.ops_memory"},
    {"tilec.codegen.ptx.ops_control", "tilec.codegen.ptx.ops_dot", "tilec.codegen.ptx.ops_pipeline",
     "tilec.codegen.ptx.ops_wgmma"},
]


def _modules():
    out = {}
    for path in sorted((ROOT / "tilec").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def import_graph():
    """{module: {tilec modules it imports}}."""
    mods = _modules()
    graph = {}
    for name, path in mods.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[:len(package) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for a in node.names:
                    sub = f"{target}.{a.name}"
                    deps.add(sub if sub in mods else target)
        graph[name] = {d for d in deps if d in mods and d != name}
    return graph


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _path(graph, comp):
    """One cycle through `comp`, as a -> b -> ... -> a."""
    start = min(comp)
    seen, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & comp):
                if w == start:
                    chain = [v]
                    while seen[chain[-1]] is not None:
                        chain.append(seen[chain[-1]])
                    return " -> ".join([start] + chain[::-1][1:] + [start]) if len(chain) > 1 else f"{start} -> {v} -> {start}"
                if w not in seen:
                    seen[w] = v
                    nxt.append(w)
        frontier = nxt
    return ", ".join(sorted(comp))


def test_the_command_layer_exists():
    mods = set(_modules())
    assert COMMAND_LAYER - {"tilec.tileiras_cli"} <= mods


def test_the_library_never_imports_the_command_layer():
    graph = import_graph()
    bad = sorted(f"{m} imports {d}" for m, deps in graph.items() if m not in COMMAND_LAYER
                 for d in deps & COMMAND_LAYER)
    assert not bad, "\n".join(bad)


def test_no_import_cycle_through_a_command_module():
    graph = import_graph()
    bad = [_path(graph, c) for c in cycles(graph) if c & COMMAND_LAYER]
    assert not bad, "import cycles:\n" + "\n".join(bad)


def test_no_new_import_cycle_in_the_library():
    graph = import_graph()
    new = [_path(graph, c) for c in cycles(graph) if not any(c <= known for known in KNOWN_LIBRARY_CYCLES)]
    assert not new, "new import cycles:\n" + "\n".join(new)


def test_the_checker_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [{"a", "b", "c"}]
    assert _path(graph, {"a", "b", "c"}) == "a -> b -> c -> a"
