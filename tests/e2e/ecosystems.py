"""The slugify kata in JavaScript (Vitest, Jest), TypeScript (Vitest, Bun), Rust, Go,
Java (Maven) and Ruby (RSpec, Minitest): each project, its toolchain, and the scripted
agent sessions that play it.

Every project starts with the function's signature and a stub (``slugify`` returns an
empty string) and no tests: in a compiled language a test that calls a function that
does not exist does not compile, which rgr rightly rejects as a test that does not load,
so RED adds a test that compiles and fails. The test command is never configured: rgr
detects it from the project's files (package.json, bunfig.toml, Cargo.toml, go.mod,
pom.xml, .rspec, a Rakefile's TestTask).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from harness import ensure_claude
from kata import rgr, rgr_env
from toolchains import (
    ensure_bun,
    ensure_cargo,
    ensure_go,
    ensure_js_runners,
    ensure_maven,
    ensure_ruby_minitest,
    ensure_ruby_rspec,
    maven_home,
    maven_pom,
)

from rgr.demo.kata import TEST_1, TEST_2, commit
from rgr.fake_model import FakeModelServer, SessionScript, Step, bash, read, structured, write


@dataclass(frozen=True)
class Ecosystem:
    name: str
    runner: str  # the TestCommand.runner rgr must detect
    test_file: str
    impl_file: str
    #: The project before any test: the stub, the build files, .gitignore.
    files: Mapping[str, str]
    #: The test file after RED of cycle 1 and of cycle 2.
    test_1: str
    test_2: str
    #: A first test that passes against the stub at once (RED must reject it).
    passing_test: str
    #: The implementation after GREEN of cycle 1 and cycle 2.
    impl_1: str
    impl_2: str
    #: The test file as a cheating GREEN rewrites it.
    weakened_test: str
    #: The project's own test command, to check the finished kata without rgr.
    check: tuple[str, ...]
    #: Installs the toolchain (or raises ToolchainMissing) before the project exists;
    #: gets the test's HOME, returns what the run needs.
    setup: Callable[[Path], Toolchain] = field(default=lambda home: Toolchain())
    #: Puts the installed dependencies into the project (node_modules), after its commit.
    link: Callable[[Path], None] = field(default=lambda root: None)


@dataclass(frozen=True)
class Toolchain:
    """What rgr's sealed test runs need to see of a toolchain that lives outside the
    system directories: environment variables to keep and folders to show read-only
    (``[sandbox] pass_env`` and ``read_paths`` in the kata's tdd.toml)."""

    env: Mapping[str, str] = field(default_factory=dict)
    read_paths: tuple[str, ...] = ()


# ---------------------------------------------------------------------- JavaScript


def _js_setup(home: Path) -> Toolchain:
    # The kata's node_modules links into the pinned runners' folder, which may sit under
    # a folder the sandbox hides (a clone in /tmp): shown read-only, as a user whose
    # packages live in a store outside the project would list it.
    return Toolchain(read_paths=(str(ensure_js_runners()),))


def _js_link(root: Path) -> None:
    """node_modules as a real folder of links to the pinned packages: rgr shows a
    project's node_modules folder (not a link) read-only inside its sandboxed checkouts."""
    modules = ensure_js_runners()
    folder = root / "node_modules"
    folder.mkdir(exist_ok=True)
    for entry in modules.iterdir():
        if not (folder / entry.name).exists():
            (folder / entry.name).symlink_to(entry)


def _js_tests(imports: str, call: str = "slugify") -> tuple[str, str, str, str]:
    one = f"""{imports}
it('{TEST_1}', () => {{
  expect({call}('Hello')).toBe('hello');
}});
"""
    two = one + f"""
it('{TEST_2}', () => {{
  expect({call}('Hello World')).toBe('hello-world');
}});
"""
    passing = f"""{imports}
it('{TEST_1}', () => {{
  expect({call}('')).toBe('');
}});
"""
    weakened = one.replace("expect(slugify('Hello')).toBe('hello')", "expect(true).toBe(true)")
    return one, two, passing, weakened


_VITEST_IMPORTS = "import { it, expect } from 'vitest';\nimport { slugify } from './slug.js';\n"
_V1, _V2, _VP, _VW = _js_tests(_VITEST_IMPORTS)
VITEST = Ecosystem(
    name="vitest", runner="vitest", test_file="src/slug.test.js", impl_file="src/slug.js",
    files={
        "package.json": json.dumps({"name": "kata", "private": True, "type": "module",
                                    "scripts": {"test": "vitest run"},
                                    "devDependencies": {"vitest": "3.2.7"}}, indent=2) + "\n",
        ".gitignore": "node_modules\n",
        "src/slug.js": "export function slugify(text) {\n  return '';\n}\n",
    },
    test_1=_V1, test_2=_V2, passing_test=_VP, weakened_test=_VW,
    impl_1="export function slugify(text) {\n  return text.toLowerCase();\n}\n",
    impl_2="export function slugify(text) {\n  return text.toLowerCase().split(/\\s+/)"
           ".join('-');\n}\n",
    check=("npm", "test"), setup=_js_setup, link=_js_link,
)

_J1, _J2, _JP, _JW = _js_tests("const { slugify } = require('./slug');\n")
JEST = Ecosystem(
    name="jest", runner="jest", test_file="src/slug.test.js", impl_file="src/slug.js",
    files={
        "package.json": json.dumps({"name": "kata", "private": True,
                                    "scripts": {"test": "jest"},
                                    "devDependencies": {"jest": "30.5.2"}}, indent=2) + "\n",
        ".gitignore": "node_modules\n",
        "src/slug.js": "function slugify(text) {\n  return '';\n}\n\nmodule.exports = "
                       "{ slugify };\n",
    },
    test_1=_J1, test_2=_J2, passing_test=_JP, weakened_test=_JW,
    impl_1="function slugify(text) {\n  return text.toLowerCase();\n}\n\n"
           "module.exports = { slugify };\n",
    impl_2="function slugify(text) {\n  return text.toLowerCase().split(/\\s+/).join('-');\n"
           "}\n\nmodule.exports = { slugify };\n",
    check=("npm", "test"), setup=_js_setup, link=_js_link,
)

_T1, _T2, _TP, _TW = _js_tests(
    "import { it, expect } from 'vitest';\nimport { slugify } from './slug';\n")
TYPESCRIPT = Ecosystem(
    name="typescript", runner="vitest", test_file="src/slug.test.ts", impl_file="src/slug.ts",
    files={
        "package.json": json.dumps({"name": "kata", "private": True, "type": "module",
                                    "scripts": {"test": "vitest run"},
                                    "devDependencies": {"typescript": "5.9.3",
                                                        "vitest": "3.2.7"}}, indent=2) + "\n",
        "tsconfig.json": json.dumps({"compilerOptions": {"strict": True, "target": "ES2022",
                                                         "module": "ESNext",
                                                         "moduleResolution": "Bundler"}}) + "\n",
        ".gitignore": "node_modules\n",
        "src/slug.ts": "export function slugify(text: string): string {\n  return '';\n}\n",
    },
    test_1=_T1, test_2=_T2, passing_test=_TP, weakened_test=_TW,
    impl_1="export function slugify(text: string): string {\n  return text.toLowerCase();\n}\n",
    impl_2="export function slugify(text: string): string {\n  return text.toLowerCase()"
           ".split(/\\s+/).join('-');\n}\n",
    check=("npm", "test"), setup=_js_setup, link=_js_link,
)


# ---------------------------------------------------------------------- Bun


def _bun_setup(home: Path) -> Toolchain:
    # bun on PATH for rgr and its sealed runs; its install (under this checkout, which
    # the sandbox may hide) shown read-only, as a user's ~/.bun would be.
    modules = ensure_bun()
    path = f"{modules / '.bin'}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
    return Toolchain({"PATH": path}, (str(modules),))


_B1, _B2, _BP, _BW = _js_tests(
    "import { it, expect } from 'bun:test';\nimport { slugify } from './slug';\n")
BUN = Ecosystem(
    name="bun", runner="bun", test_file="src/slug.test.ts", impl_file="src/slug.ts",
    files={
        "package.json": json.dumps({"name": "kata", "private": True, "type": "module"},
                                   indent=2) + "\n",
        # bun's own config: how rgr detects `bun test` (no agent may change it)
        "bunfig.toml": "[test]\n",
        ".gitignore": "node_modules\n",
        "src/slug.ts": "export function slugify(text: string): string {\n  return '';\n}\n",
    },
    test_1=_B1, test_2=_B2, passing_test=_BP, weakened_test=_BW,
    impl_1="export function slugify(text: string): string {\n  return text.toLowerCase();\n}\n",
    impl_2="export function slugify(text: string): string {\n  return text.toLowerCase()"
           ".split(/\\s+/).join('-');\n}\n",
    check=("bun", "test"), setup=_bun_setup,
)


# ---------------------------------------------------------------------- Rust


def _rust_setup(home: Path) -> Toolchain:
    # rustup's proxies find their toolchain through CARGO_HOME and RUSTUP_HOME, which
    # default to the real user's home, not the throwaway HOME the tests give claude.
    rustup = ensure_cargo()
    real_home = Path(os.path.expanduser("~"))
    env = {"CARGO_HOME": rustup.get("CARGO_HOME", str(real_home / ".cargo")),
           "RUSTUP_HOME": rustup.get("RUSTUP_HOME", str(real_home / ".rustup"))}
    return Toolchain(env, tuple(p for p in env.values() if Path(p).is_dir()))


_RUST_1 = f"""use kata::slugify;

#[test]
fn {TEST_1.replace(' ', '_')}() {{
    assert_eq!(slugify("Hello"), "hello");
}}
"""
RUST = Ecosystem(
    name="rust", runner="cargo", test_file="tests/slug.rs", impl_file="src/lib.rs",
    files={
        "Cargo.toml": '[package]\nname = "kata"\nversion = "0.1.0"\nedition = "2021"\n',
        ".gitignore": "/target\nCargo.lock\n",
        "src/lib.rs": "pub fn slugify(text: &str) -> String {\n    let _ = text;\n"
                      "    String::new()\n}\n",
    },
    test_1=_RUST_1,
    test_2=_RUST_1 + f"""
#[test]
fn {TEST_2.replace(' ', '_')}() {{
    assert_eq!(slugify("Hello World"), "hello-world");
}}
""",
    passing_test=_RUST_1.replace('slugify("Hello"), "hello"', 'slugify(""), ""'),
    weakened_test=_RUST_1.replace('assert_eq!(slugify("Hello"), "hello");', "assert!(true);"),
    impl_1="pub fn slugify(text: &str) -> String {\n    text.to_lowercase()\n}\n",
    impl_2="pub fn slugify(text: &str) -> String {\n    text.to_lowercase()"
           ".split_whitespace().collect::<Vec<_>>().join(\"-\")\n}\n",
    check=("cargo", "test"), setup=_rust_setup,
)


# ---------------------------------------------------------------------- Go


def _go_setup(home: Path) -> Toolchain:
    ensure_go()
    return Toolchain()


def _go_test(name: str, given: str, want: str) -> str:
    return f"""
func Test{name}(t *testing.T) {{
	if got := Slugify("{given}"); got != "{want}" {{
		t.Fatalf("Slugify(%q) = %q, want %q", "{given}", got, "{want}")
	}}
}}
"""


_GO_HEAD = 'package kata\n\nimport "testing"\n'
_GO_1 = _GO_HEAD + _go_test("LowercasesASingleWord", "Hello", "hello")
GO = Ecosystem(
    name="go", runner="go", test_file="slug_test.go", impl_file="slug.go",
    files={
        "go.mod": "module example.com/kata\n\ngo 1.19\n",
        "slug.go": "package kata\n\n// Slugify makes a URL slug of text.\n"
                   "func Slugify(text string) string {\n\treturn \"\"\n}\n",
    },
    test_1=_GO_1,
    test_2=_GO_1 + _go_test("JoinsWordsWithDashes", "Hello World", "hello-world"),
    passing_test=_GO_HEAD + _go_test("LowercasesASingleWord", "", ""),
    weakened_test=_GO_1.replace('got != "hello"', "false"),
    impl_1='package kata\n\nimport "strings"\n\n// Slugify makes a URL slug of text.\n'
           "func Slugify(text string) string {\n\treturn strings.ToLower(text)\n}\n",
    impl_2='package kata\n\nimport "strings"\n\n// Slugify makes a URL slug of text.\n'
           "func Slugify(text string) string {\n"
           '\treturn strings.Join(strings.Fields(strings.ToLower(text)), "-")\n}\n',
    check=("go", "test", "./..."), setup=_go_setup,
)


# ---------------------------------------------------------------------- Java (Maven)


def _maven_setup(home: Path) -> Toolchain:
    ensure_maven()
    env, user_home = maven_home()
    return Toolchain(env, (str(user_home),))


def _java_test(*methods: str) -> str:
    return ("package kata;\n\nimport static org.junit.Assert.assertEquals;\n\n"
            "import org.junit.Test;\n\npublic class SlugTest {\n" + "".join(methods) + "}\n")


def _java_method(name: str, given: str, want: str) -> str:
    return (f"    @Test\n    public void {name}() {{\n"
            f'        assertEquals("{want}", Slug.slugify("{given}"));\n    }}\n')


_JAVA_M1 = _java_method("lowercasesASingleWord", "Hello", "hello")
_JAVA_IMPL = ("package kata;\n\npublic final class Slug {\n    private Slug() {}\n\n"
              "    public static String slugify(String text) {\n        return {body};\n"
              "    }\n}\n")
MAVEN = Ecosystem(
    name="maven", runner="maven", test_file="src/test/java/kata/SlugTest.java",
    impl_file="src/main/java/kata/Slug.java",
    files={"pom.xml": maven_pom(), ".gitignore": "target/\n",
           "src/main/java/kata/Slug.java": _JAVA_IMPL.replace("{body}", '""')},
    test_1=_java_test(_JAVA_M1),
    test_2=_java_test(_JAVA_M1, "\n", _java_method("joinsWordsWithDashes", "Hello World",
                                                   "hello-world")),
    passing_test=_java_test(_java_method("lowercasesASingleWord", "", "")),
    weakened_test=_java_test(_JAVA_M1.replace('assertEquals("hello", Slug.slugify("Hello"))',
                                              'assertEquals("x", "x")')),
    impl_1=_JAVA_IMPL.replace("{body}", "text.toLowerCase()"),
    impl_2=_JAVA_IMPL.replace("{body}", 'String.join("-", text.toLowerCase().trim()'
                                        '.split("\\\\s+"))'),
    check=("mvn", "-B", "-q", "test"), setup=_maven_setup,
)

# ---------------------------------------------------------------------- Ruby


def _rspec_setup(home: Path) -> Toolchain:
    ensure_ruby_rspec()
    return Toolchain()


def _minitest_setup(home: Path) -> Toolchain:
    ensure_ruby_minitest()
    return Toolchain()


def _rspec_example(name: str, given: str, want: str) -> str:
    return f"""
  it '{name}' do
    expect(slugify('{given}')).to eq('{want}')
  end
"""


_RSPEC_HEAD = "require_relative '../lib/slug'\n\nRSpec.describe 'slugify' do"
_RSPEC_1 = _RSPEC_HEAD + _rspec_example(TEST_1, "Hello", "hello") + "end\n"
_RUBY_STUB = "def slugify(text)\n  ''\nend\n"
_RUBY_1 = "def slugify(text)\n  text.downcase\nend\n"
_RUBY_2 = "def slugify(text)\n  text.downcase.split.join('-')\nend\n"
RSPEC = Ecosystem(
    name="rspec", runner="rspec", test_file="spec/slug_spec.rb", impl_file="lib/slug.rb",
    files={".rspec": "", "lib/slug.rb": _RUBY_STUB},
    test_1=_RSPEC_1,
    test_2=_RSPEC_1.removesuffix("end\n") + _rspec_example(TEST_2, "Hello World",
                                                            "hello-world") + "end\n",
    passing_test=_RSPEC_HEAD + _rspec_example(TEST_1, "", "") + "end\n",
    weakened_test=_RSPEC_1.replace("expect(slugify('Hello')).to eq('hello')",
                                   "expect(true).to eq(true)"),
    impl_1=_RUBY_1, impl_2=_RUBY_2, check=("rspec",), setup=_rspec_setup,
)


def _minitest_method(name: str, given: str, want: str) -> str:
    return (f"\n  def test_{name.replace(' ', '_')}\n"
            f"    assert_equal '{want}', slugify('{given}')\n  end\n")


_MINITEST_HEAD = ("require 'minitest/autorun'\nrequire 'slug'\n\n"
                  "class SlugTest < Minitest::Test")
_MINITEST_1 = _MINITEST_HEAD + _minitest_method(TEST_1, "Hello", "hello") + "end\n"
MINITEST = Ecosystem(
    name="minitest", runner="minitest", test_file="test/slug_test.rb", impl_file="lib/slug.rb",
    files={"Rakefile": "require 'rake/testtask'\n\nRake::TestTask.new(:test) do |t|\n"
                       "  t.libs << 'lib'\n  t.pattern = 'test/**/*_test.rb'\nend\n",
           "lib/slug.rb": _RUBY_STUB},
    test_1=_MINITEST_1,
    test_2=_MINITEST_1.removesuffix("end\n") + _minitest_method(TEST_2, "Hello World",
                                                                 "hello-world") + "end\n",
    passing_test=_MINITEST_HEAD + _minitest_method(TEST_1, "", "") + "end\n",
    weakened_test=_MINITEST_1.replace("assert_equal 'hello', slugify('Hello')",
                                      "assert_equal 1, 1"),
    impl_1=_RUBY_1, impl_2=_RUBY_2, check=("rake", "test"), setup=_minitest_setup,
)

# ---------------------------------------------------------------------- the calc kata

#: One function, ``add``, in Go, Rust and JavaScript (Vitest), for the mutation gate
#: (tests/check/mutation/test_textual.py, tests/e2e/test_referee_mutation_langs.py): the body
#: of a stub, of an honest GREEN, and of one that carries code no test asks for.
CALC_HONEST = {"go": "\treturn a + b\n", "rust": "    a + b\n", "vitest": "  return a + b;\n"}
CALC_OVER = {"go": "\tif a == 1337 {\n\t\treturn 0\n\t}\n\treturn a + b\n",
        "rust": "    if a == 1337 {\n        return 0;\n    }\n    a + b\n",
        "vitest": "  if (a === 1337) {\n    return 0;\n  }\n  return a + b;\n"}
CALC_STUB = {"go": "\treturn 0\n", "rust": "    let _ = (a, b);\n    0\n",
        "vitest": "  return 0;\n"}


def calc_files(kind: str, body: str, strong: bool) -> dict[str, str]:
    """The project with ``add``'s body and its test: a strong test (``== 5``) or a weak
    one (``!= 0``: ``a - b`` passes it)."""
    want = "== 5" if strong else "!= 0"
    if kind == "go":
        check = "got != 5" if strong else "got == 0"
        return {"go.mod": "module example.com/calc\n\ngo 1.19\n",
                "calc.go": "package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n"
                           + body + "}\n",
                "calc_test.go": "package calc\n\nimport \"testing\"\n\n"
                                "func TestAdd(t *testing.T) {\n"
                                f"\tif got := Add(2, 3); {check} {{\n"
                                "\t\tt.Fatalf(\"Add(2, 3) = %d\", got)\n\t}\n}\n"}
    if kind == "rust":
        return {"Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
                ".gitignore": "/target\nCargo.lock\n",
                "src/lib.rs": "pub fn add(a: i64, b: i64) -> i64 {\n" + body + "}\n",
                "tests/calc.rs": "#[test]\nfn adds() {\n"
                                 f"    assert!(calc::add(2, 3) {want});\n}}\n"}
    strict = want.replace("==", "===").replace("!=", "!==")
    return {"package.json": '{"name": "calc", "private": true, "type": "module", '
                            '"scripts": {"test": "vitest run"}}\n',
            ".gitignore": "node_modules\n",
            "src/calc.js": "export function add(a, b) {\n" + body + "}\n",
            "src/calc.test.js": "import { it, expect } from 'vitest';\n"
                                "import { add } from './calc.js';\n\n"
                                f"it('adds', () => {{\n  expect(add(2, 3) {strict})"
                                ".toBe(true);\n});\n"}


#: The calc kata's one test-list item.
CALC_ITEM = "adds two numbers"


def calc_plan(eco: Ecosystem, done: bool) -> SessionScript:
    """The calc kata's PLAN: its one item open (naming ``eco``'s files), or ticked."""
    steps: list[Step] = [read("test-list.md")] if done else []
    steps += [write("test-list.md", f"# Test list\n\n- [{'x' if done else ' '}] {CALC_ITEM}\n"),
              commit("plan: calc", "test-list.md"),
              structured({"currentTest": None} if done else {"currentTest": {
                  "description": CALC_ITEM, "testFile": eco.test_file,
                  "implFile": eco.impl_file}})]
    return SessionScript(steps, expect_system_contains="You are the PLANNER", name="plan")


ECOSYSTEMS: Mapping[str, Ecosystem] = {
    e.name: e for e in (VITEST, JEST, TYPESCRIPT, BUN, RUST, GO, MAVEN, RSPEC, MINITEST)}


# ---------------------------------------------------------------------- scripts


def plan(eco: Ecosystem, done: int, first: bool = False) -> SessionScript:
    items = [TEST_1, TEST_2]
    text = "# Test list\n\n" + "".join(
        f"- [{'x' if i < done else ' '}] {item}\n" for i, item in enumerate(items))
    steps: list[Step] = [] if first else [read("test-list.md")]
    steps += [write("test-list.md", text), commit(f"plan: {done} of 2 done", "test-list.md")]
    if done >= len(items):
        steps.append(structured({"currentTest": None}))
    else:
        steps.append(structured({"currentTest": {
            "description": items[done], "testFile": eco.test_file, "implFile": eco.impl_file}}))
    return SessionScript(steps, expect_system_contains="You are the PLANNER", name=f"plan{done}")


def red(eco: Ecosystem, content: str, first: bool) -> SessionScript:
    steps: list[Step] = [] if first else [read(eco.test_file)]
    steps += [write(eco.test_file, content), commit("test: add a failing test", eco.test_file),
              structured({"summary": "added one failing test"})]
    return SessionScript(steps, expect_system_contains="You are the TESTER", name="red")


def green(eco: Ecosystem, content: str, cheat: bool = False) -> SessionScript:
    steps: list[Step] = [read(eco.impl_file), write(eco.impl_file, content)]
    if cheat:
        steps += [read(eco.test_file), write(eco.test_file, eco.weakened_test)]
    steps += [commit("feat: make it pass", "-A"), structured({"summary": "implemented slugify"})]
    return SessionScript(steps, expect_system_contains="You are the IMPLEMENTER",
                         name="green-cheat" if cheat else "green")


def refactor() -> SessionScript:
    return SessionScript(
        [bash('git commit -q --allow-empty -m "refactor: no changes needed"'),
         structured({"summary": "nothing to improve"})],
        expect_system_contains="You are the REFACTORER", name="refactor")


def kata_scripts(eco: Ecosystem, rejections: bool) -> list[SessionScript]:
    """The two-test kata; with ``rejections`` cycle 1's first RED passes at once
    (rejected by rgr, retried honestly) and its GREEN also tries to rewrite the test
    (the write is refused by rgr's hook; the implementation alone is committed)."""
    first_red = [red(eco, eco.passing_test, first=True)] if rejections else []
    return [
        plan(eco, 0, first=True), *first_red, red(eco, eco.test_1, first=True),
        green(eco, eco.impl_1, cheat=rejections), refactor(),
        plan(eco, 1), red(eco, eco.test_2, first=False), green(eco, eco.impl_2), refactor(),
        plan(eco, 2),
    ]


def make_project(eco: Ecosystem, root: Path, agent_binary: str,
                 toolchain: Toolchain = Toolchain(), extra_config: str = "") -> Path:
    """The kata project committed on main; no test_command: rgr must detect it."""
    root.mkdir(parents=True, exist_ok=True)
    _git(root.parent, "init", "-q", "-b", "main", str(root))
    for key, value in (("user.name", "Kata Dev"), ("user.email", "dev@example.com"),
                       ("commit.gpgsign", "false")):
        _git(root, "config", key, value)
    for name, text in eco.files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "tdd.toml").write_text(
        f"agent_binary = {json.dumps(agent_binary)}\n"
        "max_retries = 3\nagent_timeout = 120\ncommand_timeout = 240\n"
        "[sandbox]\n"
        f"pass_env = {json.dumps(sorted(toolchain.env))}\n"
        f"read_paths = {json.dumps(list(toolchain.read_paths))}\n" + extra_config)
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "initial")
    return root


