"""The package's shape, read from its source: no import cycles (imports inside
functions count: they run too, only later), and no command reaching into another
command's private names (what two commands share lives below them, in rgr.starting
and the layers under it)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "rgr"


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(REPO_ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> Iterator[tuple[str, str | None]]:
    """(module imported, the name taken from it or None) for every import anywhere in
    the file, resolved to rgr's modules (``from rgr.x import y`` imports rgr.x, and
    rgr.x.y too when that is a module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            yield base, None
            for alias in node.names:
                yield f"{base}.{alias.name}", alias.name


def _module_of(dotted: str) -> str | None:
    while dotted and dotted not in MODULES:
        dotted = dotted.rpartition(".")[0]
    return dotted or None


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for name, path in MODULES.items():
        for imported, _ in _imports(name, path):
            if imported.startswith("rgr"):
                target = _module_of(imported)
                if target is not None and target != name:
                    graph[name].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = counter
                counter += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_no_import_cycle_counting_imports_inside_functions() -> None:
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_no_command_imports_a_private_name_of_another() -> None:
    offences = []
    for name, path in MODULES.items():
        if not name.startswith("rgr.commands."):
            continue
        for imported, taken in _imports(name, path):
            other = _module_of(imported)
            if (other is not None and other.startswith("rgr.commands.") and other != name
                    and taken is not None and taken.startswith("_")):
                offences.append(f"{name} takes {taken} from {other}")
    assert offences == []


#: Where a process may be started: rgr.proc, the one module that owns process groups,
#: timeouts and launchers; and the sandbox's relay, which runs inside the jail as a
#: standard-library script (rgr's own modules may not even be visible there); and the
#: mutation gate's pytest plugin, which runs inside the sealed test run in the project's
#: interpreter and forks that pytest once per mutant (never rgr's own process).
PROCESS_MODULES = {"rgr.proc", "rgr.sandbox.relay", "rgr.check.mutation.pytest_lines"}
#: What starts a process in Python's standard library.
_SPAWNERS = {"subprocess", "os.system", "os.popen", "os.fork", "os.forkpty", "pty.spawn",
             *(f"os.{name}" for name in ("execv", "execve", "execvp", "execvpe", "execl",
                                        "execle", "execlp", "execlpe", "spawnv", "spawnve",
                                        "spawnvp", "spawnvpe", "spawnl", "spawnle",
                                        "posix_spawn", "posix_spawnp"))}


def _spawns(path: Path) -> list[str]:
    """The process-starting names a file imports or calls (``subprocess``, ``os.exec*``
    ...), whether imported at the top or inside a function."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name in _SPAWNERS]
        elif isinstance(node, ast.ImportFrom):
            found += [f"{node.module}.{a.name}" for a in node.names
                      if node.module == "subprocess" or f"{node.module}.{a.name}" in _SPAWNERS]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if f"{node.value.id}.{node.attr}" in _SPAWNERS:
                found.append(f"{node.value.id}.{node.attr}")
    return found


def test_processes_start_only_in_rgr_proc() -> None:
    offences = {name: spawns for name, path in MODULES.items()
                if name not in PROCESS_MODULES and (spawns := _spawns(path))}
    assert offences == {}


def test_the_process_check_sees_a_spawn(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import os\n\ndef f():\n    from subprocess import run\n"
                      "    os.execvp('x', ['x'])\n")
    assert _spawns(sample) == ["subprocess.run", "os.execvp"]
