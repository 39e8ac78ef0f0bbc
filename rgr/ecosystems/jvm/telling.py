"""An input that tells a Java survivor from the original, found from the tests' calls
(``MutationSyntax.telling``; Go's is rgr.ecosystems.go.telling, JavaScript's
rgr.ecosystems.javascript.telling).

The survivor's enclosing method must be a ``static`` one of the file's top-level class
that returns a value (``public static String percent(final double ratio, ...)``): a
method of an instance needs its object's state, which calls the search cannot know to
make, and a ``void`` one returns nothing to compare. Each call of it in the test classes
written for the class (``PercentTest``, ``PercentTests``, ``TestPercent`` beside it
under the module's ``src/test/java``, as rgr.ecosystems.jvm.runner.tests_beside) whose
arguments are plain literals (numbers, strings, ``true``/``false``, ``null``) is tried,
then the same with one argument varied over a few values near it
(rgr.ecosystems.base.near_values: 0, 1, -1, one either side, the other boolean, the empty
string). The first call whose result (``returns`` its value,
``raises`` the exception's class) differs between the original and the mutant is the
telling input: ``Percent.percent(0.0, 0, true): the original returns "0%" against the
mutant returns "+0%"``.

It runs the project's code, so it runs as the tests do, in the checkout's sandbox: a
class of rgr's (``RgrTellingInput``) in the class's package calls the method with each
argument list and prints each outcome; javac compiles it twice beside the class, once
with the original and once with the mutant (the module's other classes from their
sources, ``-sourcepath``, and its dependencies from the class path Surefire reported
where an earlier Maven run left it), into rgr's own folder under the module's ``target/``,
removed after; ``java`` runs each. Nothing built means no input is said, as before.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from rgr.base.errors import CommandError
from rgr.base.proc import run
from rgr.ecosystems.base import near_values
from rgr.ecosystems.jvm import direct as jvm_direct
from rgr.ecosystems.tokens import Token, matching, tokens_of

if TYPE_CHECKING:  # a Protocol, for the type checker only
    from rgr.base.proc import Launcher

__all__ = ["calls_to_try", "find", "method_at", "program"]

#: How many calls one search tries.
MAX_CALLS = 48
#: rgr's class, and the line prefix of each outcome it prints.
CLASS = "RgrTellingInput"
_MARK = "rgr-telling"
_MAX_RESULT_CHARS = 200
_FOLDER = "target/rgr-telling"
_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.MULTILINE)
#: What stands before a method's ``(`` but is no method (``if (``, ``new Foo(``).
_NOT_METHODS = frozenset({"if", "for", "while", "switch", "catch", "synchronized", "return",
                          "new", "throw", "else", "do", "try", "assert", "super", "this"})
_SUFFIXES = "lLfFdD"


def method_at(source: str, line: int) -> tuple[str, str] | None:
    """(the class, the method) of the ``static`` method returning a value whose body
    holds ``line``, declared right in the file's top-level class; None for any other
    place (an instance method, a ``void`` or ``private`` one, a nested class's)."""
    tokens = tokens_of(source, "java")
    texts = [t.text for t in tokens]
    top: tuple[str, int, int] | None = None  # the top-level class: name, its { and }
    for at, word in enumerate(texts[:-1]):
        if word in ("class", "enum", "interface", "record") and tokens[at + 1].kind == "word" \
                and (at == 0 or texts[at - 1] != "."):
            brace = texts.index("{", at) if "{" in texts[at:] else None
            close = matching(tokens, brace) if brace is not None else None
            if brace is not None and close is not None:
                top = (texts[at + 1], brace, close)
            break
    if top is None:
        return None
    name, opening, _close = top
    depth_of = _depths(texts)
    for at in range(opening + 1, len(tokens)):
        if texts[at] != "{" or depth_of[at] != depth_of[opening] + 1:
            continue
        close = matching(tokens, at)
        if close is None or not tokens[at].line <= line <= tokens[close].line:
            continue
        head = _declaration(tokens, texts, at)
        if head is None:
            return None
        modifiers, returns, method = head
        if "static" not in modifiers or "private" in modifiers or returns == "void":
            return None
        return name, method
    return None


def _depths(texts: list[str]) -> list[int]:
    """Each token's depth of braces (a ``{`` at the depth outside it)."""
    depth, out = 0, []
    for word in texts:
        if word == "}":
            depth -= 1
        out.append(depth)
        if word == "{":
            depth += 1
    return out


def _declaration(tokens: list[Token], texts: list[str], brace: int
                 ) -> tuple[set[str], str, str] | None:
    """(modifiers, the return type's last word, the name) of the method whose body's
    ``{`` is at ``brace``; None when that ``{`` opens no method."""
    at = brace - 1
    if at >= 0 and texts[at] != ")":  # ``throws A, B`` between ``)`` and ``{``
        while at >= 0 and texts[at] != "throws":
            if texts[at] in (";", "{", "}", "=", "("):
                return None
            at -= 1
        at -= 1
    if at < 0 or texts[at] != ")":
        return None
    depth = 0
    while at >= 0:  # back to the matching ``(``
        depth += texts[at] == ")"
        depth -= texts[at] == "("
        if depth == 0:
            break
        at -= 1
    name_at = at - 1
    if name_at < 1 or tokens[name_at].kind != "word" or texts[name_at] in _NOT_METHODS:
        return None
    start = name_at - 1
    while start >= 0 and texts[start] not in (";", "{", "}"):
        start -= 1
    words = texts[start + 1:name_at]
    # a constructor is named by its class, with no type before it; ``= new Foo() {`` is
    # an anonymous class's body, no method
    if not words or "new" in words or "=" in words:
        return None
    return set(words), words[-1], texts[name_at]


def _literal(tokens: list[Token], at: int, end: int) -> tuple[object, str, int] | None:
    """(value, its Java text, the index after it) of the literal at ``at``; the value is
    None where it is not to be varied (a ``char``, a string with escapes, ``null``)."""
    token = tokens[at]
    if token.text == "-" and at + 1 < end and tokens[at + 1].kind == "number":
        read = _literal(tokens, at + 1, end)
        if read is None or not isinstance(read[0], (int, float)):
            return None
        value = read[0]
        return -value, "-" + read[1], read[2]
    if token.kind == "number":
        text = token.text.replace("_", "")
        digits = text.rstrip(_SUFFIXES) if not text.lower().startswith("0x") else text
        try:
            number: int | float = int(digits, 0) if re.fullmatch(r"0[xX][0-9a-fA-F]+|\d+",
                                                                 digits) else float(digits)
        except ValueError:
            return None
        if re.fullmatch(r"0\d+", digits):  # an octal literal: kept, not varied
            return None
        return number, token.text, at + 1
    if token.kind == "string" and token.text.startswith('"') and not token.text.startswith('"""'):
        inner = token.text[1:-1]
        return (None if "\\" in inner else inner), token.text, at + 1
    if token.kind == "char":
        return None, token.text, at + 1
    if token.kind == "word" and token.text in ("true", "false"):
        return token.text == "true", token.text, at + 1
    if token.kind == "word" and token.text == "null":
        return None, "null", at + 1
    return None


def _arguments(tokens: list[Token], start: int, end: int
               ) -> list[tuple[object, str]] | None:
    """The literal arguments between ``start`` and ``end`` (a call's parentheses), or
    None when any is not a literal."""
    out: list[tuple[object, str]] = []
    at = start
    while at < end:
        read = _literal(tokens, at, end)
        if read is None:
            return None
        value, text, at = read
        out.append((value, text))
        if at < end:
            if tokens[at].text != ",":
                return None
            at += 1
    return out


def _render(value: object, like: str) -> str:
    """``value`` as Java source, written like the literal ``like`` it varies (its
    suffix: ``2L``, ``1.5f``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)  # JSON's escapes are Java's (\\uXXXX included)
    suffix = like[-1] if like[-1:] in _SUFFIXES and not like.lower().startswith(
        ("0x", "-0x")) else ""
    if isinstance(value, float):
        text = repr(value)
        return text + suffix
    return f"{value}{suffix}"


def calls_to_try(method: str, tests: Iterable[str], limit: int = MAX_CALLS) -> list[str]:
    """The argument lists (Java source, ``0.05, 0, true``) to call ``method`` with: each
    call of it in ``tests`` (sources) whose arguments are literals, then the same with
    one argument varied."""
    found: list[list[tuple[object, str]]] = []
    for source in tests:
        tokens = tokens_of(source, "java")
        for at, token in enumerate(tokens[:-1]):
            if token.text != method or tokens[at + 1].text != "(":
                continue
            close = matching(tokens, at + 1)
            if close is None or close == at + 2:
                continue
            args = _arguments(tokens, at + 2, close)
            if args is not None and args not in found:
                found.append(args)
    out: list[str] = []
    for args in found:
        texts = [text for _, text in args]
        for variant in [texts, *_variants(args)]:
            call = ", ".join(variant)
            if call not in out:
                out.append(call)
    return out[:limit]


def _variants(args: list[tuple[object, str]]) -> list[list[str]]:
    out: list[list[str]] = []
    texts = [text for _, text in args]
    for index, (value, text) in enumerate(args):
        if value is None:
            continue
        for near in near_values(value):
            out.append([*texts[:index], _render(near, text), *texts[index + 1:]])
    return out


def program(package: str, owner: str, method: str, calls: list[str]) -> str:
    """rgr's class: prints, for each call of ``owner.method``, what it returns or the
    class of what it throws, one line each (``rgr-telling 0 returns "50%"``)."""
    cases = "".join(f"\t\t\tcase {index}:\n\t\t\t\treturn {owner}.{method}({call});\n"
                    for index, call in enumerate(calls))
    head = f"package {package};\n\n" if package else ""
    return (f"{head}public final class {CLASS}{{\n"
            f"\tpublic static void main(final String[] args){{\n"
            f"\t\tfor(int i = 0; i < {len(calls)}; i++){{\n"
            f"\t\t\tString out;\n"
            f"\t\t\ttry{{\n\t\t\t\tout = \"returns \" + {CLASS}.show({CLASS}.call(i));\n"
            f"\t\t\t}}catch(final Throwable thrown){{\n"
            f"\t\t\t\tout = \"raises \" + thrown.getClass().getName();\n\t\t\t}}\n"
            f"\t\t\tSystem.out.println(\"{_MARK} \" + i + \" \" + "
            f"out.replace(\"\\n\", \"\\\\n\"));\n"
            f"\t\t}}\n\t}}\n\n"
            f"\tprivate static Object call(final int i) throws Throwable{{\n"
            f"\t\tswitch(i){{\n{cases}\t\t\tdefault:\n\t\t\t\treturn null;\n\t\t}}\n\t}}\n\n"
            f"\tprivate static String show(final Object value){{\n"
            f"\t\tif(value instanceof String){{\n"
            f"\t\t\treturn \"\\\"\" + value + \"\\\"\";\n\t\t}}\n"
            f"\t\tif(value != null && value.getClass().isArray()){{\n"
            f"\t\t\tfinal String text = java.util.Arrays.deepToString(new Object[]{{value}});\n"
            f"\t\t\treturn text.substring(1, text.length() - 1);\n\t\t}}\n"
            f"\t\treturn String.valueOf(value);\n\t}}\n}}\n")


def find(path: str, original: str, mutated: str, line: int,
         facts: Iterable[tuple[str, tuple[str, ...]]], tree: Path,
         launcher: Launcher | None, env: Mapping[str, str], seconds: float) -> str | None:
    """The telling input of the mutant of ``path`` at ``line`` (``mutated``: the whole
    file), in words, or None when no call of the tests tells it apart (or its method is
    none the search can call, or nothing built). ``facts``: the gate's (unused: Java's
    tests stand in src/test/java, read here)."""
    marker = "src/main/java/"
    at = path.find(marker)
    found = method_at(original, line)
    javac = shutil.which("javac", path=env.get("PATH"))
    java = shutil.which("java", path=env.get("PATH"))
    if at < 0 or found is None or javac is None or java is None:
        return None
    owner, method = found
    module = path[:at]
    calls = calls_to_try(method, _tests_of(tree, module, path[at + len(marker):]))
    if not calls:
        return None
    declared = _PACKAGE.search(original)
    package = declared.group(1) if declared else ""
    work = tree / module / _FOLDER
    # the build folder made here when no build made it before, removed with rgr's own
    made = tree / module / _FOLDER.split("/", 1)[0]
    made = made if not made.exists() else work
    shutil.rmtree(work, ignore_errors=True)
    try:
        (work / "mutant").mkdir(parents=True)
        helper = work / f"{CLASS}.java"
        helper.write_text(program(package, owner, method, calls), encoding="utf-8")
        mutant = work / "mutant" / Path(path).name
        mutant.write_text(mutated, encoding="utf-8")
        class_path = jvm_direct.test_class_path(tree, module) or ""
        outcomes = []
        for name, source in (("original", tree / path), ("mutant", mutant)):
            out = work / f"{name}-classes"
            built = _run((javac, "-nowarn", "-encoding", "UTF-8", "-implicit:class",
                          "-sourcepath", str(tree / module / "src/main/java"),
                          "-cp", class_path, "-d", str(out), str(source), str(helper)),
                         tree, launcher, env, seconds / 4)
            if built is None:
                return None
            main = f"{package}.{CLASS}" if package else CLASS
            ran = _run((java, "-cp", f"{out}:{class_path}" if class_path else str(out), main),
                       tree, launcher, env, seconds / 4)
            if ran is None:
                return None
            outcomes.append(_outcomes(ran))
    finally:
        shutil.rmtree(made, ignore_errors=True)
    first, second = outcomes
    for index, call in enumerate(calls):
        was, now = first.get(index), second.get(index)
        if was is not None and now is not None and was != now:
            return f"{owner}.{method}({call}): the original {was} against the mutant {now}"
    return None


def _tests_of(tree: Path, module: str, inner: str) -> list[str]:
    """The sources of the test classes written for the class at ``inner`` (its path
    under ``src/main/java``) in ``module``."""
    folder, _, file = inner.rpartition("/")
    stem = file.removesuffix(".java")
    out = []
    for name in (f"{stem}Test", f"{stem}Tests", f"Test{stem}"):
        test = tree / module / "src/test/java" / folder / f"{name}.java"
        try:
            if test.is_file() and not test.is_symlink():
                out.append(test.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    return out


def _run(argv: tuple[str, ...], tree: Path, launcher: Launcher | None,
         env: Mapping[str, str], seconds: float) -> str | None:
    """Standard output of ``argv`` run in the sandbox, None when it failed to run or
    exited non-zero (a call of rgr's that does not compile, a run that timed out)."""
    try:
        done = run(argv, cwd=tree, timeout=max(1.0, seconds), env=dict(env),
                   launcher=launcher)
    except (CommandError, OSError):
        return None
    return done.stdout if done.returncode == 0 else None


def _outcomes(output: str) -> dict[int, str]:
    """The outcome of each call by index, as rgr's class printed it; the project's code
    runs in that process and could print lines of its own: only lines in rgr's form
    count."""
    found: dict[int, str] = {}
    for text in output.splitlines():
        parts = text.split(" ", 2)
        if len(parts) == 3 and parts[0] == _MARK and parts[1].isdigit() \
                and parts[2].startswith(("returns ", "raises ")):
            found.setdefault(int(parts[1]), parts[2][:_MAX_RESULT_CHARS])
    return found
