"""What a ``conftest.py`` does, judged by its content rather than its name.

pytest gives a conftest powers no test module has: its ``pytest_*`` functions are hooks
(collection, running, reporting), ``pytest_plugins`` loads plugins, ``collect_ignore``
hides files from collection. A conftest that only shares fixtures and helpers uses none
of them and is test code like any test file; one that uses any of them decides how tests
are collected or reported, which no agent may change in any phase.

The judgement is an AST walk with an allow-list: imports (no hook or plugin machinery),
constants and plain names bound to inert values, functions (fixtures or plain helpers,
with only fixture or harmless decorators) and helper classes. Code that runs when pytest
imports the conftest may only call a short list of harmless callables; code anywhere in
the file may not reach pytest's plugin manager, its hook markers or its internals.

The standard library only: the PreToolUse hook (rgr.sandbox.pretool) loads this file by
path, inside the sandbox, to refuse such a conftest before it is written.
"""

from __future__ import annotations

import ast

#: Module-level names pytest reads from a conftest to change collection or plugins.
SPECIAL_NAMES = frozenset({"pytest_plugins", "collect_ignore", "collect_ignore_glob",
                           "pytestmark"})

#: Modules whose import means reaching into the framework's machinery.
MACHINERY_MODULES = frozenset({"_pytest", "pluggy", "atexit", "faulthandler", "builtins",
                               "xdist", "junitparser", "importlib"})

#: Attributes no fixture or helper needs: the plugin manager, hook markers, the hook
#: relay, process exits and tracers, the import machinery.
MACHINERY_ATTRIBUTES = frozenset({"pluginmanager", "hookimpl", "hookspec", "hook", "_exit",
                                  "settrace", "setprofile", "modules", "__import__",
                                  "register_assert_rewrite", "add_hookspecs", "__dict__",
                                  "__class__", "__subclasses__", "__globals__", "__code__"})

#: Decorators a fixture or helper may carry (the last part of their dotted name).
HARMLESS_DECORATORS = frozenset({"fixture", "contextmanager", "asynccontextmanager",
                                 "cache", "lru_cache", "cached_property", "wraps",
                                 "staticmethod", "classmethod", "property", "dataclass",
                                 "total_ordering", "overload"})

#: Callables that code running at import time may call (dotted names, as written).
HARMLESS_CALLS = frozenset({
    "Path", "pathlib.Path", "PurePath", "PurePosixPath", "os.path.join", "os.path.dirname",
    "os.path.abspath", "os.path.realpath", "os.path.normpath", "os.path.basename",
    "os.getenv", "os.environ.get", "str", "int", "float", "bool", "bytes", "tuple", "list",
    "dict", "set", "frozenset", "range", "len", "sorted", "min", "max", "sum", "zip",
    "enumerate", "repr", "re.compile", "TypeVar", "typing.TypeVar", "NamedTuple",
    "namedtuple", "collections.namedtuple", "field", "dataclasses.field", "object",
    "datetime", "datetime.datetime", "datetime.date", "datetime.timedelta", "timedelta",
    "date", "Decimal", "decimal.Decimal", "Fraction", "fixture", "pytest.fixture",
    "pytest.param", "pytest.approx",
})

#: Methods code running at import time may call on what a harmless call returned
#: (``Path(__file__).resolve().parent``).
HARMLESS_METHODS = frozenset({"resolve", "absolute", "joinpath", "with_name", "with_suffix",
                              "strip", "lower", "upper", "format", "split", "join",
                              "replace", "get", "keys", "values", "items", "copy"})


