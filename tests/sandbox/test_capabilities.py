"""Run as root, the user's own test run keeps capabilities rgr's sandbox drops (every
one): a test that needs one passes there and skips in rgr's run. `rgr verify` says so,
naming the tests and the capability (real bubblewrap, real pytest); as any other user it
says nothing, as the user's own run sees the same as rgr's."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from rgr.sandbox import capabilities
from tests.conftest import clean_env, committed_project

#: Skips, as golang.org/x/sys's TestOpenByHandleAt does, without the capability it needs.
NEEDS_A_CAPABILITY = """\
import pytest


def effective_capabilities():
    for line in open("/proc/self/status"):
        if line.startswith("CapEff:"):
            return int(line.split()[1], 16)
    return 0


def test_reads_every_file():
    if not effective_capabilities() & (1 << 2):  # CAP_DAC_READ_SEARCH
        pytest.skip("skipping test without CAP_DAC_READ_SEARCH")


def test_plain():
    assert 1 + 1 == 2
"""


def test_verify_says_which_tests_skip_for_a_capability_the_sandbox_drops(
        tmp_path: Path) -> None:
    command = shlex.join([sys.executable, "-m", "pytest", "-p", "no:randomly",
                          "-p", "no:cacheprovider"])
    root = committed_project(tmp_path / "caps", {
        "pytest.ini": "[pytest]\n",
        "tests/test_caps.py": NEEDS_A_CAPABILITY,
        "tdd.toml": f"test_command = {json.dumps(command)}\n",
    })
    done = subprocess.run([sys.executable, "-m", "rgr", "verify", "--json"], cwd=root,
                          env=clean_env(tmp_path / "home"), capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)
    out = json.loads(done.stdout)
    assert done.returncode == 0 and out["ok"] is True, done.stdout + done.stderr
    assert out["tests"]["skipped"] == 1 and out["tests"]["passed"] == 1, out["tests"]
    note = out["capabilityNote"]
    if os.geteuid() == 0:
        assert isinstance(note, str), out
        assert "1 test(s) skipped or failed for a capability the sandbox drops " \
               "(CAP_DAC_READ_SEARCH): tests/test_caps.py::test_reads_every_file" in note
        assert "You run rgr as root" in note and "a non-root user's own run" in note
        # Root's own run outside the sandbox has the capability: there it passes.
        own = subprocess.run([*shlex.split(command), "-rs"], cwd=root, capture_output=True,
                             text=True, timeout=120)
        assert "2 passed" in own.stdout, own.stdout
    else:
        assert note is None, note


def test_only_skips_and_failures_that_name_a_capability_or_eperm_count() -> None:
    found = capabilities.find([
        ("a", "skipped", "skipping test without CAP_DAC_READ_SEARCH"),
        ("b", "failed", "open_by_handle_at: operation not permitted"),
        ("c", "passed", "CAP_SYS_ADMIN"),
        ("d", "skipped", "not today"),
        ("e", "failed", "assert 1 == 2"),
    ])
    assert found == capabilities.CapabilityTests(("a", "b"), ("CAP_DAC_READ_SEARCH",))
    assert capabilities.find([("d", "skipped", "not today")]) is None
