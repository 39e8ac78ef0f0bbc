"""A small index of the repository at one commit: files with hashes, Python symbols and
imports (through ``ast``), fan-in per module, and context packets within budgets.

Everything is read from git objects, not the working tree, so the index describes
exactly the commit a batch starts from. Non-Python files are listed with their hash
and size only (best-effort: no symbols).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from rgr.ecosystems.python.modules import module_of
from rgr.store.objects import Blob, Oid, Repository, Tree

#: Seed 000 §13.1: the budgets of one context packet.
PACKET_CHARS = 40_000
PACKET_EXCERPT_LINES = 600
#: Files larger than this are indexed by hash only.
MAX_PARSE_BYTES = 512 * 1024


@dataclass(frozen=True)
class Symbol:
    name: str
    kind: str  # function, class, method, variable
    line: int
    signature: str
    doc: str = ""


@dataclass
class FileEntry:
    path: str
    blob: str  # the git blob id: the file's content hash
    size: int
    module: str | None = None  # dotted name for Python files
    symbols: list[Symbol] = field(default_factory=list)
    imports: set[str] = field(default_factory=set)  # dotted modules imported
    parse_error: str | None = None
    lines: int = 0


@dataclass
class RepoIndex:
    commit: str
    files: dict[str, FileEntry]
    fan_in: dict[str, int]  # module -> how many other files import it

    def hotspots(self, limit: int = 10) -> list[tuple[str, int, int]]:
        """(path, fan-in, lines) of the Python modules most depended upon, busiest first."""
        rows = [(e.path, self.fan_in.get(e.module or "", 0), e.lines)
                for e in self.files.values() if e.module is not None]
        rows.sort(key=lambda r: (-r[1], -r[2], r[0]))
        return rows[:limit]

    def python_files(self) -> list[FileEntry]:
        return [e for e in self.files.values() if e.module is not None]


def build_index(repo: Repository, commit: Oid) -> RepoIndex:
    tree = repo[commit].peel(Tree)
    files: dict[str, FileEntry] = {}
    for path, blob in _walk(repo, tree, ""):
        entry = FileEntry(path, str(blob.id), blob.size, module_of(path))
        if entry.module is not None and not blob.is_binary and blob.size <= MAX_PARSE_BYTES:
            _parse_python(entry, blob.data.decode("utf-8", "replace"))
        elif entry.module is not None:
            entry.module = None
        files[path] = entry
    modules = {e.module for e in files.values() if e.module}
    fan_in: dict[str, int] = dict.fromkeys(modules, 0)
    for entry in files.values():
        targets = {_resolve(imported, modules) for imported in entry.imports}
        for target in targets - {None, entry.module}:
            assert target is not None
            fan_in[target] += 1
    return RepoIndex(str(commit), files, fan_in)


def _walk(repo: Repository, tree: Tree,
          prefix: str) -> list[tuple[str, Blob]]:
    out: list[tuple[str, Blob]] = []
    for item in tree:
        name = f"{prefix}{item.name}"
        obj = repo[item.id]
        if isinstance(obj, Tree):
            out.extend(_walk(repo, obj, name + "/"))
        elif isinstance(obj, Blob):
            out.append((name, obj))
    return out


def _resolve(imported: str, modules: set[str]) -> str | None:
    """The indexed module an import refers to (``a.b.c`` -> ``a.b.c`` or ``a.b``)."""
    parts = imported.split(".")
    while parts:
        name = ".".join(parts)
        if name in modules:
            return name
        parts.pop()
    return None


def _parse_python(entry: FileEntry, text: str) -> None:
    entry.lines = text.count("\n") + 1
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        entry.parse_error = f"line {exc.lineno}: {exc.msg}"
        return
    package = (entry.module or "").rsplit(".", 1)[0] if entry.module else ""
    if entry.path.endswith("__init__.py"):
        package = entry.module or ""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            entry.imports.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: max(0, len(package.split(".")) - node.level + 1)]
                base = ".".join([*anchor, base] if base else anchor)
            entry.imports.add(base)
            entry.imports.update(f"{base}.{alias.name}" for alias in node.names)
    for node in tree.body:
        entry.symbols.extend(_symbols(node, ""))


def _symbols(node: ast.stmt, owner: str) -> list[Symbol]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        kind = "method" if owner else "function"
        return [Symbol(owner + node.name, kind, node.lineno, function_signature(node),
                       _doc(node))]
    if isinstance(node, ast.ClassDef):
        bases = ", ".join(ast.unparse(b) for b in node.bases)
        found = [Symbol(owner + node.name, "class", node.lineno,
                        f"class {node.name}({bases})" if bases else f"class {node.name}",
                        _doc(node))]
        for child in node.body:
            found.extend(_symbols(child, f"{owner}{node.name}."))
        return found
    if isinstance(node, ast.Assign) and not owner:
        return [Symbol(t.id, "variable", node.lineno, t.id) for t in node.targets
                if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and not owner and isinstance(node.target, ast.Name):
        return [Symbol(node.target.id, "variable", node.lineno,
                       f"{node.target.id}: {ast.unparse(node.annotation)}")]
    return []


def function_signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    return f"{prefix} {node.name}({ast.unparse(node.args)}){returns}"


def _doc(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
    doc = ast.get_docstring(node) or ""
    return doc.strip().splitlines()[0][:120] if doc.strip() else ""


# --------------------------------------------------------------------------- packets


def overview(index: RepoIndex, limit_chars: int = 6_000) -> str:
    """The planner's view: hotspots, then each Python module's symbols (signatures only)."""
    lines = ["Hotspots (Python modules by fan-in, then size):"]
    for path, fan_in, size in index.hotspots():
        lines.append(f"- {path}: imported by {fan_in} file(s), {size} lines")
    lines.append("")
    lines.append("Modules and their top-level symbols:")
    for entry in sorted(index.python_files(), key=lambda e: e.path):
        problem = f"  (does not parse: {entry.parse_error})" if entry.parse_error else ""
        lines.append(f"{entry.path} ({entry.lines} lines){problem}")
        for symbol in entry.symbols:
            if "." not in symbol.name:
                lines.append(f"    L{symbol.line} {symbol.signature}")
    others = sorted(p for p, e in index.files.items() if e.module is None)
    if others:
        lines.append("")
        lines.append("Other files: " + ", ".join(others[:60])
                     + (f" (+{len(others) - 60} more)" if len(others) > 60 else ""))
    return _cut("\n".join(lines), limit_chars)


def context_packet(repo: Repository, index: RepoIndex, paths: list[str], *,
                   max_chars: int = PACKET_CHARS,
                   max_lines: int = PACKET_EXCERPT_LINES) -> str:
    """One batch's context (seed 000 §13): for each in-scope file its signatures, and an
    excerpt; small files whole. Stops at the character and excerpt-line budgets."""
    out: list[str] = []
    used_lines = 0
    used_chars = 0
    ranked = sorted(paths, key=lambda p: (-index.fan_in.get(index.files[p].module or "", 0), p)
                    if p in index.files else (0, p))
    for position, path in enumerate(ranked):
        entry = index.files.get(path)
        if entry is None:
            continue
        head = [f"### {path} (blob {entry.blob[:10]}, {entry.lines or '?'} lines, "
                f"imported by {index.fan_in.get(entry.module or '', 0)})"]
        head += [f"    L{s.line} {s.signature}" + (f"  # {s.doc}" if s.doc else "")
                 for s in entry.symbols]
        blob = repo[Oid(hex=entry.blob)]
        assert isinstance(blob, Blob)
        lines = [] if blob.is_binary else blob.data.decode("utf-8", "replace").splitlines()
        excerpt = lines[: min(max_lines - used_lines, 120)]
        body: list[str] = []
        if excerpt:
            more = len(lines) - len(excerpt)
            body = ["```", *excerpt, "```"] if not more else \
                ["```", *excerpt, f"[... {more} more lines: Read the file]", "```"]
        block = "\n".join(head + body)
        if used_chars + len(block) > max_chars:
            # over budget: signatures only, and the model Reads the file if it must
            block = "\n".join([*head, "[excerpt left out: context budget]"])
            body = []
        if used_chars + len(block) > max_chars:
            out.append(f"[context budget reached: {len(ranked) - position} file(s) left "
                       "out; Read them if you need them]")
            break
        if body:
            used_lines += len(excerpt)
        out.append(block)
        used_chars += len(block) + 1
    related = related_files(index, paths)
    if related and (room := max_chars - used_chars) > 200:
        lines = ["### Related files outside the scope (signatures only; do not edit)"]
        for path in related:
            entry = index.files[path]
            lines.append(f"{path}:")
            lines += [f"    L{s.line} {s.signature}" for s in entry.symbols
                      if "." not in s.name]
        out.append(_cut("\n".join(lines), room))
    return "\n".join(out)


def related_files(index: RepoIndex, paths: list[str], limit: int = 10) -> list[str]:
    """Python files outside ``paths`` that they import or that import them (seed 000
    §13.2: import-referenced files), busiest first."""
    inside = set(paths)
    modules = {index.files[p].module for p in paths if p in index.files} - {None}
    by_module = {e.module: e.path for e in index.python_files()}
    found: set[str] = set()
    for path in paths:
        entry = index.files.get(path)
        for imported in entry.imports if entry else ():
            parts = imported.split(".")
            while parts and ".".join(parts) not in by_module:
                parts.pop()
            if parts:
                found.add(by_module[".".join(parts)])
    for entry in index.python_files():
        if any(_resolves_to(i, m) for i in entry.imports for m in modules):
            found.add(entry.path)
    ranked = sorted(found - inside,
                    key=lambda p: (-index.fan_in.get(index.files[p].module or "", 0), p))
    return ranked[:limit]


def _resolves_to(imported: str, module: str | None) -> bool:
    return module is not None and (imported == module or imported.startswith(module + "."))


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "\n[... cut]"