def problems(source: str) -> list[str]:
    """Why this conftest is more than fixtures and helpers (empty: it is only that).
    Each entry names the line and what it does."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return [f"line {exc.lineno}: it does not parse ({exc.msg})"]
    found: list[str] = []
    for statement in tree.body:
        found += _import_time(statement)
    for node in ast.walk(tree):
        found += _machinery(node)
    return sorted(set(found), key=_line_of)


def refusal(path: str, old: str | None, new: str | None) -> str | None:
    """The hook's verdict on writing ``new`` over ``old`` at ``path``: None when it only
    shares fixtures and helpers (before and after), else the reason and the way out."""
    for text in (old, new):
        found = problems(text) if text is not None else []
        if found:
            return ("this conftest.py would " + ("keep " if text is old else "")
                    + "decide how tests are collected or reported (" + "; ".join(found[:3])
                    + "). A conftest may only define fixtures (@pytest.fixture), helpers, "
                    "imports and constants; no agent may change pytest hooks, plugins or "
                    "collection")
    return None


def _line_of(problem: str) -> int:
    head = problem.split(":", 1)[0]
    return int(head[5:]) if head.startswith("line ") and head[5:].isdigit() else 0


def _import_time(statement: ast.stmt) -> list[str]:
    """What a statement that runs when pytest imports the conftest does wrong."""
    where = f"line {statement.lineno}"
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        return []  # a docstring
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return _imports(statement, where)
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
        return _function(statement, where)
    if isinstance(statement, ast.ClassDef):
        found = [f"{where}: class {statement.name} has a decorator that runs code"
                 for d in statement.decorator_list if not _harmless_decorator(d)]
        found += [f"{where}: class {statement.name}'s bases run code"
                  for b in [*statement.bases, *(k.value for k in statement.keywords)]
                  if not _inert(b)]
        for inner in statement.body:
            found += _import_time(inner)
        return found
    if isinstance(statement, ast.Assign | ast.AnnAssign):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        found = []
        for target in targets:
            names = [target] if isinstance(target, ast.Name) else (
                list(target.elts) if isinstance(target, ast.Tuple | ast.List) else [])
            if not names or not all(isinstance(n, ast.Name) for n in names):
                found.append(f"{where}: assigns to {ast.unparse(target)[:60]}, which changes "
                             "something outside this file")
            for name in names:
                if isinstance(name, ast.Name) and _special(name.id):
                    found.append(f"{where}: sets {name.id}, which changes what pytest "
                                 "collects or loads")
        if statement.value is not None and not _inert(statement.value):
            found.append(f"{where}: runs {ast.unparse(statement.value)[:60]} at import")
        return found
    if isinstance(statement, ast.If) and _is_type_checking(statement.test):
        return [p for inner in statement.body for p in _import_time(inner)]
    if isinstance(statement, ast.Pass):
        return []
    return [f"{where}: runs {type(statement).__name__.lower()} code at import "
            f"({ast.unparse(statement).splitlines()[0][:60]})"]


def _imports(statement: ast.Import | ast.ImportFrom, where: str) -> list[str]:
    found = []
    modules = ([a.name for a in statement.names] if isinstance(statement, ast.Import)
               else [statement.module or ""])
    for module in modules:
        if module.split(".")[0] in MACHINERY_MODULES:
            found.append(f"{where}: imports {module}, the test framework's machinery")
    for alias in statement.names:
        bound = alias.asname or alias.name.split(".")[0]
        if alias.name == "*":
            found.append(f"{where}: imports * (it could bring hooks in)")
        elif _special(bound) or alias.name in MACHINERY_ATTRIBUTES:
            found.append(f"{where}: imports {alias.name}, a pytest hook or plugin")
    return found


def _function(node: ast.FunctionDef | ast.AsyncFunctionDef, where: str) -> list[str]:
    found = []
    if _special(node.name):
        found.append(f"{where}: defines {node.name}, a pytest hook")
    for decorator in node.decorator_list:
        if not _harmless_decorator(decorator):
            found.append(f"{where}: {node.name} has the decorator "
                         f"@{ast.unparse(decorator)[:60]}")
    arguments = node.args
    evaluated = [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]
    if any(not _inert(d) for d in evaluated):
        found.append(f"{where}: {node.name}'s default values run code at import")
    return found


def _machinery(node: ast.AST) -> list[str]:
    """Anywhere in the file, fixture bodies included: no reaching into the framework."""
    where = f"line {getattr(node, 'lineno', 0)}"
    if isinstance(node, ast.Attribute) and node.attr in MACHINERY_ATTRIBUTES:
        return [f"{where}: uses .{node.attr}, the test framework's machinery"]
    if isinstance(node, ast.Name) and (node.id in MACHINERY_MODULES or node.id in (
            "__import__", "__builtins__")):
        return [f"{where}: uses {node.id}"]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in ("exec", "eval", "compile", "setattr", "delattr", "globals",
                             "vars", "__import__"):
        return [f"{where}: calls {node.func.id}()"]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in ("getattr", "hasattr") and not (
                len(node.args) > 1 and isinstance(node.args[1], ast.Constant)):
        # getattr(request, "param", None) is fine; a computed name hides what it reads
        return [f"{where}: calls {node.func.id}() with a computed name"]
    return []


def _special(name: str) -> bool:
    return name.startswith("pytest_") or name in SPECIAL_NAMES


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else None
    return None


def _harmless_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    name = _dotted(target)
    if name is None or name.split(".")[-1] not in HARMLESS_DECORATORS:
        return False
    return not isinstance(node, ast.Call) or _inert_arguments(node)


def _inert_arguments(call: ast.Call) -> bool:
    return all(_inert(a) for a in call.args) and all(_inert(k.value) for k in call.keywords)


def _inert(node: ast.expr) -> bool:
    """Whether evaluating ``node`` at import only computes a value: literals, names,
    attribute reads, operators, and calls of harmless callables."""
    if isinstance(node, ast.Call):
        func = node.func
        name = _dotted(func)
        if name in HARMLESS_CALLS:
            return _inert_arguments(node)
        if isinstance(func, ast.Attribute) and func.attr in HARMLESS_METHODS:
            return _inert(func.value) and _inert_arguments(node)
        return False
    if isinstance(node, ast.Lambda):
        return True  # its body runs only when called
    if isinstance(node, ast.NamedExpr | ast.Await | ast.Yield | ast.YieldFrom):
        return False
    if isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
        return all(_inert(c) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)) \
            and all(_inert(g.iter) and all(_inert(i) for i in g.ifs) for g in node.generators)
    return all(_inert(child) for child in ast.iter_child_nodes(node)
               if isinstance(child, ast.expr))


def _is_type_checking(test: ast.expr) -> bool:
    return _dotted(test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
