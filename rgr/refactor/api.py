"""The public API snapshot of a commit's Python modules: each module's public names and
their signatures. A refactor batch must leave it unchanged unless it is allowed to change
the API (operation ``api``).

Public: listed in ``__all__`` when the module defines it, else every top-level name not
starting with ``_``; for public classes also their public methods. Imported names are not
part of a module's own API. Test files (``test_file_globs``) are not an API.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

from rgr.ecosystems.python.modules import module_of
from rgr.refactor.index import RepoIndex, function_signature
from rgr.refactor.plan import RenameSpec
from rgr.store import git
from rgr.store.objects import Blob, Oid, Repository

#: module -> name -> signature
Snapshot = dict[str, dict[str, str]]


def module_api(text: str) -> dict[str, str] | None:
    """Public name -> signature for one module's source; None if it does not parse."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    exported = _dunder_all(tree)
    found: dict[str, str] = {}
    for node in tree.body:
        for name, signature in _top_level(node):
            if (exported is None and not name.split(".")[0].startswith("_")) or (
                    exported is not None and name.split(".")[0] in exported):
                found[name] = signature
    return found


def _dunder_all(tree: ast.Module) -> set[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return None
            if isinstance(value, list | tuple):
                return {str(v) for v in value}
    return None


def _top_level(node: ast.stmt) -> list[tuple[str, str]]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return [(node.name, function_signature(node))]
    if isinstance(node, ast.ClassDef):
        bases = ", ".join(ast.unparse(b) for b in node.bases)
        out = [(node.name, f"class {node.name}({bases})")]
        for child in node.body:
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) and (
                    not child.name.startswith("_") or child.name == "__init__"):
                out.append((f"{node.name}.{child.name}", function_signature(child)))
        return out
    if isinstance(node, ast.Assign):
        return [(t.id, "variable") for t in node.targets
                if isinstance(t, ast.Name) and t.id != "__all__"]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [(node.target.id, "variable")]
    return []


def snapshot(repo: Repository, index: RepoIndex,
             is_test_file: Callable[[str], bool]) -> Snapshot:
    out: Snapshot = {}
    for entry in index.python_files():
        if is_test_file(entry.path) or entry.module is None:
            continue
        blob = repo[Oid(hex=entry.blob)]
        assert isinstance(blob, Blob)
        api = module_api(blob.data.decode("utf-8", "replace"))
        out[entry.module] = api if api is not None else {"<does not parse>": entry.blob}
    return out


def snapshot_paths(repo: Repository, commit: Oid, paths: Iterable[str],
                   is_test_file: Callable[[str], bool]) -> Snapshot:
    """The snapshot of just ``paths`` at ``commit`` (paths missing there are left out)."""
    out: Snapshot = {}
    for path in sorted(paths):
        module = module_of(path)
        if module is None or is_test_file(path):
            continue
        text = git.file_text(repo, commit, path)
        if text is None:
            continue
        api = module_api(text)
        out[module] = api if api is not None else {"<does not parse>": path}
    return out


def compare(before: Snapshot, after: Snapshot) -> list[str]:
    """Human-readable differences, one per changed name; empty when identical."""
    changes: list[str] = []
    for module in sorted(before.keys() | after.keys()):
        old, new = before.get(module), after.get(module)
        if new is None:
            changes.append(f"module {module} removed")
            continue
        if old is None:
            if new:  # a new module with only private names adds no API
                changes.append(f"module {module} added (public: {', '.join(sorted(new))})")
            continue
        for name in sorted(old.keys() | new.keys()):
            if name not in new:
                changes.append(f"{module}.{name} removed (was `{old[name]}`)")
            elif name not in old:
                changes.append(f"{module}.{name} added (`{new[name]}`)")
            elif old[name] != new[name]:
                changes.append(f"{module}.{name} changed: `{old[name]}` -> `{new[name]}`")
    return changes


def renamed(before: Snapshot, spec: RenameSpec) -> Snapshot:
    """``before`` as it must look after ``spec``: the one expected API change of a rename
    batch (the symbol's name, nothing else about it)."""
    module = module_of(spec.path)
    if module is None or module not in before:
        return before
    old, new = spec.symbol, spec.new_name
    api: dict[str, str] = {}
    for name, signature in before[module].items():
        head, dot, rest = name.partition(".")
        if head == old:
            name = new + dot + rest
            for keyword in ("def ", "async def ", "class "):
                if signature.startswith(f"{keyword}{old}(") or signature == f"{keyword}{old}":
                    signature = keyword + new + signature[len(keyword) + len(old):]
        api[name] = signature
    return {**before, module: api}
