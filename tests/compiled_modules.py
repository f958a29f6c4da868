"""Where the suite's processes keep compiled modules when ``PYTHONDONTWRITEBYTECODE`` is set.

The suite starts hundreds of Python processes (its workers and every command it runs as a
user would); with that setting, each compiled rrmap and the test modules from source again
(about 0.7 s of CPU per ``rrmap analyze`` process). Compiled modules are kept under
``.pytest_cache/pycache`` instead (``PYTHONPYCACHEPREFIX``), so the source tree stays free
of them, as that setting asks; the workers and the commands inherit it.

A prefix holds the compiled modules of *every* import, the interpreter's and the installed
packages' included, and a new one (a fresh clone) holds none: each worker compiled pandas,
matplotlib, SciPy and the rest from source while collecting (17.8 s against 7.2 s). The
modules they have compiled already, in their ``__pycache__`` folders, are linked into a new
prefix once, before anything heavy is imported: hard links (13,372 in 2.1 s here; symbolic
ones took 10.9 s), or symbolic ones across file systems. A link is only read: a module
whose source changed is compiled again and its link replaced by the new file (Python
writes compiled modules to a temporary name and renames it), never written through.
"""

from __future__ import annotations

import errno
import hashlib
import os
import sys
from pathlib import Path


def cache_compiled_modules(repo: Path) -> None:
    """Keep the compiled modules of this process and its children under *repo*'s
    ``.pytest_cache/pycache`` when ``PYTHONDONTWRITEBYTECODE`` is set (else leave them where
    Python writes them)."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return
    prefix = repo / ".pytest_cache" / "pycache"
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    os.environ["PYTHONPYCACHEPREFIX"] = str(prefix)
    sys.dont_write_bytecode = False
    sys.pycache_prefix = str(prefix)
    _link_installed_modules(prefix, repo)


def _link_installed_modules(prefix: Path, repo: Path) -> None:
    """Link the compiled modules found in the ``__pycache__`` folders on ``sys.path``
    (outside *repo*'s own sources) to where *prefix* looks for them, once per interpreter."""
    key = hashlib.sha256(f"{sys.prefix}\0{sys.implementation.cache_tag}".encode()).hexdigest()
    done = prefix / f"linked-{key[:16]}"
    if done.exists():
        return
    own = {repo.resolve(), (repo / "tests").resolve()}
    tag = f".{sys.implementation.cache_tag}.pyc"
    try:
        for root in dict.fromkeys(sys.path):
            if root and os.path.isdir(root) and Path(root).resolve() not in own:
                _link_tree(root, str(prefix), tag)
        done.touch()
    except OSError:  # no links on this file system, or no room: compile as before
        pass


def _link_tree(root: str, prefix: str, tag: str) -> None:
    link = os.link
    for folder, subfolders, files in os.walk(root):
        # other sys.path entries are walked on their own; hidden folders hold no package
        subfolders[:] = [s for s in subfolders if s != "site-packages" and s[0] != "."]
        if os.path.basename(folder) != "__pycache__":
            continue
        mirror = os.path.join(prefix, os.path.dirname(folder).lstrip(os.sep))
        compiled = [f for f in files if f.endswith(tag)]
        if compiled:
            os.makedirs(mirror, exist_ok=True)
        for name in compiled:
            source, target = os.path.join(folder, name), os.path.join(mirror, name)
            try:
                link(source, target)
            except FileExistsError:  # compiled there already, or linked by another run
                pass
            except OSError as exc:
                if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK) or link is os.symlink:
                    raise
                link = os.symlink  # another file system: a symbolic link
                link(source, target)
