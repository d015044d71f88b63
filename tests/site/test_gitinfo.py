"""The build commit read from the checkout's files equals what git says, loose or packed."""
import subprocess
from pathlib import Path

from bookkit.load.gitinfo import _read_head, source_commit

ROOT = Path(__file__).resolve().parents[2]


def _git(root, *args):
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_head_read_from_files_is_git_s_head(tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a").write_text("a")
    _git(repo, "add", "a")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a")
    assert _read_head(repo) == _git(repo, "rev-parse", "HEAD")      # a loose ref
    _git(repo, "pack-refs", "--all")
    assert _read_head(repo) == _git(repo, "rev-parse", "HEAD")      # packed-refs
    _git(repo, "checkout", "-q", "--detach")
    assert _read_head(repo) == source_commit(repo) == _git(repo, "rev-parse", "HEAD")


def test_outside_a_checkout_there_is_no_commit(tmp_path):
    assert source_commit(tmp_path) is None
