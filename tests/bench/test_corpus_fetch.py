"""The corpus fetchers (bench/corpus): real downloads from PyPI and npm into a cache keyed
by name and version, read back without the network the second time, and a fetched sdist
built into a user's checkout under a fresh HOME (git repository with the project's own
.gitignore, its own .venv)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from harness import sweep_only

from bench.corpus import build, fetch
from bench.corpus.cache import CACHE_VAR, cache_root, slot

#: A small setuptools-scm project whose sdist ships its tests (54 of them).
INICONFIG = ("iniconfig", "2.3.1")


def test_the_cache_folder_is_keyed_by_source_name_and_version(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_VAR, str(tmp_path / "c"))
    assert cache_root() == tmp_path / "c"
    assert slot("npm", "@fastify/error", "4.3.0") == tmp_path / "c/npm/_fastify_error-4.3.0"
    assert slot("pypi", "six", "1.17.0") != slot("pypi", "six", "1.16.0")
    monkeypatch.delenv(CACHE_VAR)
    assert cache_root() == Path.home() / ".cache" / "rgr-corpus"


def test_a_cached_sdist_is_read_back_without_the_network(
        monkeypatch: pytest.MonkeyPatch) -> None:
    first = fetch.pypi_sdist(*INICONFIG)  # the shared cache: downloaded once
    assert (first / "pyproject.toml").is_file() and (first / "testing").is_dir()
    # An index nobody answers: a download now would fail.
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    assert fetch.pypi_sdist(*INICONFIG) == first


def test_an_unreachable_registry_is_reported_with_the_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    monkeypatch.setenv("PIP_RETRIES", "0")
    with pytest.raises(fetch.FetchError, match="pip download"):
        fetch.pypi_sdist(*INICONFIG, cache=tmp_path)
    assert not slot("pypi", *INICONFIG, tmp_path).joinpath("src").exists()


def test_an_npm_tarball_is_unpacked_and_cached(tmp_path: Path) -> None:
    source = fetch.npm_package("ms", "2.1.3", cache=tmp_path)
    assert (source / "package.json").is_file()
    assert fetch.npm_package("ms", "2.1.3", cache=tmp_path) == source


@sweep_only("tests/bench/test_corpus_fetch.py", "a venv and an editable install, about 20 s; "
            "tests/bench/test_corpus_sample.py builds one in the default run")
def test_an_sdist_becomes_a_users_checkout_with_its_own_venv(tmp_path: Path) -> None:
    source = fetch.pypi_sdist(*INICONFIG)  # the shared cache: downloaded once
    home = tmp_path / "home"
    project = build.build(source, home, "iniconfig", INICONFIG[1],
                          build.Setup("python", pip_install=("-e", ".", "pytest")))
    assert project.is_relative_to(home)

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(project), *args], capture_output=True,
                              text=True, check=True, env={"HOME": str(home)}).stdout
    assert git("tag") == "v2.3.1\n"
    # The version file setuptools-scm wrote is there, ignored by the project's own
    # .gitignore, as in a clone after `pip install -e .`.
    assert (project / "src/iniconfig/_version.py").is_file()
    assert "src/iniconfig/_version.py" in git("status", "--short", "--ignored")
    assert "_version.py" not in git("ls-files")
    own = subprocess.run([str(project / ".venv/bin/python"), "-m", "pytest", "-q"],
                         cwd=project, capture_output=True, text=True)
    assert own.returncode == 0 and "54 passed" in own.stdout


@pytest.mark.skipif(fetch.debian_installed("golang-github-google-go-cmp-dev") is None,
                    reason="needs Debian's golang-github-google-go-cmp-dev installed")
def test_a_debian_go_module_is_copied_out_of_the_system_tree(tmp_path: Path) -> None:
    source = fetch.debian_go_module("golang-github-google-go-cmp-dev",
                                    "github.com/google/go-cmp", cache=tmp_path)
    assert (source / "go.mod").read_text().startswith("module github.com/google/go-cmp")
    assert not any(p.is_symlink() for p in source.rglob("*"))


@sweep_only("tests/bench/test_corpus_fetch.py", "Debian's source archive through apt-get, "
            "about 10 s with the source index")
@pytest.mark.skipif(shutil.which("dpkg-source") is None,
                    reason="needs apt-get and dpkg-source (a Debian machine)")
def test_a_debian_source_package_is_unpacked_with_its_patches_and_cached(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = fetch.debian_source("json-simple", "2.3.0-1", cache=tmp_path)
    assert (source / "pom.xml").is_file() and (source / "src/test").is_dir()
    # dpkg-source applied Debian's patches, as Debian's build starts from them.
    series = (source / "debian/patches/series").read_text().split()
    assert series and (source / ".pc/applied-patches").read_text().split() == series
    # The index of sources lives in the cache, not in the machine's apt lists.
    assert any((tmp_path / "debian-src/apt-state/lists").glob("*Sources*"))
    # The second call finds the unpacked tree in the cache and runs no command.
    def no_command(command: list[str], **_: object) -> str:
        raise AssertionError(f"ran {command}")
    monkeypatch.setattr(fetch, "run", no_command)
    assert fetch.debian_source("json-simple", "2.3.0-1", cache=tmp_path) == source
