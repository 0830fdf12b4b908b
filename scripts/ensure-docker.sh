#!/usr/bin/env bash
# Make a Docker engine answer for the `docker` tests: install docker.io (Debian, as root) when the CLI or
# daemon is missing, start dockerd in the background when no engine answers, and wait for it.
# Never fails the caller: without root, apt or a startable daemon it says why and exits 0, and the
# docker-marked tests then skip with that reason.
set -uo pipefail

log() { echo "ensure-docker: $*" >&2; }
engine_up() { command -v docker >/dev/null 2>&1 && timeout 10 docker info >/dev/null 2>&1; }

if engine_up; then log "engine answers"; exit 0; fi

is_root=0; [ "$(id -u)" = 0 ] && is_root=1
if ! command -v dockerd >/dev/null 2>&1; then
    if [ "$is_root" = 1 ] && command -v apt-get >/dev/null 2>&1; then
        log "installing docker.io"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends docker.io >/dev/null \
            || { log "apt-get could not install docker.io: docker tests will be skipped"; exit 0; }
    else
        log "no dockerd and no root+apt to install it: docker tests will be skipped"; exit 0
    fi
fi

if [ "$is_root" != 1 ]; then log "no engine answers for this user and not root to start one: docker tests will be skipped"; exit 0; fi

wait_for_engine() {
    for _ in $(seq 1 60); do engine_up && return 0; sleep 1; done
    return 1
}

pidfile=/var/run/docker.pid
if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    log "dockerd (pid $(cat "$pidfile")) is running but not answering yet: waiting for it"
    if wait_for_engine; then log "engine answers"; exit 0; fi
    log "dockerd does not answer: docker tests will be skipped"; exit 0
fi
rm -f "$pidfile"  # stale: its daemon is gone

logfile=/var/log/hypertau-dockerd.log
log "starting dockerd in the background (log: $logfile)"
# setsid: the daemon outlives this script and is not hit by the terminal's Ctrl-C.
setsid nohup dockerd >>"$logfile" 2>&1 </dev/null &
if wait_for_engine; then log "engine answers"; exit 0; fi
log "dockerd did not answer within 60 s (see $logfile): docker tests will be skipped"
exit 0
