"""The package's shape, read from its source: no import cycles (imports inside
functions count: they run too, only later), no import from a layer above, no command
reaching into another command's private names (what two commands share lives in
rgr.commands.common when it asks the person at the terminal, else below them, in
rgr.loop.starting and the layers under it), click only in the entry layer, no command
imported by the web, pygit2 only in the store, git's command line built in one module,
processes started in one, and a backend's own output read only inside rgr.backends."""

from __future__ import annotations

import ast
import functools
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "rgr"


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(REPO_ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def _tree(path: Path) -> ast.Module:
    """The syntax tree of the file at ``path``, parsed once per content: every rule
    walks every module, and parsing them all took about 3 s per rule (2026-12-03)."""
    return _parsed(path.read_text(encoding="utf-8"))


@functools.cache
def _parsed(source: str) -> ast.Module:
    # Keyed by the text, not the path: a check's own test may rewrite one file between
    # two reads. The rules only read the trees they walk.
    return ast.parse(source)


def _imports(name: str, path: Path) -> Iterator[tuple[str, str | None]]:
    """(module imported, the name taken from it or None) for every import anywhere in
    the file, resolved to rgr's modules (``from rgr.x import y`` imports rgr.x, and
    rgr.x.y too when that is a module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(_tree(path)):
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


#: Where a process may be started: rgr.base.proc, the one module that owns process groups,
#: timeouts and launchers; and the sandbox's relay, which runs inside the jail as a
#: standard-library script (rgr's own modules may not even be visible there); and the
#: mutation gate's pytest plugin, which runs inside the sealed test run in the project's
#: interpreter and forks that pytest once per mutant (never rgr's own process).
PROCESS_MODULES = {"rgr.base.proc", "rgr.sandbox.relay", "rgr.ecosystems.python.pytest_lines"}
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
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name in _SPAWNERS]
        elif isinstance(node, ast.ImportFrom):
            found += [f"{node.module}.{a.name}" for a in node.names
                      if node.module == "subprocess" or f"{node.module}.{a.name}" in _SPAWNERS]
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and f"{node.value.id}.{node.attr}" in _SPAWNERS):
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


#: The layers, bottom up: a module may import from its own layer and those below it,
#: never from one above (imports inside functions count). rgr's top-level modules that
#: are not listed (cli, launch, crash, help_text) are the entry, above everything.
LAYERS: list[tuple[str, ...]] = [
    ("rgr.base",),
    ("rgr.ecosystems",),
    ("rgr.store",),
    ("rgr.backends",),
    ("rgr.check",),
    ("rgr.sandbox",),
    ("rgr.observe",),
    ("rgr.loop",),
    ("rgr.tdd", "rgr.refactor", "rgr.mergefix"),
    ("rgr.branches",),
    ("rgr.daemon", "rgr.demo", "rgr.fake_model", "rgr.evaluate"),
    ("rgr.commands", "rgr.web"),
]


def _layer(module: str) -> int:
    for rank, packages in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in packages):
            return rank
    return len(LAYERS) if module != "rgr" else -1  # the entry; rgr/__init__ is a leaf


def _upward(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{a} -> {b}" for a, targets in graph.items() for b in targets
                  if _layer(b) > _layer(a))


def test_no_module_imports_from_a_layer_above_it() -> None:
    assert _upward(_graph()) == []


def test_the_layer_check_sees_an_arrow_up() -> None:
    graph = {"rgr.store.git": {"rgr.loop.kernel"}, "rgr.loop.kernel": {"rgr.store.git"},
             "rgr.cli": {"rgr.commands.run"}}
    assert _upward(graph) == ["rgr.store.git -> rgr.loop.kernel"]


def _imports_pygit2(path: Path) -> bool:
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import) and any(
                a.name.split(".")[0] == "pygit2" for a in node.names):
            return True
        if (isinstance(node, ast.ImportFrom) and node.level == 0
                and (node.module or "").split(".")[0] == "pygit2"):
            return True
    return False


def test_pygit2_is_imported_only_in_the_store() -> None:
    offences = sorted(name for name, path in MODULES.items()
                      if not name.startswith("rgr.store.") and _imports_pygit2(path))
    assert offences == []


def test_the_pygit2_check_sees_an_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from pygit2 import Repository\n")
    assert _imports_pygit2(sample)
    sample.write_text("from rgr.store.objects import Repository\n")
    assert not _imports_pygit2(sample)


def _imports_package(path: Path, package: str) -> list[int]:
    """The lines where a file imports ``package`` (or a module of it), at the top or
    inside a function."""
    def within(name: str) -> bool:
        return name == package or name.startswith(package + ".")

    return [node.lineno for node in ast.walk(_tree(path))
            if (isinstance(node, ast.Import) and any(within(a.name) for a in node.names))
            or (isinstance(node, ast.ImportFrom) and node.level == 0
                and within(node.module or ""))]


def _in_entry_layer(module: str) -> bool:
    """The entry: rgr's top-level modules (cli, launch, crash, help_text) and the
    commands. rgr.web is beside the commands but, like everything below them, talks to
    no terminal: it renders what the services return."""
    return _layer(module) == len(LAYERS) or module.startswith("rgr.commands.")


def _click_below_the_entry(modules: dict[str, Path]) -> dict[str, list[int]]:
    return {name: lines for name, path in modules.items()
            if not _in_entry_layer(name) and (lines := _imports_package(path, "click"))}


def test_click_is_imported_only_by_the_entry_layer() -> None:
    """Below the commands, a bad argument is rgr.base.errors.BadUsage, which the entry
    layer shows as click's usage error; asking the person is the commands' business."""
    assert _click_below_the_entry(MODULES) == {}


def test_the_click_check_sees_an_import_below_the_entry(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import os\n\ndef ask():\n    import click.exceptions\n"
                      "    from click import confirm\n    return confirm('go?')\n")
    assert _click_below_the_entry({"rgr.loop.sample": sample}) == {"rgr.loop.sample": [4, 5]}
    assert _click_below_the_entry({"rgr.web.sample": sample}) == {"rgr.web.sample": [4, 5]}
    assert _click_below_the_entry({"rgr.commands.sample": sample, "rgr.cli": sample}) == {}
    sample.write_text("from clicks import x\nimport clicker\n")
    assert _click_below_the_entry({"rgr.loop.sample": sample}) == {}


def _web_imports_of_commands(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{a} -> {b}" for a, targets in graph.items() for b in targets
                  if (a == "rgr.web" or a.startswith("rgr.web."))
                  and (b == "rgr.commands" or b.startswith("rgr.commands.")))


def test_the_web_imports_no_command() -> None:
    """`rgr serve`'s pages call the services the commands call (rgr.daemon.jobs,
    rgr.branches.rollback, ...), never a command module: a command prints, a page renders."""
    assert _web_imports_of_commands(_graph()) == []


def test_the_web_check_sees_a_command_imported() -> None:
    graph = {"rgr.web.actions": {"rgr.commands.queue", "rgr.daemon.jobs"},
             "rgr.web": {"rgr.commands"}, "rgr.commands.serve": {"rgr.web.app"}}
    assert _web_imports_of_commands(graph) == ["rgr.web -> rgr.commands",
                                               "rgr.web.actions -> rgr.commands.queue"]


#: Command modules that still reach the terminal themselves, each for its reason. Every
#: other command returns its result (rgr.base.outcome.Outcome) to rgr.cli.main, the one
#: dispatcher, which renders it as text or JSON and exits with its code; what a command
#: says while it works goes through the ``say`` rgr.cli hands it. This list may only
#: shrink: the test fails when a module on it no longer offends, as when a new one does.
TERMINAL_COMMANDS = {
    "rgr.commands.common": "asks the person at the terminal before work starts (confirm, "
                           "the unnoted-commits menu) and beats progress on stderr while a "
                           "suite runs: questions and a heartbeat, not a result",
}

#: Calls that print: print(...), print_fields(...), x.print(...), click.echo(...),
#: sys.stdout.write(...) (and .buffer's, stderr's); the render step's own functions
#: (emit, render, render_text, speaker, json_error: the dispatcher's); and an exit of the
#: process (sys.exit, os._exit, exit: the exit code is the Outcome's).
_PRINTING_NAMES = {"print", "print_fields", "print_json", "print_json_rows", "emit", "render",
                   "render_text", "speaker", "json_error", "exit"}
_PRINTING_ATTRIBUTES = {"print", "echo", "secho", "render", "render_text",
                        "speaker", "json_error"}
_EXITS = {"sys.exit", "os._exit"}


def _prints(path: Path) -> list[int]:
    """The lines of ``path`` that print directly, render an Outcome or exit."""
    return sorted(node.lineno for node in ast.walk(_tree(path))
                  if isinstance(node, ast.Call) and _is_printing(node.func))


def _is_printing(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id in _PRINTING_NAMES
    if not isinstance(func, ast.Attribute):
        return False
    return func.attr in _PRINTING_ATTRIBUTES or ast.unparse(func) in _EXITS or (
        func.attr in ("write", "writelines") and "sys.std" in ast.unparse(func.value))


def _commands_printing(modules: dict[str, Path]) -> dict[str, list[int]]:
    return {name: lines for name, path in modules.items()
            if name.startswith("rgr.commands.") and (lines := _prints(path))}


def test_no_command_prints_renders_or_exits() -> None:
    """A command returns its Outcome and rgr.cli.main renders it once, as text or JSON,
    and exits with its code: no print, no render, no sys.exit scattered through a
    command, so its text and its --json say the same thing. The modules left are listed
    with their reason, and the list only shrinks."""
    assert set(_commands_printing(MODULES)) == set(TERMINAL_COMMANDS)


def test_the_render_check_sees_each_way_of_printing(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import sys, click\nprint('x')\nconsole.print('y')\n"
                      "click.echo('z')\nsys.stdout.buffer.write(b'w')\n"
                      "print_fields([])\nspool.write(b'fine: a file')\n"
                      "return Outcome(['fine'])\nemit(Outcome(['x']))\n"
                      "render(outcome, True)\nsys.exit(command.run())\nos._exit(0)\n"
                      "say('fine: the say it was handed')\n")
    found = _commands_printing({"rgr.commands.sample": sample, "rgr.loop.sample": sample})
    assert found == {"rgr.commands.sample": [2, 3, 4, 5, 6, 9, 10, 11, 12]}


#: Where git's command line is built: every git command rgr runs comes from
#: rgr.store.gitcli.argv (no hooks, no pager, one place to change that).
GIT_CLI_MODULES = {"rgr.store.gitcli"}


def _git_argvs(path: Path) -> int:
    """How many argv lists in the file start with the literal ``"git"``."""
    return sum(1 for node in ast.walk(_tree(path))
               if isinstance(node, (ast.List, ast.Tuple)) and node.elts
               and isinstance(node.elts[0], ast.Constant) and node.elts[0].value == "git")


def test_git_commands_are_built_only_in_gitcli() -> None:
    offences = {name: n for name, path in MODULES.items()
                if name not in GIT_CLI_MODULES and (n := _git_argvs(path))}
    assert offences == {}


def test_the_git_cli_check_sees_an_argv(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("run(['git', 'log'])\nrun(('git', *args))\nrun(['gh', 'pr'])\n")
    assert _git_argvs(sample) == 2


#: What reads a backend CLI's own output: its parsers, and the output itself (``.raw``
#: on a result or a failed session). Outside rgr.backends, rgr reads the typed figures
#: (rgr.backends.base.SessionFigures) that every backend fills.
_BACKEND_OUTPUT_READERS = {"usage_of", "figures_of", "parse_result", "to_result",
                           "classify_error", "classify_failure", "stream_reader",
                           "StreamState"}

#: The one place that hands a session's own result on, unread, to be kept verbatim as
#: the attempt's result.json (the audit trail): where the agent_call event is made.
AUDIT_RECORD_USERS = {"rgr.loop.sessions"}


def _backend_output_reads(path: Path) -> list[str]:
    """Where a file reads a backend's own output: ``x.raw``, a backend's parser imported
    or called (``rgr.backends.claude.usage_of``), ``audit_record`` used."""
    found = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Attribute) and node.attr in {"raw", *_BACKEND_OUTPUT_READERS}:
            found.append(f"line {node.lineno}: .{node.attr}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rgr.backends"):
            found += [f"line {node.lineno}: {node.module}.{a.name}" for a in node.names
                      if a.name in {*_BACKEND_OUTPUT_READERS, "audit_record"}]
    return found


def test_nothing_outside_the_backends_reads_a_backends_own_output() -> None:
    offences = {name: reads for name, path in MODULES.items()
                if not name.startswith("rgr.backends") and (reads := [
                    r for r in _backend_output_reads(path)
                    if not (name in AUDIT_RECORD_USERS and r.endswith(".audit_record"))])}
    assert offences == {}


def test_the_backend_output_check_sees_a_raw_read(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("from rgr.backends.claude import usage_of\n\n"
                      "def cost(result):\n"
                      "    from rgr.backends import claude\n"
                      "    tokens = claude.usage_of(result.raw)\n"
                      "    return result.raw.get('total_cost_usd'), tokens\n")
    assert _backend_output_reads(sample) == [
        "line 1: rgr.backends.claude.usage_of", "line 5: .usage_of", "line 5: .raw",
        "line 6: .raw"]


def test_test_files_are_imported_by_their_path() -> None:
    """tests/ mirrors rgr/ (tests/<package>/test_<module>.py), so two packages' modules of
    one name give two test files of one name (tests/ecosystems/go/test_runner.py,
    tests/ecosystems/jvm/test_runner.py). pytest's default import mode imports a test file
    by its base name, and two of one name stop the whole run at collection; importlib mode
    imports each by its path under the root (``tests.ecosystems.go.test_runner``), so
    helpers are imported as ``from tests.conftest import ...``."""
    options = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["pytest"][
        "ini_options"]["addopts"]
    assert "--import-mode=importlib" in options.split()


#: What only rgr.ecosystems names (its language sub-packages know how each language's
#: tests are found, run and read, and how its code is tokenized, mutated and shown;
#: everything else asks the registry): runner and tool programs anywhere in a string
#: (JUnit XML, the report format every runner may write, is no runner),
#: a language's name as a whole string (``language == "go"``), and a file suffix of a
#: language, or of its test files, as a whole string (``path.endswith(".go")``,
#: ``"_test.go"``).
_TOOL_WORDS = re.compile(
    r"(?<![\w.-])(pytest|py\.test|unittest|vitest|jest|mocha|node:test|node --test|tape|"
    r"bun|go test|go vet|cargo|nextest|rustc|rustup|mvnw?|maven|surefire|gradlew?|"
    r"junit(?!\s+xml)|javac|rspec|minitest|phpunit|npm test|tsc)(?![\w-])", re.IGNORECASE)
_LANGUAGE_NAMES = frozenset({"python", "javascript", "typescript", "js", "go", "golang",
                             "rust", "java", "kotlin", "ruby", "php"})
_LANGUAGE_SUFFIX = re.compile(
    r"(?:_test|_spec|Test)?\.(py|js|mjs|cjs|jsx|ts|mts|cts|tsx|go|rs|java|kt|rb|php)")


def _runner_words(path: Path) -> set[str]:
    """The runners, tools, language names and suffixes that a file's string literals
    name (docstrings, which explain, are not counted)."""
    tree = _tree(path)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str) \
                or id(node) in docstrings:
            continue
        found |= {match.group(1).lower() for match in _TOOL_WORDS.finditer(node.value)}
        if node.value in _LANGUAGE_NAMES:
            found.add(repr(node.value))
        if _LANGUAGE_SUFFIX.fullmatch(node.value):
            found.add(node.value)
    return found


def _ecosystem_knowledge_outside(modules: dict[str, Path]) -> dict[str, list[str]]:
    offences = {}
    for name, path in modules.items():
        if name == "rgr.ecosystems" or name.startswith("rgr.ecosystems."):
            continue
        if words := sorted(_runner_words(path)):
            offences[name] = words
    return offences


def test_ecosystem_knowledge_lives_only_in_rgr_ecosystems() -> None:
    assert _ecosystem_knowledge_outside(MODULES) == {}


def test_the_ecosystem_check_sees_a_runner_named_outside(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('"""Runs mocha, explained: a docstring is not counted."""\n'
                      'ARGV = ("npx", "mocha")\n'
                      'def f(words):\n    return "go test" in " ".join(words) or "cargo"\n'
                      'GOOD = "a cargo-culted go-tested name"\n')
    assert _runner_words(sample) == {"mocha", "go test", "cargo"}
    assert _ecosystem_knowledge_outside({"rgr.check.sample": sample}) == {
        "rgr.check.sample": ["cargo", "go test", "mocha"]}
    assert _ecosystem_knowledge_outside({"rgr.ecosystems.sample": sample}) == {}


def test_the_ecosystem_check_sees_a_language_switched_on_outside(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('def f(language, path):\n'
                      '    if language == "go" or path.endswith(".rs"):\n'
                      '        return "_test.go"\n'
                      '    return "a go-between, gone; main.rsx; pytest"\n'
                      'UNITTEST = "python -m unittest"\n')
    assert _runner_words(sample) == {"'go'", ".rs", "_test.go", "pytest", "unittest"}
    assert _ecosystem_knowledge_outside({"rgr.loop.sample": sample}) == {
        "rgr.loop.sample": ["'go'", ".rs", "_test.go", "pytest", "unittest"]}


#: Python's syntax tree is the Python language's reading (rgr.ecosystems.python: its
#: mutants, probe and telling input for the mutation gate, its facts and special cases
#: for fake-it): the checks ask the language for them (``Language.tree_mutation``,
#: ``Language.fakeit_tree``), so a check that parsed a file itself would judge one
#: language by rules no other language is held to.
def _parsers_in_the_checks(modules: dict[str, Path]) -> dict[str, list[int]]:
    return {name: lines for name, path in modules.items()
            if name.startswith("rgr.check.")
            and (lines := sorted(_imports_package(path, "ast")))}


def test_the_checks_parse_no_language_themselves() -> None:
    assert _parsers_in_the_checks(MODULES) == {}


def test_the_parser_check_sees_a_check_reading_a_syntax_tree(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import re\n\ndef functions(source):\n    import ast\n"
                      "    return [n for n in ast.walk(ast.parse(source))]\n"
                      "from ast import literal_eval\n")
    assert _parsers_in_the_checks({"rgr.check.fakeit.sample": sample}) == {
        "rgr.check.fakeit.sample": [4, 6]}
    assert _parsers_in_the_checks({"rgr.ecosystems.python.sample": sample}) == {}
    sample.write_text("import asterisk\nfrom rgr.ecosystems import registry\n")
    assert _parsers_in_the_checks({"rgr.check.sample": sample}) == {}


#: Each language's own package under rgr/ecosystems/ (python, jvm, ...), found from the
#: folder itself, so a language added tomorrow is covered without a word here.
def _language_packages(ecosystems: Path) -> frozenset[str]:
    return frozenset(f"rgr.ecosystems.{folder.name}" for folder in ecosystems.iterdir()
                     if (folder / "__init__.py").is_file())


#: The packages that judge and examine a phase whatever its language: the checks
#: (rgr.check) and the TDD mode's examiner beside them (rgr.tdd). Each asks the registry
#: for a ``Language`` or an ``Ecosystem`` part (``Language.tree_mutation``,
#: ``Ecosystem.line_tracer``, ``Ecosystem.judged_by_content``, a ``Scope``'s readers);
#: one that imported a language's module would hold that language to rules, or give it
#: answers, no other language has.
LANGUAGE_NEUTRAL = ("rgr.check", "rgr.tdd")


def _language_imports(modules: dict[str, Path], languages: frozenset[str]
                      ) -> dict[str, list[int]]:
    """Where each module of ``LANGUAGE_NEUTRAL`` imports a language's package or a module
    of it: ``import``, ``from ... import`` (the package itself: ``from rgr.ecosystems
    import python``; relative ones resolved), at the top or inside a function."""
    def language(dotted: str) -> bool:
        return any(dotted == p or dotted.startswith(p + ".") for p in languages)

    found: dict[str, list[int]] = {}
    for name, path in modules.items():
        if not any(name == p or name.startswith(p + ".") for p in LANGUAGE_NEUTRAL):
            continue
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        lines = []
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Import):
                named = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, *([base] if base else [])])
                named = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            else:
                continue
            if any(language(dotted) for dotted in named):
                lines.append(node.lineno)
        if lines:
            found[name] = sorted(lines)
    return found


def test_the_checks_and_the_tdd_examiner_import_no_language_package() -> None:
    """rgr.check and rgr.tdd name no language: no import of rgr.ecosystems.<language>
    (any package folder under rgr/ecosystems/), by any module, in any form."""
    languages = _language_packages(PACKAGE / "ecosystems")
    assert "rgr.ecosystems.python" in languages
    assert _language_imports(MODULES, languages) == {}


def test_the_language_import_check_sees_each_form(tmp_path: Path) -> None:
    ecosystems = tmp_path / "ecosystems"
    for folder in ("python", "jvm", "go", "notes"):
        (ecosystems / folder).mkdir(parents=True)
    for made in ("python/__init__.py", "jvm/__init__.py", "go/__init__.py",
                 "registry.py", "notes/readme.txt"):
        (ecosystems / made).write_text("")
    languages = _language_packages(ecosystems)
    assert languages == {"rgr.ecosystems.python", "rgr.ecosystems.jvm", "rgr.ecosystems.go"}
    sample = tmp_path / "sample.py"
    sample.write_text("import os\n"
                      "import rgr.ecosystems.python.lines\n"
                      "from rgr.ecosystems.jvm import direct\n"
                      "from rgr.ecosystems import python\n"
                      "from rgr.ecosystems import registry, go\n"
                      "def f():\n"
                      "    import rgr.ecosystems.go as go\n"
                      "    from rgr.ecosystems.python.lines import load\n"
                      "from ..ecosystems import jvm\n"
                      "from ..ecosystems.go.syntax import x\n")
    offences = {"rgr.check.sample": [2, 3, 4, 5, 7, 8, 9, 10]}
    assert _language_imports({"rgr.check.sample": sample}, languages) == offences
    assert _language_imports({"rgr.tdd.sample": sample}, languages) == {
        "rgr.tdd.sample": [2, 3, 4, 5, 7, 8, 9, 10]}
    # no module of a checked package is let off by its name, the package itself neither
    package = tmp_path / "check" / "__init__.py"
    package.parent.mkdir()
    package.write_text(sample.read_text())
    assert _language_imports({"rgr.check": package}, languages) == {
        "rgr.check": [2, 3, 4, 5, 7, 8, 9, 10]}
    assert _language_imports({"rgr.ecosystems.registry": sample, "rgr.sandbox.x": sample},
                             languages) == {}
    sample.write_text("from rgr.ecosystems import registry\n"
                      "from rgr.ecosystems.language import Language\n"
                      "import rgr.ecosystems.traced\n"
                      "from rgr.ecosystems.pythonic import x\n"
                      "from ..ecosystems import notes\n"
                      "import python\n")
    assert _language_imports({"rgr.check.sample": sample}, languages) == {}


#: Where a backend's name may be a string literal: the one list of names. Everything
#: else (the registry, the CLI, the configuration, the agent files, the views) uses its
#: constants, so a new backend is one name there and one line in rgr.backends.registry.
BACKEND_NAME_MODULES = {"rgr.base.backend_names"}


def _backend_name_literals(path: Path) -> list[str]:
    """Where a file writes a backend's name as a string (the whole string: "claude",
    not "claude -p" nor a docstring that mentions it)."""
    from rgr.base.backend_names import NAMES
    return [f"line {node.lineno}: {node.value!r}"
            for node in ast.walk(_tree(path))
            if isinstance(node, ast.Constant) and node.value in NAMES]


def test_backend_names_are_written_only_in_their_module() -> None:
    offences = {name: found for name, path in MODULES.items()
                if name not in BACKEND_NAME_MODULES and (found := _backend_name_literals(path))}
    assert offences == {}


def test_the_backend_name_check_sees_a_literal(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('"""Runs claude."""\n\nBACKEND = "codex"\n\n'
                      'def f(x):\n    return x == "claude" or x == "claude -p"\n')
    assert _backend_name_literals(sample) == ["line 3: 'codex'", "line 6: 'claude'"]


#: Where words may name a backend inside a message: the backends' own package (each
#: speaks of its CLI), the one list of names, the scripted servers standing in for each
#: backend's API, the demo that replays through named CLIs (its command and the CLI's
#: per-backend flags --claude and --codex), and the generated help.
#: Everywhere else a message takes the name from the registry (or from what a note or
#: event recorded), so "their backend, codex" cannot be said of a gemini run.
BACKEND_WORDS_ALLOWED = ("rgr.backends", "rgr.fake_model", "rgr.demo", "rgr.help_text",
                         "rgr.base.backend_names", "rgr.commands.demo", "rgr.cli")


def _backend_words(path: Path) -> list[str]:
    """Backend names as words inside the strings of a file (docstrings aside): the
    messages and f-string parts that would say a backend's name rgr did not look up."""
    from rgr.base.backend_names import NAMES
    tree = _tree(path)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                                | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    word = re.compile(r"(?<![\w.~/-])(" + "|".join(NAMES) + r")(?![\w/-])")
    return [f"line {node.lineno}: {node.value[:70]!r}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings and node.value not in NAMES
            and word.search(node.value)]


def test_messages_take_backend_names_from_the_registry() -> None:
    offences = {name: found for name, path in MODULES.items()
                if not any(name == p or name.startswith(p + ".")
                           for p in BACKEND_WORDS_ALLOWED)
                and (found := _backend_words(path))}
    assert offences == {}


def test_the_backend_word_check_sees_a_name_in_a_message(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('"""Counts codex sessions."""\n\n'
                      'def f(n):\n    return f"{n} without a cost: codex reports tokens"\n\n'
                      'HOME = "~/.codex"\nNAME = "gemini"\n')
    assert _backend_words(sample) == ["line 4: ' without a cost: codex reports tokens'"]