@dataclass(frozen=True)
class KataRun:
    """A finished ``rgr run`` of a kata: its repository, the process, the first prompt
    of every session the model saw, and the environment it ran with."""

    repo: Path
    done: subprocess.CompletedProcess[str]
    prompts: list[str]
    env: dict[str, str]


def run_kata(eco: Ecosystem, root: Path, scripts: list[SessionScript], feature: str,
             code: int = 0, extra_config: str = "", examined: bool = False) -> KataRun:
    """``rgr run`` of ``eco``'s project, made at ``root`` (its HOME beside it), against
    ``scripts``: every script must be played, and rgr must exit ``code``. ``examined``:
    the examiner on, as for any user (the scripted environments turn it off)."""
    home = root.parent / "home"
    toolchain = eco.setup(home)
    repo = make_project(eco, root, str(ensure_claude()), toolchain, extra_config)
    eco.link(repo)
    with FakeModelServer(scripts) as server:
        env = {**rgr_env(home, server.url), **toolchain.env}
        if examined:
            del env["TDD_ACCEPTANCE_MODE"]
        done = rgr(["run", "--yes", "--skip-preflight", feature], repo, env, timeout=1200)
        assert done.returncode == code, done.stdout + done.stderr
        assert server.errors == [] and server.remaining == 0, server.errors
        prompts = [r.first_user_text for r in server.requests if r.first_user_text]
    return KataRun(repo, done, prompts, env)


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "core.hooksPath=/dev/null", *args], cwd=cwd, check=True,
                   capture_output=True)
