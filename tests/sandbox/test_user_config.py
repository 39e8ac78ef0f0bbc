"""The user's toolchain configuration shown when the runner reads it (issue 45):
``~/.cargo/config.toml`` and the source folders it names (Debian's offline
``replace-with``, a ``cargo vendor`` folder), ``~/.npmrc`` and pip's ``pip.conf`` as
copies with their credentials left out (rgr.sandbox.user_config). Real cargo offline,
real npm and real pip, through ``rgr verify`` in real bubblewrap; a hostile ``.npmrc`` and
``pip.conf`` whose credentials must never reach the sandbox."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from toolchains import ensure_cargo  # type: ignore[import-not-found]

from rgr.ecosystems.registry import ecosystems_used
from rgr.ecosystems.rust.cargo_config import source_folders
from rgr.sandbox.toolchain import detect
from rgr.sandbox.user_config import copy_filtered, holds_credentials, without_credentials
from tests.conftest import clean_env, committed_project

CANARY = "CANARY-npmrc-7d1e"

NPMRC = f"""\
# the old token: {CANARY}-comment
registry=http://npm.scripted.test/
//registry.npmjs.org/:_authToken={CANARY}-token
//npm.scripted.test/:_password={CANARY}-password
//npm.scripted.test/:username=dev
_auth={CANARY}-auth
email=dev@example.test
@acme:registry=http://npm.acme.test/
key="-----BEGIN PRIVATE KEY-----{CANARY}-key"
proxy=http://dev:{CANARY}-proxy@proxy.test:3128/
ignore-scripts=true
"""

PIP_CONF = f"""\
[global]
index-url = https://dev:{CANARY}-index@pypi.acme.test/simple
extra-index-url =
    https://pypi.scripted.test/simple
    https://dev:{CANARY}-extra@other.test/simple
no-index = true
password = {CANARY}-password
[install]
find-links = /opt/wheels
"""


def test_an_npmrc_keeps_its_settings_and_loses_every_credential() -> None:
    kept = without_credentials(NPMRC)
    assert CANARY not in kept
    assert kept.splitlines() == ["registry=http://npm.scripted.test/",
                                 "@acme:registry=http://npm.acme.test/",
                                 "ignore-scripts=true"]


def test_a_pip_conf_keeps_its_settings_and_loses_every_credential() -> None:
    kept = without_credentials(PIP_CONF)
    assert CANARY not in kept
    assert kept.splitlines() == ["[global]", "extra-index-url =",
                                 "    https://pypi.scripted.test/simple", "no-index = true",
                                 "[install]", "find-links = /opt/wheels"]


def test_a_cargo_config_with_a_token_holds_credentials_one_without_does_not() -> None:
    assert not holds_credentials('# a comment\n[source.crates-io]\nreplace-with = "debian"\n'
                                 '[source.debian]\ndirectory = "/usr/share/cargo/registry"\n')
    assert holds_credentials('[registry]\ntoken = "cio-secret"\n')
    assert holds_credentials('[http]\nproxy = "http://dev:secret@proxy.test:3128"\n')


def test_the_copy_is_filtered_and_a_link_in_its_place_is_not_followed(tmp_path: Path) -> None:
    source = tmp_path / "npmrc"
    source.write_text(NPMRC)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("untouched\n")
    target = tmp_path / "home" / ".npmrc"
    target.parent.mkdir()
    target.symlink_to(elsewhere)
    with pytest.raises(OSError):
        copy_filtered(source, target)
    assert elsewhere.read_text() == "untouched\n"
    target.unlink()
    copy_filtered(source, tmp_path / "home" / ".config" / "pip" / "pip.conf")
    assert CANARY not in (tmp_path / "home" / ".config" / "pip" / "pip.conf").read_text()


# -- which project gets which file ---------------------------------------------------------


def _home_with_configs(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    (home / ".config" / "pip").mkdir(parents=True)
    (home / ".npmrc").write_text(NPMRC)
    (home / ".config" / "pip" / "pip.conf").write_text(PIP_CONF)
    project = home / "code" / "project"
    project.mkdir(parents=True)
    return home, project


def _env(home: Path, **more: str) -> dict[str, str]:
    return {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), **more}


def test_a_javascript_project_gets_the_npmrc_a_python_one_pips_config(tmp_path: Path) -> None:
    home, project = _home_with_configs(tmp_path)
    (project / "package.json").write_text('{"scripts": {"test": "node --test"}}\n')
    js = ecosystems_used(project, "node")
    assert detect(project, _env(home), ecosystems=js).home_files == (
        (home / ".npmrc", ".npmrc"),)
    (project / "package.json").unlink()
    (project / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    python = ecosystems_used(project, "pytest")
    assert detect(project, _env(home), ecosystems=python).home_files == (
        (home / ".config" / "pip" / "pip.conf", ".config/pip/pip.conf"),)
    # where XDG_CONFIG_HOME says, when the user sets it
    xdg = tmp_path / "xdg"
    (xdg / "pip").mkdir(parents=True)
    (xdg / "pip" / "pip.conf").write_text("[global]\nno-index = true\n")
    assert detect(project, _env(home, XDG_CONFIG_HOME=str(xdg)),
                  ecosystems=python).home_files == (
        (xdg / "pip" / "pip.conf", ".config/pip/pip.conf"),)


def test_a_cargo_config_holding_a_token_is_not_shown_and_doctor_says_why(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".cargo").mkdir(parents=True)
    (home / ".cargo" / "config.toml").write_text('[registry]\ntoken = "cio-secret"\n')
    project = home / "code" / "project"
    project.mkdir(parents=True)
    (project / "Cargo.toml").write_text('[package]\nname = "p"\nversion = "0.1.0"\n')
    found = detect(project, _env(home), ecosystems=ecosystems_used(project, "cargo"))
    assert home / ".cargo" / "config.toml" not in found.read_paths
    assert any("config.toml" in s and "holds a credential" in s and "credentials.toml" in s
               for s in found.skipped), found.skipped


def test_the_source_folders_cargos_config_names(tmp_path: Path) -> None:
    cargo = tmp_path / "home" / ".cargo"
    cargo.mkdir(parents=True)
    (tmp_path / "home" / "vendor").mkdir()
    (tmp_path / "registry").mkdir()
    (cargo / "config.toml").write_text(
        '[source.crates-io]\nreplace-with = "v"\n[source.v]\ndirectory = "vendor"\n'
        f'[source.l]\nlocal-registry = "{tmp_path / "registry"}"\n'
        '[source.gone]\ndirectory = "/nowhere/at/all"\n')
    assert source_folders(cargo) == (tmp_path / "home" / "vendor", tmp_path / "registry")
    (cargo / "config.toml").write_text("not = [toml\n")
    assert source_folders(cargo) == ()


# -- real runs, sealed -------------------------------------------------------------------

NPM_CONFIG_TEST = f"""\
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {{ execFileSync }} = require('node:child_process');

