#!/usr/bin/env bash
# Install everything repofix needs on a fresh Debian/Ubuntu machine (as root), from a clone:
#   1. apt: docker.io, bubblewrap, slirp4netns (bwrap setup network), debootstrap, patch, git
#   2. start dockerd if no engine answers (sandbox/start_dockerd.sh; fails if it cannot start)
#   3. base image from debootstrap, no registry (sandbox/build_base.sh; cached in /var/cache/repofix)
#   4. sandbox image (sandbox/Dockerfile)
#   5. pip install -e '.[test,charts,ray]'  (the `repofix` command, what the tests need, report charts,
#      evaluations on a Ray cluster)
# Idempotent: a second run reuses the images and the cached root filesystem. Each phase is timed.
# The README's first command is `bash scripts/install.sh && repofix demo`; .ci/run calls this too.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT="$PWD"
LOG_DIR="${REPOFIX_CI_LOG_DIR:-/tmp/repofix-ci}"
mkdir -p "$LOG_DIR"
export DEBIAN_FRONTEND=noninteractive

SUMMARY=()
CI_START=$SECONDS
say() { echo "[install $(date -u +%H:%M:%S)] $*"; }
summary() {
    local rc=$?
    echo
    echo "=== install phase timings ==="
    for line in "${SUMMARY[@]}"; do echo "  $line"; done
    printf '  %-28s %5ss\n' "total" "$((SECONDS - CI_START))"
    echo "=== exit code $rc ==="
}
trap summary EXIT

# phase NAME COMMAND...: run COMMAND, time it, and record the result. (errexit is off inside
# COMMAND, as for anything on the left of ||, so the functions below check each step themselves.)
phase() {
    local name=$1; shift
    local t0=$SECONDS rc=0
    say ">>> $name"
    "$@" || rc=$?
    local dt=$((SECONDS - t0))
    if [ "$rc" = 0 ]; then
        SUMMARY+=("$(printf '%-28s %5ss  ok' "$name" "$dt")")
        say "<<< $name: ok in ${dt}s"
    else
        SUMMARY+=("$(printf '%-28s %5ss  FAILED (exit %s)' "$name" "$dt" "$rc")")
        say "<<< $name: FAILED (exit $rc) after ${dt}s"
    fi
    return "$rc"
}

# Run quietly into a log; show its tail if it fails.
quiet() {
    local log="$LOG_DIR/$1.log"; shift
    if ! "$@" >"$log" 2>&1; then
        echo "--- last lines of $log ---"
        tail -n 40 "$log"
        return 1
    fi
}

apt_install() {
    # Never let a package's maintainer script start a service (dockerd is started below, with our flags).
    local made_policy=0
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
        chmod +x /usr/sbin/policy-rc.d
        made_policy=1
    fi
    local rc=0
    local opts=(-o Acquire::Retries=3 -o DPkg::Lock::Timeout=300
                -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
    {
        quiet apt-update apt-get "${opts[@]}" update &&
        quiet apt-install apt-get "${opts[@]}" -y -q install --no-install-recommends \
            docker.io bubblewrap slirp4netns debootstrap debian-archive-keyring patch git iproute2 ca-certificates \
            iptables
    } || rc=$?
    if [ "$made_policy" = 1 ]; then rm -f /usr/sbin/policy-rc.d; fi
    return "$rc"
}

build_sandbox_image() {
    local old_id
    old_id="$(docker image inspect --format '{{.Id}}' repofix-sandbox:latest 2>/dev/null || true)"
    quiet docker-build docker build --build-arg BASE_IMAGE=repofix-base:bookworm \
        -t repofix-sandbox:latest "$ROOT/sandbox/" || return 1
    # The build it replaced, now untagged, only takes disk (kept while a container still uses it).
    if [ -n "$old_id" ] && [ "$old_id" != "$(docker image inspect --format '{{.Id}}' repofix-sandbox:latest)" ]; then
        docker rmi "$old_id" >/dev/null 2>&1 || true
    fi
    docker image inspect --format 'repofix-sandbox:latest {{.Id}} ({{.Size}} bytes)' repofix-sandbox:latest
}

say "repofix install in $ROOT; logs in $LOG_DIR"

phase "apt install" apt_install
phase "start dockerd" bash sandbox/start_dockerd.sh
phase "base image (debootstrap)" bash sandbox/build_base.sh
phase "sandbox image" build_sandbox_image
phase "pip install -e .[test,charts,ray]" quiet pip-install python -m pip install -q -e '.[test,charts,ray]'
# pyenv finds new console scripts only after a rehash (`python -m pip` does not trigger one).
if command -v pyenv >/dev/null 2>&1; then pyenv rehash; fi
command -v repofix >/dev/null || { say "repofix is not on PATH after the install"; exit 1; }
