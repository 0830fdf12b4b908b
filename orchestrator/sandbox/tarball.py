"""Tar streams for copying into and out of containers: owned by the sandbox user in, safely extracted out."""

from __future__ import annotations

import io
import logging
import shutil
import tarfile
import tempfile
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger(__name__)


def pack(source: Path, arcname: str, uid: int, gid: int) -> bytes:
    """A tar of `source` (file or tree) stored under `arcname`, every entry owned by `uid:gid`."""

    def own(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid, info.gid, info.uname, info.gname = uid, gid, "", ""
        return info

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        tar.add(str(source), arcname=arcname, recursive=True, filter=own)
    return buffer.getvalue()


def _safe(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
    """The `data` extraction filter, skipping (with a warning) what it refuses instead of failing."""
    try:
        return tarfile.data_filter(member, dest)
    except tarfile.FilterError as err:
        log.warning("copy out: skipped %s (%s)", member.name, err)
        return None


def unpack(chunks: Iterable[bytes], source_name: str, dest: Path) -> None:
    """Extract a container archive of `source_name` so that its content lands at `dest`.

    Like `LocalSandbox.copy_out`: a directory's entries are merged into `dest`, a file is written as `dest`.
    """
    dest = Path(dest)
    with tempfile.TemporaryDirectory(prefix="hypertau-out-") as tmp:
        archive = Path(tmp) / "archive.tar"
        with open(archive, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
        staging = Path(tmp) / "x"
        staging.mkdir()
        with tarfile.open(archive) as tar:
            tar.extractall(staging, filter=_safe)
        origin = staging / source_name
        if origin.is_dir():
            shutil.copytree(origin, dest, dirs_exist_ok=True, symlinks=True)
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, dest)
