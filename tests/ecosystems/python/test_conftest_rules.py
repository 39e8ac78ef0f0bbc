"""A conftest.py judged by what it does, not by its name (rgr.check.conftest_rules; issue
25, item 3): fixtures and helpers pass, anything reaching into pytest is refused. Real
sources, real pytest. The rules at work in each phase: tests/check/test_judged_by_content.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rgr.ecosystems.python import conftest_rules

# -- conftest.py: what it does, not its name -----------------------------------------------

FIXTURES_ONLY = '''"""Shared fixtures for the slug tests."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterator

DATA = Path(__file__).resolve().parent / "data"
WORDS: tuple[str, ...] = ("a", "b")


@pytest.fixture
def words() -> list[str]:
    return list(WORDS)


@pytest.fixture(params=["Hello World", "  spaced  "], ids=["plain", "spaced"])
def title(request: pytest.FixtureRequest) -> str:
    return str(getattr(request, "param", ""))


@pytest.fixture(autouse=True)
def tmp_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"sep": "-"}))
    monkeypatch.setenv("SLUG_SETTINGS", str(path))
    yield path


def expected(text: str, sep: str = "-") -> str:
    return sep.join(text.lower().split())


class Sample:
    """A helper class."""

    size = 3

    def values(self) -> list[int]:
        return list(range(self.size))
'''

HOOKS = {
    "a collection hook": "def pytest_collection_modifyitems(items):\n    items[:] = []\n",
    "a report hook": "import pytest\n\n@pytest.hookimpl(hookwrapper=True)\n"
                     "def pytest_runtest_makereport(item, call):\n    yield\n",
    "a hookimpl on another name": "from pytest import hookimpl\n\n@hookimpl(tryfirst=True)\n"
                                  "def anything(config):\n    pass\n",
    "plugins": 'pytest_plugins = ["evil_plugin"]\n',
    "collection ignores": 'collect_ignore = ["tests/test_old.py"]\n',
    "a hook imported from elsewhere": "from helpers import pytest_runtest_logreport\n",
    "a star import": "from helpers import *\n",
    "pytest internals": "import _pytest.runner\n",
    "the plugin manager in a fixture": (
        "import pytest\n\n@pytest.fixture(autouse=True, scope='session')\n"
        "def patch(request):\n    request.config.pluginmanager.register(object())\n"),
    "code at import": "import os\nos.environ['PYTEST_ADDOPTS'] = '-k nothing'\n",
    "a call at import": "import os\nos.system('sed -i s/failed/passed/ report.xml')\n",
    "a decorator that runs code": "import atexit\n\n@atexit.register\ndef bye():\n    pass\n",
    "a computed attribute": ("import pytest\n\n@pytest.fixture\ndef sneaky(request):\n"
                             "    return getattr(request.config, 'plugin' + 'manager')\n"),
}


def test_a_conftest_of_fixtures_and_helpers_does_nothing_else() -> None:
    assert conftest_rules.problems(FIXTURES_ONLY) == []
    assert conftest_rules.refusal("tests/conftest.py", None, FIXTURES_ONLY) is None


@pytest.mark.parametrize("what", sorted(HOOKS))
def test_a_conftest_that_reaches_into_pytest_is_refused(what: str) -> None:
    found = conftest_rules.problems(HOOKS[what])
    assert found, what
    reason = conftest_rules.refusal("conftest.py", None, HOOKS[what])
    assert reason is not None and "may only define fixtures" in reason


def test_replacing_a_hooked_conftest_with_fixtures_is_refused_too() -> None:
    """Removing a hook changes collection as much as adding one."""
    hooked = HOOKS["a collection hook"]
    reason = conftest_rules.refusal("conftest.py", hooked, FIXTURES_ONLY)
    assert reason is not None and "keep" in reason


def test_the_fixtures_only_conftest_really_serves_pytest(tmp_path: Path) -> None:
    """The allowed sample is a working conftest, not a toy: real pytest uses its
    parametrized fixture (two tests), its autouse fixture and its helper."""
    (tmp_path / "conftest.py").write_text(FIXTURES_ONLY)
    (tmp_path / "test_it.py").write_text(
        "import os\nfrom conftest import expected\n\n"
        "def test_title(title, words, tmp_settings):\n"
        "    assert os.environ['SLUG_SETTINGS'] == str(tmp_settings)\n"
        "    assert expected(title) == '-'.join(title.lower().split())\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout + done.stderr
