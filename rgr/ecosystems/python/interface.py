"""The public interface a Python test file uses, by the AST: the names it imports
(``from calc import add``; ``import calc`` then ``calc.add``), found in the project's
modules, and for each its signature (``def add(a, b)``; a class with its public
methods' signatures). Never a body, a default value's computation beyond its source
text, a docstring or a comment."""

from __future__ import annotations

import ast
import posixpath

from rgr.ecosystems.language import Lister, Reader


def interface(test_path: str, text: str, read: Reader) -> list[str]:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    wanted: dict[str, set[str]] = {}  # module -> names used from it
    aliases: dict[str, str] = {}  # name bound by `import x as y` -> module
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            wanted.setdefault(node.module, set()).update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name] = alias.name
                wanted.setdefault(alias.name, set())
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            dotted = _dotted(node.value)
            if dotted in aliases:
                wanted[aliases[dotted]].add(node.attr)
    out: list[str] = []
    for module, names in wanted.items():
        found = _module_file(module, test_path, read)
        if found is None:
            continue  # a library, not the project's code
        path, source = found
        signatures = _signatures(source, names)
        if signatures:
            out.append(f"# {path} (module {module})")
            out += signatures
    return out


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


def _module_file(module: str, test_path: str, read: Reader) -> tuple[str, str] | None:
    """The project's file for ``module``: at the root, under src/, or beside the test."""
    stem = module.replace(".", "/")
    beside = posixpath.dirname(test_path)
    for folder in ("", "src", beside):
        for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
            path = posixpath.join(folder, candidate) if folder else candidate
            text = read(path)
            if text is not None:
                return path, text
    return None


def _signatures(source: str, names: set[str]) -> list[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in names:
            out.append(_function(node))
        elif isinstance(node, ast.ClassDef) and node.name in names:
            out += _class(node)
    return out


def _function(node: ast.FunctionDef | ast.AsyncFunctionDef, indent: str = "") -> str:
    keyword = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    return f"{indent}{keyword} {node.name}({ast.unparse(node.args)}){returns}"


def _class(node: ast.ClassDef) -> list[str]:
    bases = ", ".join(ast.unparse(b) for b in node.bases)
    out = [f"class {node.name}({bases})" if bases else f"class {node.name}"]
    for item in node.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and (
                not item.name.startswith("_") or item.name == "__init__"):
            out.append(_function(item, "    "))
    return out


class PythonInterface:
    """The examiner's view of a Python test file; none of the project's code found
    (a library's API only) shows nothing, not the import lines."""

    suffixes = (".py",)
    shows_imports = False

    def interface(self, test_path: str, text: str, read: Reader,
                  listing: Lister | None) -> list[str]:
        return interface(test_path, text, read)


INTERFACE = PythonInterface()
