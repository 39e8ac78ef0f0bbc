"""The git side of a sealed attempt on real repositories: the scratch copy, what comes
back from it (and what does not), pristine checkouts, the compare-and-swap branch move."""

from __future__ import annotations

import os
from pathlib import Path

import pygit2
import pytest

from rgr.base.errors import RgrError
from rgr.store import scratch
from rgr.store.scratch import ImportRefused, checkout_pristine, import_branch, make_scratch
from tests.conftest import Repo, git, make_repo

WHO = pygit2.Signature("Agent", "agent@example.com")


@pytest.fixture
def user(tmp_path: Path) -> Repo:
    repo = make_repo(tmp_path, commits=2)
    repo.commit("add code", {"src/app.py": "print('hi')\n"})
    return repo


def _scratch(user: Repo, tmp_path: Path) -> tuple[pygit2.Repository, scratch.Scratch]:
    repo = pygit2.Repository(str(user.path))
    base = repo.head.peel(pygit2.Commit)
    made = make_scratch(repo, base, "main", tmp_path / "attempt" / "work", WHO)
    return repo, made


def test_the_scratch_copy_has_its_own_git_at_the_base(user: Repo, tmp_path: Path) -> None:
    _, made = _scratch(user, tmp_path)
    assert (made.work / "src/app.py").read_text() == "print('hi')\n"
    assert git(made.work, "rev-parse", "HEAD") == user.head()
    assert git(made.work, "status", "--porcelain") == ""
    assert git(made.work, "log", "--format=%s") == git(user.path, "log", "--format=%s")
    assert Path(git(made.work, "rev-parse", "--absolute-git-dir")) == made.work / ".git"
    assert git(made.work, "config", "user.email") == "agent@example.com"


def test_only_the_attempt_branch_comes_back(user: Repo, tmp_path: Path) -> None:
    repo, made = _scratch(user, tmp_path)
    work = made.work
    (work / "src/app.py").write_text("print('changed')\n")
    git(work, "commit", "-qam", "feat: change")
    git(work, "switch", "-qc", "side")
    (work / "side.txt").write_text("side\n")
    git(work, "add", "side.txt")
    git(work, "commit", "-qm", "side work")
    side = git(work, "rev-parse", "HEAD")
    git(work, "switch", "-q", "main")
    git(work, "notes", "add", "-m", "forged", "HEAD")
    refs_before = user.git("for-each-ref")
    tip = import_branch(repo, made, repo.head.target)
    assert str(tip) == git(work, "rev-parse", "main")
    assert user.git("cat-file", "-t", str(tip)) == "commit"
    assert user.git("show", f"{tip}:src/app.py") == "print('changed')"
    assert pygit2.Oid(hex=side) not in repo.odb  # the side commit stayed out
    assert user.git("for-each-ref") == refs_before  # no ref was made or moved


def test_nothing_committed_gives_the_base(user: Repo, tmp_path: Path) -> None:
    repo, made = _scratch(user, tmp_path)
    (made.work / "stray.txt").write_text("uncommitted\n")
    assert import_branch(repo, made, repo.head.target) == repo.head.target
    git(made.work, "branch", "-qm", "main", "renamed")
    assert import_branch(repo, made, repo.head.target) == repo.head.target


def test_tampered_alternates_are_rewritten_before_reading(user: Repo, tmp_path: Path) -> None:
    repo, made = _scratch(user, tmp_path)
    (made.work / "a.txt").write_text("a\n")
    git(made.work, "add", "a.txt")
    git(made.work, "commit", "-qm", "feat: a")
    other = make_repo(tmp_path, name="other")
    alternates = made.git_dir / "objects" / "info" / "alternates"
    alternates.write_text(f"{other.path}/.git/objects\n")
    tip = import_branch(repo, made, repo.head.target)
    assert alternates.read_text().strip() == str(Path(repo.path) / "objects")
    assert user.git("cat-file", "-t", str(tip)) == "commit"


def test_a_replaced_object_store_is_refused(user: Repo, tmp_path: Path) -> None:
    repo, made = _scratch(user, tmp_path)
    objects = made.git_dir / "objects"
    objects.rename(made.git_dir / "objects-real")
    os.symlink(made.git_dir / "objects-real", objects)
    with pytest.raises(ImportRefused, match="replaced"):
        import_branch(repo, made, repo.head.target)


