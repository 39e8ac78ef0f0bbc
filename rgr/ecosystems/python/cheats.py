"""The cheat idioms in Python source, judged by its syntax tree: what the code does, never
the words it contains (a comment or a string that mentions ``PYTEST_CURRENT_TEST`` reads
nothing). The source is parsed, never run. The rules are rgr.check.cheats'; each sighting
names one of them (rgr.check.cheats.rules), and the checks make it a finding.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from rgr.ecosystems.language import Sighting

#: Methods whose answer must depend on the other operand.
COMPARISONS = frozenset({"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"})

#: Modules whose presence says "a test is running".
FRAMEWORK_MODULES = frozenset({"pytest", "_pytest", "unittest", "nose", "nose2"})

#: Calls that ask whether a module is loaded (not whether it is installed: a tool may
#: honestly ask ``importlib.util.find_spec("pytest")`` before offering to run tests).
FRAMEWORK_LOOKUPS = frozenset({"sys.modules.get", "sys.modules.__contains__"})

#: What reads the call stack, to find a test function among the callers.
STACK_READERS = frozenset({
    "inspect.stack", "inspect.currentframe", "inspect.getouterframes", "inspect.trace",
    "sys._getframe", "sys._current_frames", "traceback.extract_stack",
    "traceback.format_stack", "traceback.print_stack", "traceback.walk_stack",
})
#: Frame attributes that climb to a caller's frame.
FRAME_CLIMBERS = frozenset({"f_back", "tb_frame"})

#: Where environment variables are read (resolved through the file's imports).
ENVIRONMENT = "os.environ"
ENVIRONMENT_READERS = frozenset({"os.getenv", "os.environ.get", "os.environ.pop",
                                 "os.environ.setdefault", "os.environb.get"})

#: Calls that end the process; with no code, 0, None or False they report success.
EXITS = frozenset({"sys.exit", "os._exit", "exit", "quit", "builtins.exit"})

#: pytest hooks that can rewrite what was collected or how a test ended.
OUTCOME_HOOKS = frozenset({
    "pytest_runtest_makereport", "pytest_collection_modifyitems", "pytest_runtest_logreport",
    "pytest_report_teststatus", "pytest_runtest_protocol", "pytest_runtest_call",
    "pytest_pyfunc_call", "pytest_collectreport", "pytest_itemcollected",
    "pytest_collection_finish", "pytest_terminal_summary", "pytest_sessionfinish",
    "pytest_assertrepr_compare", "pytest_exception_interact",
})

#: Attribute names of assertions: replacing one makes it pass whatever it is given.
ASSERTION_NAME = re.compile(r"assert([A-Z_]|$)|fail(If|Unless\w*)?$|failureException$")

#: Functions that replace an attribute: (object, "name", ...) or ("dotted.target", ...).
PATCHERS = frozenset({"setattr", "delattr", "patch", "object", "setitem", "delitem"})


@dataclass(frozen=True)
class _Where:
    """What encloses a node: the main entry (an ``if __name__ == "__main__"`` block or a
    top-level ``main`` function), where a program may end itself; a ``try`` body, where
    an import is a question (``try: import pytest`` asks whether tests run)."""

    main_entry: bool = False
    trying: bool = False


def findings(path: str, source: str, is_test: bool) -> list[Sighting]:
    """Every cheat idiom in ``source``; in a test file (or conftest) only the framework
    patches count: the other idioms are cheats of code under test."""
    try:
        tree = ast.parse(source)
        return _judged(path, tree, is_test)
    except (SyntaxError, ValueError, RecursionError):
        # Python itself cannot compile it either: the test run says so
        return []


def _judged(path: str, tree: ast.Module, is_test: bool) -> list[Sighting]:
    names = _imported_names(tree)
    found: list[Sighting] = []
    # a conftest's hooks are conftest_rules' to refuse (test-infra-changed), any of them
    hooks = path.rsplit("/", 1)[-1] != "conftest.py"
    for node, where in _walk(tree, _Where(main_entry=path.endswith("__main__.py"))):
        found += _patches(path, node, names, hooks)
        if not is_test:
            found += _always_equal(path, node)
            found += _detects_test_run(path, node, names, where)
            if not where.main_entry:
                found += _exits_with_success(path, node, names)
    return found


# -- the walk --------------------------------------------------------------------------


def _walk(tree: ast.Module, where: _Where) -> Iterator[tuple[ast.AST, _Where]]:
    """Every node with what encloses it; a stack, not recursion, for the deepest file."""
    stack: list[tuple[ast.AST, _Where, int]] = [(tree, where, 0)]
    while stack:
        node, outer, depth = stack.pop()
        yield node, outer
        for child in ast.iter_child_nodes(node):
            guarded = isinstance(node, ast.If) and _is_main_guard(node.test) \
                and child in node.body
            main = isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) and depth == 0 \
                and child.name == "main"
            trying = isinstance(node, ast.Try | ast.TryStar) and child in node.body
            stack.append((child, _Where(main_entry=outer.main_entry or guarded or main,
                                        trying=outer.trying or trying), depth + 1))


def _is_main_guard(test: ast.expr) -> bool:
    return isinstance(test, ast.Compare) and len(test.ops) == 1 \
        and isinstance(test.ops[0], ast.Eq) \
        and {_constant_or_name(test.left), _constant_or_name(test.comparators[0])} \
        == {"__name__", "'__main__'"}


def _constant_or_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return repr(node.value)
    return None


# -- names -----------------------------------------------------------------------------


def _imported_names(tree: ast.Module) -> dict[str, str]:
    """Local name -> the dotted name it was imported as (``from os import environ as e``:
    ``e`` -> ``os.environ``), so that an alias hides nothing."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _resolved(node: ast.expr, names: dict[str, str]) -> str | None:
    """``node``'s dotted name with its first part resolved through the imports."""
    if isinstance(node, ast.Name):
        return names.get(node.id, node.id)
    if isinstance(node, ast.Attribute):
        inner = _resolved(node.value, names)
        return f"{inner}.{node.attr}" if inner else None
    return None


