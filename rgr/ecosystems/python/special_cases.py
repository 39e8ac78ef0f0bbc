"""Special cases in Python functions, by their syntax tree (the standard library's
``ast``): fake-it's reading of Python code (rgr.check.fakeit.ledger asks for it through
``Language.fakeit_tree``; the rules are those its token readers follow for the other
languages, rgr.check.fakeit.tokens and tables).

For a function ``f`` and the facts of the tests that call ``f``:

* ``constant``: every ``return`` of ``f`` gives a literal, one of them a test's
  expected value (``return 5`` for ``assert add(2, 3) == 5``), and ``f`` decides
  nothing from its inputs but by equality with fixed values (no ``if n > 0``, no loop);
* ``input-branch``: an ``if`` on exactly a test's arguments (``(a, b) == (2, 3)``,
  ``a == 2 and b == 3``) that returns that test's expected value, in a function whose
  every return gives a literal;
* ``input-table``: a dict literal whose every key is a test's input (``{(2, 3): 5}``),
  in the function or at module level and named by it (``_KNOWN = {"90s": 90}`` read as
  ``_KNOWN[text]``; that far from the code it counts only when it also answers a test's
  expected value, as data there is more often real). A test's input is its call with
  the keywords and defaults filled from the signature (``percent(0.5)`` of
  ``def percent(ratio, digits=0, sign=False)`` is ``(0.5, 0, False)``), as a table keyed
  by every parameter is looked up. A function the test passes (``total_size(['a'],
  size_of)``) is called, never a key: the values beside it are the input, and a list
  argument's parts joined or made a tuple the way the function does to that parameter
  (``_KNOWN[",".join(names)]``, ``_KNOWN[tuple(names)]``) are that argument's keys.

A function with a general path (a return that computes, ``return n * f(n - 1)``, or a
condition that is no equality, ``if n > 0: return 1``) keeps its branches and
constants: ``if n == 0: return 0`` there is a base case, ``sign``'s ``return 1`` an
answer, not a fake. A table with any key no test uses is real data.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterator, Sequence

from rgr.ecosystems.fact import Fact, is_callback
from rgr.ecosystems.python.facts import literal_text
from rgr.ecosystems.special_case import SpecialCase

__all__ = ["function_lines", "special_cases"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef


def special_cases(path: str, source: str, lines: Collection[int] | None,
                  facts: Sequence[Fact]) -> list[SpecialCase]:
    """The special cases of the functions of ``source`` that touch ``lines`` (None: every
    function), judged against ``facts``."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []  # not Python rgr can read: nothing said about it
    found: list[SpecialCase] = []
    tables = _module_tables(tree)
    functions = {f.name: f for f in ast.walk(tree) if isinstance(f, _Function)}
    for function in ast.walk(tree):
        if not isinstance(function, _Function):
            continue
        if lines is not None and not _touched(function, lines) and not any(
                _touched(tables[n.id], lines) for n in _own_nodes(function)
                if isinstance(n, ast.Name) and n.id in tables):
            continue  # neither it nor a module table it reads changed
        mine = [f for f in facts if f.callee == function.name]
        if mine:
            found.extend(_cases(path, function, mine, tables, functions))
    return found