def test_the_import_budget(user: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, made = _scratch(user, tmp_path)
    (made.work / "big.bin").write_bytes(os.urandom(64 * 1024))
    git(made.work, "add", "big.bin")
    git(made.work, "commit", "-qm", "feat: big")
    monkeypatch.setattr(scratch, "MAX_IMPORT_BYTES", 32 * 1024)
    with pytest.raises(ImportRefused, match="exceed"):
        import_branch(repo, made, repo.head.target)


def test_a_pristine_checkout_is_the_commit_and_nothing_else(user: Repo, tmp_path: Path) -> None:
    (user.path / "untracked.py").write_text("import os\n")
    (user.path / ".git" / "info" / "exclude").write_text("ignored.pth\n")
    (user.path / "ignored.pth").write_text("import os\n")
    repo = pygit2.Repository(str(user.path))
    target = tmp_path / "pristine"
    checkout_pristine(repo, repo.head.target, target)
    listed = sorted(str(p.relative_to(target)) for p in target.rglob("*"))
    assert listed == sorted(user.git("ls-tree", "-r", "-t", "--name-only", "HEAD").split())
    assert user.git("status", "--porcelain") == "?? untracked.py"  # the user's index untouched
    with pytest.raises(RgrError, match="not empty"):
        checkout_pristine(repo, repo.head.target, target)


def test_the_branch_moves_only_from_where_rgr_left_it(user: Repo, tmp_path: Path) -> None:
    repo, made = _scratch(user, tmp_path)
    base = repo.head.target
    (made.work / "new.txt").write_text("new\n")
    git(made.work, "add", "new.txt")
    git(made.work, "commit", "-qm", "feat: new")
    tip = import_branch(repo, made, base)
    user.commit("the user commits meanwhile")
    with pytest.raises(RgrError, match="moved while rgr worked"):
        scratch.update_worktree(repo, "main", base, tip, "rgr: test")
    user.git("reset", "-q", "--hard", str(base))
    scratch.update_worktree(repo, "main", base, tip, "rgr: test")
    assert user.head() == str(tip)
    assert (user.path / "new.txt").read_text() == "new\n"
    assert user.git("status", "--porcelain") == ""


def _tree_of(folder: Path) -> dict[str, tuple[str, object]]:
    """Every entry under ``folder``: kind and content (link target, bytes and exec bit)."""
    found: dict[str, tuple[str, object]] = {}
    for path in sorted(folder.rglob("*")):
        name = str(path.relative_to(folder))
        if path.is_symlink():
            found[name] = ("link", os.readlink(path))
        elif path.is_dir():
            found[name] = ("dir", None)
        else:
            found[name] = ("file", (path.read_bytes(), os.access(path, os.X_OK)))
    return found


def test_a_staged_checkout_brought_forward_is_the_commit_exactly(user: Repo,
                                                                 tmp_path: Path) -> None:
    """The tree staged during a session and advanced to the attempt's commit equals a
    fresh checkout of that commit, through every kind of change git can make."""
    user.commit("shapes", {"keep.py": "1\n", "mod.py": "old\n", "gone/deep/x.py": "x\n",
                           "becomes_dir": "file\n", "was_dir/inner.py": "i\n",
                           "tool.sh": "echo\n", "weird[1]*.py": "w\n", "star*.py": "s\n"})
    (user.path / "old_link").symlink_to("keep.py")
    user.git("add", "old_link")
    user.git("commit", "-qm", "a link")
    base = user.git("rev-parse", "HEAD")
    user.git("rm", "-rq", "gone", "becomes_dir", "was_dir", "old_link", "star*.py")
    user.commit("every change", {"mod.py": "new\n", "becomes_dir/now.py": "d\n",
                                 "was_dir": "now a file\n", "added/n.py": "n\n",
                                 "weird[1]*.py": "w2\n"})
    (user.path / "new_link").symlink_to("mod.py")
    user.git("add", "new_link")
    (user.path / "tool.sh").chmod(0o755)
    user.git("add", "tool.sh")
    user.git("commit", "-qm", "link and mode")
    tip = user.git("rev-parse", "HEAD")
    repo = pygit2.Repository(str(user.path))
    expected = tmp_path / "fresh"
    checkout_pristine(repo, pygit2.Oid(hex=tip), expected)

    stager = scratch.PristineStager(repo.path)
    (tmp_path / "staged").mkdir()
    stager.stage(pygit2.Oid(hex=base), tmp_path / "staged")
    got = tmp_path / "verify" / "tree"
    got.parent.mkdir()
    assert stager.take(repo, pygit2.Oid(hex=tip), got)
    assert _tree_of(got) == _tree_of(expected)
    assert "gone" not in _tree_of(got)  # emptied folders go as in a fresh checkout
    assert not (tmp_path / "staged").exists()  # its folder is removed once taken
    # Each staged tree is used once: a second take finds none.
    assert not stager.take(repo, pygit2.Oid(hex=tip), tmp_path / "verify" / "again")
    assert user.git("status", "--porcelain") == ""  # the user's index untouched


def test_a_staged_checkout_that_failed_is_not_used(user: Repo, tmp_path: Path) -> None:
    repo = pygit2.Repository(str(user.path))
    stager = scratch.PristineStager(repo.path)
    (tmp_path / "staged" / "tree").mkdir(parents=True)
    (tmp_path / "staged" / "tree" / "planted.py").write_text("x\n")  # not empty: refused
    stager.stage(repo.head.target, tmp_path / "staged")
    assert not stager.take(repo, repo.head.target, tmp_path / "tree")
    assert not (tmp_path / "tree").exists() and not (tmp_path / "staged").exists()
    stager.stage(repo.head.target, tmp_path / "again")
    stager.discard()
    assert not (tmp_path / "again").exists()
