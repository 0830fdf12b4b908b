#!/usr/bin/env bash
# Host tools that `hypertau images build` stages dependencies with: npm (node packages from the npm registry)
# and debootstrap (a Debian base when no python:3.11-slim-bookworm image can be had). Installs what is
# missing with apt as root; otherwise says what is missing and leaves the image build to report it.
set -uo pipefail

log() { echo "ensure-image-tools: $*" >&2; }
missing=()
command -v npm >/dev/null 2>&1 || missing+=(npm)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null \
        || log "apt-get could not install ${missing[*]}"
else
    log "missing ${missing[*]} (install them, or run this script as root on Debian)"
fi
exit 0
