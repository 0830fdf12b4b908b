"""The Dockerfile of a catalog image, rendered from its spec (one recipe for every image, no network use)."""

from __future__ import annotations

from .catalog import ImageSpec

PATH = "/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def render(spec: ImageSpec) -> str:
    """Dockerfile text; the build context holds `stage/` (debs, wheels, requirements), `npm/`, `files/`."""
    steps = ["set -eu"]
    if spec.debs:
        # dpkg, not apt: apt refuses local .debs that upgrade an essential package of the base (perl-base).
        steps.append("dpkg -i /tmp/stage/debs/*.deb >/dev/null && dpkg --configure -a")
    steps += [
        "python3 -m venv /opt/venv",
        "/opt/venv/bin/pip install -q --no-index --no-cache-dir --find-links /tmp/stage/wheels"
        " -r /tmp/stage/requirements.txt",
        f"useradd --uid 1000 --user-group --create-home --shell /bin/bash {spec.user}",
    ]
    if spec.npm:
        steps.append("for bin in /opt/npm/node_modules/.bin/*; do ln -s \"$bin\" /usr/local/bin/; done")
    steps += [*spec.run, "rm -rf /tmp/stage /var/lib/apt/lists/* /var/cache/apt/*.bin /root/.cache"]
    lines = [
        "ARG BASE",
        "FROM ${BASE}",
        "ENV LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1",
        "COPY stage/ /tmp/stage/",
    ]
    if spec.npm:
        lines.append("COPY npm/ /opt/npm/")
    lines += [f"COPY files/{source} {target}" for source, target in spec.files]
    lines += [
        "RUN " + " && \\\n    ".join(steps),
        f"ENV PATH={PATH} HOME=/home/{spec.user}",
        "USER 1000:1000",
        f"WORKDIR {spec.workdir}",
        'CMD ["/bin/bash"]',
    ]
    return "\n".join(lines) + "\n"