test('npm reads the registry of the user\\'s npmrc', () => {{
  const got = execFileSync('npm', ['config', 'get', 'registry'], {{ encoding: 'utf8' }});
  assert.strictEqual(got.trim(), 'http://npm.scripted.test/');
}});

test('a version file is copied as it is, none of its lines judged', () => {{
  const versions = fs.readFileSync(path.join(os.homedir(), '.tool-versions'), 'utf8');
  assert.strictEqual(versions, 'nodejs 20.19.0\\n1password-cli 2.24.0\\n');
}});

test('no credential of the npmrc is anywhere under HOME', () => {{
  const seen = [];
  const walk = (dir) => {{
    for (const entry of fs.readdirSync(dir, {{ withFileTypes: true }})) {{
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && fs.readFileSync(full, 'utf8').includes('{CANARY}')) {{
        seen.push(full);
      }}
    }}
  }};
  walk(os.homedir());
  assert.deepStrictEqual(seen, []);
  const got = execFileSync('npm', ['config', 'list', '--json'], {{ encoding: 'utf8' }});
  assert.ok(!got.includes('{CANARY}'), got);
}});
"""


def test_an_npm_project_reads_the_users_npmrc_and_never_its_tokens(tmp_path: Path) -> None:
    if shutil.which("npm") is None:
        pytest.skip("NOT VERIFIED here: npm is not installed")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".npmrc").write_text(NPMRC)
    (home / ".tool-versions").write_text("nodejs 20.19.0\n1password-cli 2.24.0\n")
    root = committed_project(tmp_path / "npmrc-project", {
        "package.json": '{"name": "p", "version": "1.0.0", "scripts": '
                        '{"test": "node --test"}}\n',
        "test/config.test.js": NPM_CONFIG_TEST,
    })
    done = subprocess.run([sys.executable, "-m", "rgr", "verify", "--json"], cwd=root,
                          env=clean_env(home), capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    out = json.loads(done.stdout)
    assert done.returncode == 0 and out["diagnosis"] is None, done.stdout + done.stderr
    assert out["sandbox"]["enabled"] is True
    assert (out["tests"]["passed"], out["tests"]["failed"]) == (3, 0), done.stdout
    assert CANARY not in done.stdout + done.stderr
    assert (home / ".npmrc").read_text() == NPMRC  # the user's own, as it was


def test_cargo_offline_through_the_users_source_replacement(tmp_path: Path) -> None:
    """``~/.cargo/config.toml`` replaces crates.io with a folder of crates, as Debian's
    ``/usr/share/cargo/registry`` or ``cargo vendor``'s: the dependency is found there,
    with no network, in the sandbox as outside it."""
    rustup = ensure_cargo()
    home = tmp_path / "home"
    crate = home / "vendor" / "tally-1.0.0"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text(
        '[package]\nname = "tally"\nversion = "1.0.0"\nedition = "2021"\n')
    (crate / "src" / "lib.rs").write_text("pub fn double(n: u32) -> u32 { n * 2 }\n")
    (crate / ".cargo-checksum.json").write_text('{"files": {}, "package": null}\n')
    (home / ".cargo").mkdir()
    (home / ".cargo" / "config.toml").write_text(
        '[source.crates-io]\nreplace-with = "vendored"\n\n'
        '[source.vendored]\ndirectory = "vendor"\n')
    root = committed_project(tmp_path / "uses-tally", {
        "Cargo.toml": '[package]\nname = "uses-tally"\nversion = "0.1.0"\nedition = "2021"\n'
                      '\n[dependencies]\ntally = "1"\n',
        "src/lib.rs": "pub fn quad(n: u32) -> u32 { tally::double(tally::double(n)) }\n\n"
                      "#[cfg(test)]\nmod tests {\n    #[test]\n    fn quads() {\n"
                      "        assert_eq!(super::quad(2), 8);\n    }\n}\n",
        ".gitignore": "target/\n",
    })
    # CARGO_HOME stays the user's (~/.cargo, the configuration's folder); rustup's own
    # home is where the toolchain is
    env = clean_env(home, {k: v for k, v in rustup.items() if k != "CARGO_HOME"})
    done = subprocess.run([sys.executable, "-m", "rgr", "verify", "--json"], cwd=root,
                          env=env, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    out = json.loads(done.stdout)
    assert done.returncode == 0 and out["diagnosis"] is None, done.stdout + done.stderr
    assert out["sandbox"]["enabled"] is True
    assert (out["tests"]["passed"], out["tests"]["failed"]) == (1, 0), done.stdout


def test_cargo_going_to_the_network_is_diagnosed_with_a_fix_that_is_not_its_command(
        tmp_path: Path) -> None:
    """No offline source and no downloaded dependency: rgr says cargo tried the network
    and how to give it the dependencies, where it used to suggest the command it ran."""
    rustup = ensure_cargo()
    home = tmp_path / "home"
    root = committed_project(tmp_path / "needs-itoa", {
        "Cargo.toml": '[package]\nname = "needs-itoa"\nversion = "0.1.0"\nedition = "2021"\n'
                      '\n[dependencies]\nitoa = "1"\n',
        "src/lib.rs": "#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n",
        ".gitignore": "target/\n",
    })
    env = clean_env(home, {k: v for k, v in rustup.items() if k != "CARGO_HOME"})
    done = subprocess.run([sys.executable, "-m", "rgr", "verify", "--json"], cwd=root,
                          env=env, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    out = json.loads(done.stdout)
    assert done.returncode != 0, done.stdout
    assert "cargo tried the network" in out["diagnosis"]["problem"], done.stdout
    assert "cargo fetch" in out["diagnosis"]["fix"], done.stdout


def test_a_network_error_of_another_runner_is_not_read_as_cargos() -> None:
    from rgr.ecosystems import registry
    assert registry.diagnose("E   requests.exceptions.ConnectionError: Could not resolve "
                             "host: pypi.org\n", {}) is None
    found = registry.diagnose("error: failed to read root of directory source: "
                              "/srv/vendor\n", {})
    assert found is not None and 'read_paths = ["/srv/vendor"]' in found.fix


PIP_CONFIG_TEST = f"""\
import subprocess
import sys


def test_pip_reads_the_users_config_and_none_of_its_credentials():
    listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"],
                            capture_output=True, text=True, check=True).stdout
    assert "global.no-index='true'" in listed, listed
    assert "{CANARY}" not in listed
"""


def test_a_python_project_reads_the_users_pip_conf_and_never_its_credentials(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".config" / "pip").mkdir(parents=True)
    (home / ".config" / "pip" / "pip.conf").write_text(PIP_CONF)
    root = committed_project(tmp_path / "pip-project", {
        "tdd.toml": f"test_command = {json.dumps([sys.executable, '-m', 'pytest', '-q'])}\n",
        "pyproject.toml": "[project]\nname = 'p'\nversion = '0'\n",
        "test_pip_config.py": PIP_CONFIG_TEST,
    })
    done = subprocess.run([sys.executable, "-m", "rgr", "verify", "--json"], cwd=root,
                          env=clean_env(home), capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    out = json.loads(done.stdout)
    assert done.returncode == 0 and out["diagnosis"] is None, done.stdout + done.stderr
    assert (out["tests"]["passed"], out["tests"]["failed"]) == (1, 0), done.stdout