def _text(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _finding(rule: str, path: str, node: ast.AST, detail: str) -> list[Sighting]:
    line = getattr(node, "lineno", 1)
    return [Sighting(rule, line, getattr(node, "end_lineno", None) or line, detail)]


def _said(node: ast.AST) -> str:
    """The code of ``node``, shortened (unparsing recurses: a file built to be deep gets
    the line number alone, and its finding stands)."""
    try:
        return ast.unparse(node).splitlines()[0][:80]
    except RecursionError:
        return f"the code on line {getattr(node, 'lineno', '?')}"


# -- always-equal ----------------------------------------------------------------------


def _always_equal(path: str, node: ast.AST) -> list[Sighting]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in COMPARISONS:
        arguments = [*node.args.posonlyargs, *node.args.args]
        other = arguments[1].arg if len(arguments) > 1 else node.args.vararg.arg \
            if node.args.vararg else None
        returns = [n for n in ast.walk(node) if isinstance(n, ast.Return)]
        reads_other = other is not None and any(
            isinstance(n, ast.Name) and n.id == other for n in ast.walk(node))
        if returns and not reads_other and all(_boolean_constant(r.value) for r in returns):
            operand = other or "its operand"
            return _finding("always-equal", path, node,
                            f"{node.name} returns a constant and never reads {operand}")
    if isinstance(node, ast.ClassDef):
        found = []
        for statement in node.body:
            if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Lambda) \
                    and _boolean_constant(statement.value.body) and any(
                        isinstance(t, ast.Name) and t.id in COMPARISONS
                        for t in statement.targets):
                found += _finding("always-equal", path, statement,
                                  f"{_said(statement)} returns a constant")
        return found
    return []


def _boolean_constant(node: ast.expr | None) -> bool:
    """A literal answer (``True``, ``1``, ``not False``): not ``NotImplemented``, which
    hands the question to the other operand."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _boolean_constant(node.operand)
    return isinstance(node, ast.Constant) and node.value is not None \
        and isinstance(node.value, bool | int)


# -- detects-test-run ------------------------------------------------------------------


def _test_variable(node: ast.expr | None) -> bool:
    text = _text(node)
    return text is not None and (text.startswith("PYTEST_") or text.startswith("_PYTEST"))


def _framework_module(node: ast.expr | None) -> bool:
    text = _text(node)
    return text is not None and text.split(".")[0] in FRAMEWORK_MODULES


def _detects_test_run(path: str, node: ast.AST, names: dict[str, str],
                      where: _Where) -> list[Sighting]:
    rule = "detects-test-run"
    if isinstance(node, ast.Import | ast.ImportFrom) and where.trying:
        # a plain import fails loudly where the framework is missing; one in a try asks
        # (the word-level rule hooks-test-framework refuses a plain one in GREEN)
        modules = [a.name for a in node.names] if isinstance(node, ast.Import) \
            else [node.module or ""]
        framework = [m for m in modules if m.split(".")[0] in FRAMEWORK_MODULES
                     and not m.startswith("unittest.mock")]
        return _finding(rule, path, node, f"tries to import {framework[0]} to learn "
                        "whether it runs under a test") if framework else []
    if isinstance(node, ast.Compare | ast.Call) and _names_runner_in_argv(node, names):
        return _finding(rule, path, node, f"{_said(node)} looks for a test runner in sys.argv")
    if isinstance(node, ast.Call):
        called = _resolved(node.func, names)
        first = node.args[0] if node.args else None
        if called in ENVIRONMENT_READERS and _test_variable(first):
            return _finding(rule, path, node, f"{_said(node)} reads a test runner's variable")
        if called in FRAMEWORK_LOOKUPS and _framework_module(first):
            return _finding(rule, path, node, f"{_said(node)} looks for the test framework")
        return []
    if isinstance(node, ast.Subscript):
        container = _resolved(node.value, names)
        if container in (ENVIRONMENT, "os.environb") and _test_variable(node.slice):
            return _finding(rule, path, node, f"{_said(node)} reads a test runner's variable")
        if container == "sys.modules" and _framework_module(node.slice):
            return _finding(rule, path, node, f"{_said(node)} looks for the test framework")
        return []
    if isinstance(node, ast.Compare) and any(isinstance(o, ast.In | ast.NotIn)
                                             for o in node.ops):
        containers = {_resolved(c, names) for c in node.comparators}
        if ENVIRONMENT in containers and _test_variable(node.left):
            return _finding(rule, path, node, f"{_said(node)} reads a test runner's variable")
        if "sys.modules" in containers and _framework_module(node.left):
            return _finding(rule, path, node, f"{_said(node)} looks for the test framework")
        return []
    if isinstance(node, ast.Name | ast.Attribute) and _resolved(node, names) in STACK_READERS:
        return _finding(rule, path, node, f"{_said(node)} reads the call stack")
    if isinstance(node, ast.Attribute) and node.attr in FRAME_CLIMBERS:
        return _finding(rule, path, node, f"{_said(node)} climbs to a caller's frame")
    return []


def _names_runner_in_argv(node: ast.Compare | ast.Call, names: dict[str, str]) -> bool:
    """``"pytest" in sys.argv[0]``, ``sys.argv[0].endswith("pytest")``: the command line
    compared with a test runner's name."""
    parts = [node.left, *node.comparators] if isinstance(node, ast.Compare) \
        else [node.func, *node.args]
    inside = [n for part in parts for n in ast.walk(part)]
    return any(isinstance(n, ast.Attribute) and _resolved(n, names) == "sys.argv"
               for n in inside) and any(
        any(runner in (_text(n) or "") for runner in ("pytest", "unittest", "py.test"))
        for n in inside if isinstance(n, ast.Constant))