def function_lines(source: str) -> list[tuple[str, tuple[int, int]]]:
    """Each function of ``source`` by name, with its first and last line: where the
    special cases a debt names lie (rgr.check.fakeit.blame)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    return [(node.name, (node.lineno, node.end_lineno or node.lineno))
            for node in ast.walk(tree) if isinstance(node, _Function)]


#: A test's call on an object after others: its own inputs, the values the calls
#: before it passed (defaults filled), and what it expects.
_Stated = tuple[tuple[str, ...], list[str], Fact]


def _stated(function: _Function, facts: Sequence[Fact],
            functions: dict[str, _Function]) -> list[_Stated]:
    """The facts of calls made after others on the same object (``Fact.before``): the
    object's state is those calls' doing, so their values are inputs too."""
    out: list[_Stated] = []
    for fact in facts:
        args = _filled(function, fact) if fact.before else None
        if args is None:
            continue
        values: list[str] = []
        for method, called in fact.before:
            positional = tuple(a for a in called if not _KEYWORD.match(a))
            keywords = tuple((k, v) for k, _, v in (a.partition("=") for a in called
                                                     if _KEYWORD.match(a)))
            target = functions.get(method)
            filled = _filled(target, Fact(method, positional, "", "", keywords)) \
                if target is not None else None
            values += filled if filled is not None else [*positional,
                                                         *(v for _, v in keywords)]
        out.append((args, values, fact))
    return out


_KEYWORD = re.compile(r"^[A-Za-z_]\w*=")


def _from_state(key: ast.expr, value: ast.expr, stated: list[_Stated]) -> Fact | None:
    """Whether the table's ``key`` is a stated call's inputs followed by values the calls
    before it passed (each used at most as often as passed), answering its value."""
    parts = [literal_text(e) for e in key.elts] if isinstance(key, ast.Tuple) \
        else [literal_text(key)]
    answer = literal_text(value)
    for args, values, fact in stated:
        rest = parts[len(args):]
        if tuple(parts[:len(args)]) != args or not rest or answer != fact.expected:
            continue
        left = list(values)
        for part in rest:
            if part not in left:
                break
            left.remove(part)
        else:
            return fact
    return None


def _touched(node: ast.stmt | ast.expr, lines: Collection[int]) -> bool:
    end = node.end_lineno or node.lineno
    return any(node.lineno <= n <= end for n in lines)


def _module_tables(tree: ast.Module) -> dict[str, ast.Dict]:
    """The dict literals bound to a name at module level (``_KNOWN = {...}``)."""
    found: dict[str, ast.Dict] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and isinstance(value, ast.Dict):
            found[target.id] = value
    return found


def _filled(function: _Function, fact: Fact) -> tuple[str, ...] | None:
    """The test's call as every parameter's value, in the signature's order: its
    arguments, its keywords, and the literal defaults of the rest; None when the call
    does not fit (an unknown keyword, a parameter with no value, ``*args``)."""
    spec = function.args
    positional = spec.posonlyargs + spec.args
    defaults = {a.arg: literal_text(d) for a, d in
                zip(positional[len(positional) - len(spec.defaults):], spec.defaults,
                    strict=True)}
    defaults.update({a.arg: literal_text(d) for a, d in
                     zip(spec.kwonlyargs, spec.kw_defaults, strict=True) if d is not None})
    names = [a.arg for a in positional if a.arg not in ("self", "cls")]
    if len(fact.args) > len(names) or spec.vararg is not None:
        return None
    names += [a.arg for a in spec.kwonlyargs]
    values = dict(zip(names, fact.args, strict=False))
    for name, value in fact.keywords:
        if name not in names or name in values:
            return None
        values[name] = value
    for name in names:
        if name not in values:
            default = defaults.get(name)
            if default is None:
                return None
            values[name] = default
    return tuple(values[name] for name in names)


def _joined(args: tuple[str, ...]) -> str:
    return args[0] if len(args) == 1 else f"({', '.join(args)})"


#: How a function builds one key from a parameter's parts: a separator it joins them
#: with (``",".join(names)``), or None for ``tuple(names)``.
_Builder = tuple[str, str | None]


def _built_keys(nodes: list[ast.AST], params: list[str]) -> set[_Builder]:
    """(parameter, builder) of each key the function makes of a parameter's parts."""
    found: set[_Builder] = set()
    for node in nodes:
        if not isinstance(node, ast.Call) or len(node.args) != 1 or node.keywords \
                or not isinstance(node.args[0], ast.Name) or node.args[0].id not in params:
            continue
        func, param = node.func, node.args[0].id
        if isinstance(func, ast.Attribute) and func.attr == "join" \
                and isinstance(func.value, ast.Constant) and isinstance(func.value.value, str):
            found.add((param, func.value.value))
        elif isinstance(func, ast.Name) and func.id == "tuple":
            found.add((param, None))
    return found


def _value_keys(args: tuple[str, ...], params: list[str], built: set[_Builder]) -> set[str]:
    """The keys a table of answers holds for a call of ``args`` (every parameter's value)
    beside the functions it passes: the values alone (a callback is called, never a key),
    and the key the function ``built`` of one list or tuple value's parts."""
    values = tuple(a for a in args if not is_callback(a))
    keys = {_joined(values)} if values and values != args else set()
    if len(values) != 1 or len(args) > len(params):
        return keys
    param = params[args.index(values[0])]
    try:
        parts = ast.literal_eval(values[0])
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return keys
    if not isinstance(parts, list | tuple) or not parts \
            or not all(isinstance(p, str) for p in parts):
        return keys
    for name, separator in built:
        if name == param:
            keys.add(repr(tuple(parts)) if separator is None else repr(separator.join(parts)))
    return keys


def _own_nodes(function: _Function) -> Iterator[ast.AST]:
    """The nodes of ``function``'s body, nested functions and classes left out."""
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef
                              | ast.ClassDef | ast.Lambda):
                stack.append(child)


