"""Where the ranges change (bench/corpus/ranges.py) goes in each corpus project, in the
project's own style: beside its code, its tests where its own test command finds them,
imported the way its own tests import its code."""

from __future__ import annotations

from dataclasses import dataclass

from bench.corpus.ranges import STYLES


@dataclass(frozen=True)
class Placement:
    """One project's ranges change: the style of its texts, the new code file, the new
    test file, and how the tests import the code."""

    style: str
    code: str
    tests: str
    #: The Python module, JS path, Go package, Rust crate or Java package the tests
    #: import.
    module: str
    #: A Rust crate's root, where GREEN declares the new module (``pub mod ranges;``).
    crate_root: str = ""

    def text(self, key: str) -> str:
        """The style's text ``key`` (``honest``, ``tests``, a cheat...) for this project."""
        text = STYLES[self.style][key]
        if self.style == "rust":  # a Rust text's braces are its own: only the crate named
            return text.replace("{module}", self.module)
        return text.replace("{module}", self.module).replace("{package}", self.module)


#: Project name (bench/corpus/projects.py) -> its placement.
PLACEMENTS: dict[str, Placement] = {
    # Minitest's own suite: test/**/test_*.rb, lib on the load path.
    "minitest": Placement("minitest", "lib/ranges.rb", "test/minitest/test_ranges.rb",
                          "ranges"),
    "iniconfig": Placement("python", "src/iniconfig/ranges.py", "testing/test_ranges.py",
                           "iniconfig.ranges"),
    # Its own command is `unittest discover tests`: a TestCase in tests/.
    "markdown": Placement("unittest", "markdown/ranges.py", "tests/test_ranges.py",
                          "markdown.ranges"),
    "six": Placement("python", "ranges.py", "test_ranges.py", "ranges"),
    "humanize": Placement("python", "src/humanize/ranges.py", "tests/test_ranges.py",
                          "humanize.ranges"),
    "pluggy": Placement("python", "src/pluggy/_ranges.py", "testing/test_ranges.py",
                        "pluggy._ranges"),
    # Mocha 5, CommonJS, `mocha test/**/*.js` after ESLint (semicolons, parsed as modules).
    "deep-diff": Placement("cjs-semi", "ranges.js", "test/ranges.js", "../ranges"),
    # Mocha 11, an ES module package.
    "chai-string": Placement("esm", "ranges.js", "test/ranges.test.js", "../ranges.js"),
    # node:test behind `c8 --100`: every line of the new code must be covered.
    "@fastify/error": Placement("node-test", "ranges.js", "test/ranges.test.js",
                                "../ranges"),
    # A package of a multi-package module.
    "github.com/google/go-cmp": Placement("go", "cmp/ranges.go", "cmp/ranges_test.go",
                                          "cmp"),
    "github.com/google/uuid": Placement("go", "ranges.go", "ranges_test.go", "uuid"),
    # A new public module declared in lib.rs, tested from tests/.
    "semver": Placement("rust", "src/ranges.rs", "tests/ranges.rs", "semver",
                        crate_root="src/lib.rs"),
    "itoa": Placement("rust", "src/ranges.rs", "tests/ranges.rs", "itoa",
                      crate_root="src/lib.rs"),
    # node:test files among tape and Jest ones (borp runs `test/**/*.test.js`); its user's
    # tdd.toml gives test runs a writable copy of node_modules (bench/corpus/projects.py).
    "pino": Placement("node-test", "lib/ranges.js", "test/ranges.test.js", "../lib/ranges"),
    # Vitest 4, TypeScript ES modules, a spec beside the code importing `./x.js`.
    "css-what": Placement("vitest-ts", "src/ranges.ts", "src/ranges.spec.ts", "./ranges.js"),
    # Jest 24, CommonJS, tests under tests/ (`*.test.js`).
    "cron": Placement("jest", "lib/ranges.js", "tests/ranges.test.js", "../lib/ranges"),
    # A Java class in the project's package, its JUnit test under src/test/java.
    "commons-codec": Placement("junit4", "src/main/java/org/apache/commons/codec/Ranges.java",
                               "src/test/java/org/apache/commons/codec/RangesTest.java",
                               "org.apache.commons.codec"),
    "json-simple": Placement("junit4", "src/main/java/org/json/simple/Ranges.java",
                             "src/test/java/org/json/simple/RangesTest.java", "org.json.simple"),
    "commons-collections4": Placement(
        "junit4", "src/main/java/org/apache/commons/collections4/Ranges.java",
        "src/test/java/org/apache/commons/collections4/RangesTest.java",
        "org.apache.commons.collections4"),
    "jsoup": Placement("junit5", "src/main/java/org/jsoup/helper/Ranges.java",
                       "src/test/java/org/jsoup/helper/RangesTest.java", "org.jsoup.helper"),
    # execabs: the smallest of the module's tested packages (unix's tests are system calls).
    "golang.org/x/sys": Placement("go", "execabs/ranges.go", "execabs/ranges_test.go",
                                  "execabs"),
    "github.com/BurntSushi/toml": Placement("go", "ranges.go", "ranges_test.go", "toml"),
    "unicode-normalization": Placement("rust", "src/ranges.rs", "tests/ranges.rs",
                                       "unicode_normalization", crate_root="src/lib.rs"),
}
