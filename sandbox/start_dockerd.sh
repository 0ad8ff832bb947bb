#!/usr/bin/env bash
# Start a Docker engine if none answers, and wait until it does.
#
# Meant for CI and bare VMs without systemd (Debian's docker.io package installed, engine not running).
# Idempotent: does nothing when `docker info` already works.
#
# Why the flags:
#   --mtu      the bridge defaults to 1500; on VMs whose uplink has a smaller MTU (1400 here) large
#              packets from containers (TLS handshakes to PyPI) are silently dropped. Copy the uplink's.
#   iptables   docker needs a working `iptables` for the bridge's NAT; when the nft-backed one does
#              not work in this kernel but the legacy one does, switch the alternative to legacy.
# Environment: DOCKERD_LOG (default /var/log/dockerd.log), DOCKERD_WAIT (seconds, default 60),
#              DOCKERD_MTU (auto = the uplink's when below 1500; a number; 0 = docker's default),
#              DOCKERD_EXTRA_ARGS (appended to dockerd's command line).
set -euo pipefail

LOG="${DOCKERD_LOG:-/var/log/dockerd.log}"
WAIT="${DOCKERD_WAIT:-60}"

say() { echo "[start_dockerd] $*" >&2; }

if docker info >/dev/null 2>&1; then
    say "engine already answers; nothing to do"
    exit 0
fi

command -v dockerd >/dev/null || { say "ERROR: dockerd not installed (apt-get install docker.io)"; exit 1; }
[ "$(id -u)" = 0 ] || { say "ERROR: must run as root to start dockerd"; exit 1; }

# iptables: prefer whatever works; the bridge network (and so `pip install` in `docker build`) needs NAT.
if ! iptables -t nat -L -n >/dev/null 2>&1; then
    if command -v iptables-legacy >/dev/null && iptables-legacy -t nat -L -n >/dev/null 2>&1; then
        say "iptables (nft) unusable here; switching to iptables-legacy"
        update-alternatives --set iptables /usr/sbin/iptables-legacy >/dev/null
        update-alternatives --set ip6tables /usr/sbin/ip6tables-legacy >/dev/null 2>&1 || true
    else
        say "ERROR: neither iptables-nft nor iptables-legacy works; the bridge network cannot get NAT"
        exit 1
    fi
fi

args=(--host unix:///var/run/docker.sock)

mtu="${DOCKERD_MTU:-auto}"
if [ "$mtu" = auto ]; then
    mtu=""
    uplink="$(ip -o route show default 2>/dev/null | awk '{for (i=1;i<NF;i++) if ($i=="dev") {print $(i+1); exit}}')"
    if [ -n "$uplink" ] && [ -r "/sys/class/net/$uplink/mtu" ] && [ "$(cat "/sys/class/net/$uplink/mtu")" -lt 1500 ]; then
        mtu="$(cat "/sys/class/net/$uplink/mtu")"
        say "uplink $uplink has MTU $mtu; using it for the bridge"
    fi
fi
if [ -n "$mtu" ] && [ "$mtu" != 0 ]; then
    args+=(--mtu "$mtu")
fi

# A stale pid file from a killed engine makes dockerd refuse to start.
for pidfile in /var/run/docker.pid /run/docker/containerd/containerd.pid; do
    if [ -f "$pidfile" ] && ! kill -0 "$(cat "$pidfile" 2>/dev/null)" 2>/dev/null; then
        say "removing stale $pidfile"
        rm -f "$pidfile"
    fi
done

# shellcheck disable=SC2206
extra=(${DOCKERD_EXTRA_ARGS:-})
mkdir -p "$(dirname "$LOG")"
say "starting: dockerd ${args[*]} ${extra[*]:-} (log: $LOG)"
# setsid + nohup: the engine must outlive this script and the CI step that ran it.
setsid nohup dockerd "${args[@]}" "${extra[@]}" >>"$LOG" 2>&1 </dev/null &
dpid=$!

start=$SECONDS
until docker info >/dev/null 2>&1; do
    if ! kill -0 "$dpid" 2>/dev/null; then
        say "ERROR: dockerd exited during start-up; last lines of $LOG:"
        tail -n 40 "$LOG" >&2
        exit 1
    fi
    if [ $((SECONDS - start)) -ge "$WAIT" ]; then
        say "ERROR: dockerd did not answer within ${WAIT}s; last lines of $LOG:"
        tail -n 40 "$LOG" >&2
        exit 1
    fi
    sleep 0.5
done
say "engine up after $((SECONDS - start))s (pid $dpid): $(docker version --format 'server {{.Server.Version}}, API {{.Server.APIVersion}}' 2>/dev/null)"
