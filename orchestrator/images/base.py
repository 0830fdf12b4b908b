"""The base of every image: `python:3.11-slim-bookworm` when the engine has it or can pull it, otherwise a
Debian bookworm root filesystem bootstrapped from the host's Debian mirror and imported (no registry)."""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..sandbox.base import SandboxError
from ..sandbox.engine import LABEL_IMAGE

log = logging.getLogger(__name__)

UPSTREAM = "python:3.11-slim-bookworm"
SUITE = "bookworm"
INCLUDE = ("python3", "python3-venv", "ca-certificates")
DEFAULT_MIRROR = "http://deb.debian.org/debian"
_CHANGES = ["ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "ENV LANG=C.UTF-8",
            'CMD ["/bin/bash"]', f"LABEL {LABEL_IMAGE}=base"]


def bootstrap_tag() -> str:
    """Tag of our bootstrapped base: a hash of what debootstrap is asked for."""
    digest = hashlib.sha256(f"{SUITE}|minbase|{','.join(INCLUDE)}".encode()).hexdigest()[:16]
    return f"hypertau/base:{digest}"


def find_base(client) -> tuple[str, str] | None:
    """(reference, id) of a base image the engine already has (upstream first), else None."""
    import docker.errors

    for ref in (UPSTREAM, bootstrap_tag()):
        try:
            return ref, client.images.get(ref).id
        except docker.errors.ImageNotFound:
            continue
    return None


def ensure_base(client) -> tuple[str, str]:
    """(reference, id) of the base image, pulling or bootstrapping it when the engine has none."""
    found = find_base(client)
    if found:
        return found
    try:
        log.info("pulling %s", UPSTREAM)
        return UPSTREAM, client.images.pull(UPSTREAM).id
    except Exception as err:  # noqa: BLE001 - no registry: bootstrap from Debian packages instead
        log.info("cannot pull %s (%s); bootstrapping a Debian %s base", UPSTREAM, str(err)[:120], SUITE)
    return bootstrap_tag(), bootstrap(client)


def debian_mirror(sources: Path = Path("/etc/apt")) -> str:
    """The host's Debian mirror for the main archive (deb822 `.sources` or one-line `.list` files)."""
    files = sorted(sources.glob("sources.list.d/*.sources")) + [sources / "sources.list",
                                                               *sorted(sources.glob("sources.list.d/*.list"))]
    for path in files:
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".sources":
            for stanza in re.split(r"\n\s*\n", text):
                uris = re.search(r"^URIs:\s*(\S+)", stanza, re.M)
                suites = re.search(r"^Suites:\s*(.+)$", stanza, re.M)
                if uris and suites and SUITE in suites.group(1).split() and "security" not in uris.group(1):
                    return uris.group(1).rstrip("/")
        else:
            for match in re.finditer(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)\s+(\S+)", text, re.M):
                if match.group(2) == SUITE and "security" not in match.group(1):
                    return match.group(1).rstrip("/")
    return DEFAULT_MIRROR


def bootstrap(client) -> str:
    """debootstrap a minimal bookworm with Python 3.11, then `docker import` it; return the image id."""
    if not shutil.which("debootstrap"):
        raise SandboxError("no base image and no debootstrap to make one "
                           "(run scripts/ensure-image-tools.sh as root, or `docker pull " + UPSTREAM + "`)")
    if os.geteuid() != 0:
        raise SandboxError("bootstrapping the base image needs root (debootstrap)")
    mirror = debian_mirror()
    with tempfile.TemporaryDirectory(prefix="hypertau-rootfs-") as tmp:
        root = Path(tmp) / "rootfs"
        log.info("debootstrap %s from %s (about a minute)", SUITE, mirror)
        done = subprocess.run(["debootstrap", "--variant=minbase", f"--include={','.join(INCLUDE)}", SUITE,
                               str(root), mirror], capture_output=True, text=True)
        if done.returncode != 0:
            tail = (done.stdout + done.stderr).strip().splitlines()[-5:]
            raise SandboxError("debootstrap failed: " + " | ".join(tail))
        for junk in ("var/cache/apt/archives", "var/lib/apt/lists"):
            for entry in (root / junk).glob("*"):
                if entry.is_file():
                    entry.unlink()
        archive = Path(tmp) / "rootfs.tar"
        subprocess.run(["tar", "-C", str(root), "--numeric-owner", "-cf", str(archive), "."], check=True)
        repository, tag = bootstrap_tag().split(":")
        client.api.import_image_from_file(str(archive), repository=repository, tag=tag, changes=_CHANGES)
    image = client.images.get(bootstrap_tag())
    log.info("base image %s (%s)", bootstrap_tag(), image.short_id)
    return image.id

