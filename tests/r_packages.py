"""The tests that compare with R skip, saying what to install, where R or a package is
missing; R is asked when such a test runs (one call of R takes 0.3 s), never while the
tests are collected, and once per package in a process."""

from __future__ import annotations

import functools
import shutil
import subprocess

import pytest


@functools.cache
def _installed(name: str) -> bool:
    if shutil.which("Rscript") is None:
        return False
    code = f"quit(status = !requireNamespace('{name}', quietly = TRUE))"
    return subprocess.run(["Rscript", "-e", code], capture_output=True).returncode == 0


def need_r_package(name: str, install: str) -> None:
    """Skip the calling test unless R and its package *name* are installed (*install*:
    how to install it, for the skip's reason)."""
    if not _installed(name):
        pytest.skip(f"R package {name} is not installed ({install})")
