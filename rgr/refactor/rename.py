"""Renames done by a library, not a model (seed 001): rope renames a top-level symbol and
every reference to it in the project; rgr then commits the result and holds it to the
same checks and gate as an agent's batch.
"""

from __future__ import annotations

import ast
import io
import tokenize
import warnings
from pathlib import Path

from rgr.base.errors import RgrError
from rgr.refactor.plan import RenameSpec


class RenameFailed(RgrError):
    """rope could not carry out the rename."""

    category = "phase"


def symbol_offset(source: str, symbol: str) -> int:
    """The character offset of ``symbol``'s name in its top-level definition."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    for node in tree.body:
        line: int | None = None
        col = 0
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) \
                and node.name == symbol:
            line = node.lineno
            text = lines[line - 1]
            keyword = "class " if isinstance(node, ast.ClassDef) else "def "
            col = text.index(keyword, node.col_offset) + len(keyword)
            while text[col] == " ":
                col += 1
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id == symbol:
                    line, col = target.lineno, target.col_offset
        if line is not None:
            return sum(len(x) for x in lines[: line - 1]) + col
    raise RenameFailed(f"{symbol!r} is not defined at the top level")


def rope_rename(root: Path, spec: RenameSpec, files: list[str] | None = None) -> list[str]:
    """Rename in the working tree; returns the paths rope changed (relative to root).

    ``files`` limits where rope looks for references (rgr passes the Python files git
    tracks, so a virtualenv or build directory inside the project is never read or
    touched); None lets rope search the whole directory.
    """
    from rope.base.project import Project
    from rope.refactor.rename import Rename

    path = root / spec.path
    try:
        offset = symbol_offset(path.read_text(encoding="utf-8"), spec.symbol)
    except (OSError, SyntaxError) as exc:
        raise RenameFailed(f"cannot read {spec.path}: {exc}") from None
    # ropefolder=None: rope keeps no .ropeproject/ in the user's tree.
    with warnings.catch_warnings():
        # rope 1.15 warns about its own deprecated internals when a project opens
        warnings.simplefilter("ignore", DeprecationWarning)
        project = Project(str(root), ropefolder=None)
    try:
        resource = project.get_resource(spec.path)
        resources = None if files is None else [
            project.get_resource(f) for f in files if (root / f).is_file()]
        changes = Rename(project, resource, offset).get_changes(spec.new_name,
                                                                resources=resources)
        changed = sorted(r.path for r in changes.get_changed_resources())
        project.do(changes)
    except Exception as exc:  # rope raises its own error types, and a few builtins
        raise RenameFailed(f"rope could not rename {spec.symbol} in {spec.path}: "
                           f"{type(exc).__name__}: {exc}") from None
    finally:
        project.close()
    return changed


def _tokens(source: str) -> list[tokenize.TokenInfo] | None:
    try:
        return list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return None


def is_pure_rename(old: str, new: str, symbol: str, new_name: str) -> bool:
    """Whether ``new`` is ``old`` with some occurrences of the identifier ``symbol``
    replaced by ``new_name`` and nothing else changed, byte for byte.

    This is what rope does to a file that uses a renamed symbol, a test file included:
    the assertions stay as they were, only the name they call changes, so the change
    keeps the tests' meaning. Compared token by token (a ``calc`` inside a string or a
    longer name such as ``calculate`` is never a rename), then rebuilt from ``old`` to
    check that whitespace and comments are untouched too.
    """
    if old == new:
        return True
    before, after = _tokens(old), _tokens(new)
    if before is None or after is None or len(before) != len(after):
        return False
    lines = old.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    rebuilt: list[str] = []
    at = 0
    for a, b in zip(before, after, strict=True):
        if a.type == b.type and a.string == b.string:
            continue
        if not (a.type == b.type == tokenize.NAME and a.string == symbol
                and b.string == new_name):
            return False
        start = offsets[a.start[0] - 1] + a.start[1]
        rebuilt.append(old[at:start] + new_name)
        at = start + len(symbol)
    rebuilt.append(old[at:])
    return "".join(rebuilt) == new