# -- exits-with-success ----------------------------------------------------------------


def _exits_with_success(path: str, node: ast.AST, names: dict[str, str]) -> list[Sighting]:
    rule = "exits-with-success"
    if isinstance(node, ast.Call) and _resolved(node.func, names) in EXITS:
        code = node.args[0] if node.args else None
        if code is None or _success_code(code):
            return _finding(rule, path, node, f"{_said(node)} ends the process with success")
    if isinstance(node, ast.Raise) and node.exc is not None:
        exc = node.exc
        called = exc.func if isinstance(exc, ast.Call) else exc
        if _resolved(called, names) in ("SystemExit", "builtins.SystemExit") and (
                not isinstance(exc, ast.Call) or not exc.args or _success_code(exc.args[0])):
            return _finding(rule, path, node, f"{_said(node)} ends the process with success")
    return []


def _success_code(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and (
        node.value is None or (isinstance(node.value, int | bool) and node.value == 0))


# -- patches-test-framework ------------------------------------------------------------


def _framework_target(dotted: str | None) -> bool:
    """Whether ``dotted`` names a part of the test framework (``unittest.mock`` is a
    library tests use, not the framework's verdict)."""
    if not dotted:
        return False
    head = dotted.split(".")[0]
    return (head in ("pytest", "_pytest", "unittest") and not dotted.startswith("unittest.mock")) \
        or dotted in ("builtins.AssertionError", "__builtins__.AssertionError")


def _assertion_name(name: str) -> bool:
    """An assertion of unittest's TestCase (``assertEqual``, ``fail``, ``failUnless``...)
    or of a mock (``assert_called_once``), or what a failure raises."""
    return ASSERTION_NAME.match(name) is not None


def _patches(path: str, node: ast.AST, names: dict[str, str],
             hooks: bool) -> list[Sighting]:
    rule = "patches-test-framework"
    if hooks and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) \
            and node.name in OUTCOME_HOOKS:
        return [Sighting(rule, node.lineno, node.lineno,
                         f"defines {node.name}, a hook that can rewrite outcomes")]
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign | ast.Delete):
        targets = list(node.targets)
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        targets = [node.target]
    for target in targets:
        if isinstance(target, ast.Attribute) and (
                _framework_target(_resolved(target, names)) or _assertion_name(target.attr)):
            return _finding(rule, path, node, f"{_said(node)} replaces part of the framework")
        if isinstance(target, ast.Subscript) and _resolved(target.value, names) in (
                "__builtins__", "builtins.__dict__") and _text(target.slice) == "AssertionError":
            return _finding(rule, path, node, f"{_said(node)} replaces AssertionError")
    if isinstance(node, ast.Call):
        called = _resolved(node.func, names) or ""
        if called.split(".")[-1] not in PATCHERS or not node.args:
            return []
        first, second = node.args[0], node.args[1] if len(node.args) > 1 else None
        attribute = _text(second) if _text(first) is None else None
        # patch("unittest.TestCase.assertEqual") or setattr(unittest.TestCase, "assertEqual")
        patched = _text(first) or (f"{_resolved(first, names)}.{attribute}" if attribute
                                   else _resolved(first, names))
        if _framework_target(patched) or (attribute is not None
                                          and _assertion_name(attribute)):
            return _finding(rule, path, node, f"{_said(node)} patches the test framework")
    return []
