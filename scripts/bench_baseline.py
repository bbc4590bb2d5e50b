"""The baseline keystorm binary of the benchmark table: built from another revision.

`build(rev)` checks REV out with `git worktree add --detach` into a temporary folder
outside the repository, builds its release binary there (`cargo build --release
--locked -p keystorm`, into a target folder of its own or a cache folder given),
copies the binary out and removes the worktree again, so `git status` and `git
worktree list` are as they were.
"""

import os
import shutil
import subprocess
import sys
import tempfile

from bench_common import ROOT


def git(*args):
    return subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True)


def commit_of(rev):
    """The full commit REV names, or None."""
    out = git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    return out.stdout.strip() if out.returncode == 0 else None


def describe_checkout():
    """This checkout's commit, short, with "+ uncommitted changes" where it has some."""
    head = git("rev-parse", "--short", "HEAD").stdout.strip() or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no").stdout.strip()
    return f"{head} + uncommitted changes" if dirty else head


def build(rev, work, target_dir=None, log=print):
    """Builds REV's release binary; returns its path inside `work` (a temporary folder
    the caller removes). Exits with a message when REV is unknown or does not build."""
    commit = commit_of(rev)
    if commit is None:
        sys.exit(f"bench: --baseline {rev}: not a commit of this repository")
    src = os.path.join(work, "src")
    target = os.path.abspath(target_dir) if target_dir else os.path.join(work, "target")
    log(f"baseline: checking out {rev} ({commit[:10]}) into {src}")
    out = git("worktree", "add", "--detach", src, commit)
    if out.returncode != 0:
        sys.exit(f"bench: git worktree add failed: {out.stderr.strip()}")
    try:
        log(f"baseline: cargo build --release --locked -p keystorm (target {target}); "
            "this takes minutes on a cold target folder")
        built = subprocess.run(["cargo", "build", "--release", "--locked", "-p", "keystorm"],
                               cwd=src, env=dict(os.environ, CARGO_TARGET_DIR=target),
                               stdout=sys.stderr)
        if built.returncode != 0:
            sys.exit(f"bench: building {rev} failed (cargo's output above)")
        binary = os.path.join(work, "keystorm")
        shutil.copy2(os.path.join(target, "release", "keystorm"), binary)
    finally:
        git("worktree", "remove", "--force", src)
    log(f"baseline: built {binary}")
    return binary, commit


def temp_folder():
    return tempfile.mkdtemp(prefix="keystorm-baseline-")