def _cases(path: str, function: _Function, facts: list[Fact],
           tables: dict[str, ast.Dict], functions: dict[str, _Function]
           ) -> list[SpecialCase]:
    params = [a.arg for a in function.args.posonlyargs + function.args.args
              if a.arg not in ("self", "cls")]
    nodes = list(_own_nodes(function))
    returns = [n for n in nodes if isinstance(n, ast.Return)]
    found: list[SpecialCase] = []
    filled = {id(f): _filled(function, f) for f in facts}
    by_input = {f.inputs: f for f in facts if not f.keywords}
    by_input.update({_joined(args): f for f in facts if (args := filled[id(f)]) is not None})
    built = _built_keys(nodes, params)
    for fact in facts:
        args = filled[id(fact)]
        for key in _value_keys(args, params, built) if args is not None else ():
            by_input.setdefault(key, fact)
    named = {n.id for n in nodes if isinstance(n, ast.Name) and n.id in tables}
    dicts: list[tuple[ast.Dict, bool]] = \
        [(n, False) for n in nodes if isinstance(n, ast.Dict)] + \
        [(tables[name], True) for name in sorted(named)]
    stated = _stated(function, facts, functions)
    for table, far in dicts:
        case = _table_case(path, function.name, table, by_input, far, stated)
        if case is not None:
            found.append(case)
    literal = {id(r): literal_text(r.value) if r.value is not None else "None"
               for r in returns}
    if not returns or any(v is None for v in literal.values()) or _decides(nodes):
        return found  # a general path: branches are base cases
    expected = {f.expected: f for f in facts}
    in_branch: set[int] = set()
    for node in nodes:
        if not isinstance(node, ast.If):
            continue
        bound = _bound(node.test)
        for fact in facts:
            args = fact.args if not fact.keywords else filled[id(fact)]
            if bound is None or args is None or len(args) != len(params) or \
                    bound != dict(zip(params, args, strict=True)):
                continue
            answers = [r for r in _own_returns(node.body) if literal[id(r)] == fact.expected]
            if answers:
                in_branch.update(id(r) for r in answers)
                found.append(SpecialCase(path, function.name, node.lineno, "input-branch",
                                         fact.inputs, fact))
    for ret in returns:
        value = literal[id(ret)]
        if id(ret) not in in_branch and value in expected:
            found.append(SpecialCase(path, function.name, ret.lineno, "constant", str(value),
                                     expected[str(value)]))
    return found


def _table_case(path: str, function: str, node: ast.Dict, by_input: dict[str, Fact],
                far: bool, stated: list[_Stated] | None = None) -> SpecialCase | None:
    """``node`` as an ``input-table`` when every key is a test's input (and, for a
    module-level table, one of its values that test's expected value), or (``stated``)
    a call's inputs and the values the calls before it on the same object passed,
    answering that call's value: answers keyed by the calls made so far."""
    if not node.keys:
        return None
    keys = [literal_text(k) if k is not None else None for k in node.keys]
    answered = [_from_state(k, v, stated) if k is not None and stated else None
                for k, v in zip(node.keys, node.values, strict=True)]
    if answered and all(answered) and answered[0] is not None:
        return SpecialCase(path, function, node.lineno, "input-table",
                           "{" + ", ".join(str(k) for k in keys) + "}", answered[0])
    if not all(k in by_input for k in keys):
        return None
    if far and not any(literal_text(v) == by_input[str(k)].expected
                       for k, v in zip(keys, node.values, strict=True)):
        return None
    return SpecialCase(path, function, node.lineno, "input-table",
                       "{" + ", ".join(str(k) for k in keys) + "}", by_input[str(keys[0])])


def _decides(nodes: list[ast.AST]) -> bool:
    """Does the function choose its answer from its inputs other than by equality with
    fixed values (``if n > 0``, a loop, a ``match``)? Then its literal returns are a
    computation's answers (``sign``), not a fake."""
    for node in nodes:
        if isinstance(node, ast.For | ast.AsyncFor | ast.While | ast.Match):
            return True
        if isinstance(node, ast.If | ast.IfExp) and _bound(node.test) is None:
            return True
    return False


def _own_returns(body: list[ast.stmt]) -> list[ast.Return]:
    found: list[ast.Return] = []
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            found.append(node)
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(node))
    return found


def _bound(test: ast.expr) -> dict[str, str] | None:
    """The parameter values a condition pins: ``(a, b) == (2, 3)`` and ``a == 2 and
    b == 3`` both give ``{a: 2, b: 3}``; None for any other condition."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        merged: dict[str, str] = {}
        for each in test.values:
            part = _bound(each)
            if part is None:
                return None
            merged.update(part)
        return merged
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq | ast.Is)):
        return None
    left, right = test.left, test.comparators[0]
    if literal_text(left) is not None:
        left, right = right, left
    value = literal_text(right)
    if value is None:
        return None
    if isinstance(left, ast.Name):
        return {left.id: value}
    if isinstance(left, ast.Tuple) and isinstance(right, ast.Tuple) \
            and len(left.elts) == len(right.elts) \
            and all(isinstance(e, ast.Name) for e in left.elts):
        values = [literal_text(e) for e in right.elts]
        return {e.id: str(v) for e, v in zip(left.elts, values, strict=True)
                if isinstance(e, ast.Name)}
    return None
