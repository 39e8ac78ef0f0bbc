"""The caches a Maven or Gradle test run reads, found without running either.

Maven: ``~/.m2`` under each of the user's homes (Java reads ``user.home`` from the
password database, whatever ``$HOME`` says), its ``repository`` and the local repository
its settings.xml names; settings.xml itself (it may hold server passwords) is never
shown, so Maven is told where the repository is (``-Dmaven.repo.local`` in
``MAVEN_OPTS``), and the variables that carry its options pass. Gradle: its home must be
writable (locks), so only the dependency cache is shown, where ``GRADLE_RO_DEP_CACHE``
tells Gradle to look."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from rgr.ecosystems.base import CacheSpot, ToolCache

#: The variables that carry Maven's options: passed as the user set them.
MAVEN_VARIABLES = ("MAVEN_OPTS", "MAVEN_ARGS", "MAVEN_CONFIG")


def _maven(env: Mapping[str, str], homes: Sequence[Path]) -> tuple[CacheSpot, ...]:
    spots = []
    for home in homes:
        m2 = home / ".m2"
        shows: list[tuple[Path, str | None]] = [(m2 / "repository", None)]
        local = _local_repository(m2 / "settings.xml")
        if local is not None:
            shows.append((local, f"Maven's local repository ({m2}/settings.xml)"))
        spots.append(CacheSpot(
            m2, "Maven's local repository (~/.m2/repository; settings.xml, which may hold "
            "server passwords, is not shown)", tuple(shows),
            lambda shown, current: _maven_variables(env, shown, current)))
    return tuple(spots)


def _maven_variables(env: Mapping[str, str], repository: Path | None,
                     current: Mapping[str, str]) -> dict[str, str]:
    found = {name: env[name] for name in MAVEN_VARIABLES
             if env.get(name) and name not in current}
    options = found.get("MAVEN_OPTS", current.get("MAVEN_OPTS", ""))
    if repository is not None and "maven.repo.local" not in options:
        # settings.xml is not shown (nor is HOME: the sandbox's user may be another,
        # with another user.home): Maven is told where the repository is.
        found["MAVEN_OPTS"] = " ".join(filter(None, (
            options, f"-Dmaven.repo.local={repository}")))
    return found


def _local_repository(settings: Path) -> Path | None:
    try:
        text = settings.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    match = re.search(r"<localRepository>\s*([^<]+?)\s*</localRepository>", text)
    return Path(match.group(1)) if match and os.path.isabs(match.group(1)) else None


def _gradle(env: Mapping[str, str], homes: Sequence[Path]) -> tuple[CacheSpot, ...]:
    caches = Path(env.get("GRADLE_USER_HOME") or homes[0] / ".gradle") / "caches"
    if not caches.is_absolute():
        return ()
    return (CacheSpot(caches, "Gradle's dependency cache", ((caches, None),),
                      lambda shown, _: {"GRADLE_RO_DEP_CACHE": str(shown)} if shown else {}),)


MAVEN = ToolCache("maven", _maven)
GRADLE = ToolCache("gradle", _gradle)
