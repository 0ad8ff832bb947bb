#!/usr/bin/env bash
# Build the sandbox's base image (repofix-base:bookworm) without any image registry:
# debootstrap a minimal Debian into a directory, tar it, `docker import` the tar.
# Another Debian release gives another Python (bullseye 3.9, bookworm 3.11, trixie 3.13): the
# evaluation harness builds those on first need with REPOFIX_DEBIAN_SUITE=<release>, tagged
# repofix-base:<release>.
#
# Idempotent and cached:
#   - if the image exists and was built from the same key, nothing is done;
#   - the rootfs tarball is kept in $REPOFIX_CACHE_DIR (default /var/cache/repofix), named by a hash
#     of everything that goes into it (suite, variant, architecture, package list, extra CA
#     certificates), so a second build on the same machine only re-imports it.
#
# Extra CA certificates: hosts behind a TLS-intercepting proxy trust it through certificates in
# /usr/local/share/ca-certificates; those are public certificates, copied into the image so that
# `pip install` in `docker build` works there too. REPOFIX_EXTRA_CA_DIR= (empty) disables this.
#
# Usage: sandbox/build_base.sh [--force]
# Environment: REPOFIX_DEBIAN_SUITE (default bookworm), REPOFIX_BASE_IMAGE (default
# repofix-base:<suite>), REPOFIX_DEBIAN_MIRROR (default: the mirror apt uses on this host for that
# release, else deb.debian.org), REPOFIX_CACHE_DIR, REPOFIX_EXTRA_CA_DIR.
set -euo pipefail

SUITE="${REPOFIX_DEBIAN_SUITE:-bookworm}"
case "$SUITE" in *[!a-z]*|"") echo "REPOFIX_DEBIAN_SUITE must be a Debian release name, not '$SUITE'" >&2; exit 2;; esac
IMAGE="${REPOFIX_BASE_IMAGE:-repofix-base:$SUITE}"
VARIANT=minbase
CACHE_DIR="${REPOFIX_CACHE_DIR:-/var/cache/repofix}"
EXTRA_CA_DIR="${REPOFIX_EXTRA_CA_DIR-/usr/local/share/ca-certificates}"
# bash, coreutils, tar, findutils come with minbase (Essential); listed anyway so the key says it all.
PACKAGES=(bash coreutils findutils tar procps ca-certificates git make python3 python3-venv)
# Bump when the recipe below changes in a way the inputs above do not show.
RECIPE=2

FORCE=0
[ "${1:-}" = "--force" ] && FORCE=1

say() { echo "[build_base $(date -u +%H:%M:%S)] $*" >&2; }
die() { say "ERROR: $*"; exit 1; }

# The first Debian mirror apt uses here for the main archive (deb822 .sources or one-line .list).
detect_mirror() {
    local f uri
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        uri="$(awk 'BEGIN{IGNORECASE=1} /^URIs:/ {for (i=2;i<=NF;i++) if ($i !~ /security/) {print $i; exit}}' "$f")"
        if [ -n "$uri" ] && grep -qiE "^Suites:.*\b${SUITE}\b" "$f"; then echo "$uri"; return; fi
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -r "$f" ] || continue
        uri="$(awk -v s="$SUITE" '$1=="deb" && $0 !~ /security/ {for (i=2;i<NF;i++) if ($i !~ /^\[/ && $(i+1)==s) {print $i; exit}}' "$f")"
        if [ -n "$uri" ]; then echo "$uri"; return; fi
    done
    echo "http://deb.debian.org/debian"
}

command -v docker >/dev/null || die "docker client not installed"
docker info >/dev/null 2>&1 || die "no Docker engine answers (run sandbox/start_dockerd.sh)"

arch="$(dpkg --print-architecture 2>/dev/null || uname -m)"
ca_hash="none"
ca_files=()
if [ -n "$EXTRA_CA_DIR" ] && [ -d "$EXTRA_CA_DIR" ]; then
    mapfile -t ca_files < <(find "$EXTRA_CA_DIR" -type f -name '*.crt' | LC_ALL=C sort)
    if [ "${#ca_files[@]}" -gt 0 ]; then
        ca_hash="$(cat "${ca_files[@]}" | sha256sum | cut -c1-16)"
    fi
fi
key="$(printf '%s\n' "recipe=$RECIPE" "suite=$SUITE" "variant=$VARIANT" "arch=$arch" "ca=$ca_hash" "${PACKAGES[@]}" \
       | sha256sum | cut -c1-16)"

if [ "$FORCE" = 0 ] && docker image inspect "$IMAGE" >/dev/null 2>&1; then
    have="$(docker image inspect --format '{{index .Config.Labels "org.repofix.base.key"}}' "$IMAGE" 2>/dev/null || true)"
    if [ "$have" = "$key" ]; then
        say "$IMAGE already exists (key $key); nothing to do"
        exit 0
    fi
    say "$IMAGE exists but was built from key '${have:-?}', want $key; rebuilding"
fi

mkdir -p "$CACHE_DIR"
exec 9>"$CACHE_DIR/.build_base-$SUITE.lock"
flock 9  # two builds at once would debootstrap twice into the same cache

tarball="$CACHE_DIR/rootfs-$SUITE-$arch-$key.tar"
if [ -s "$tarball" ]; then
    say "using cached rootfs $tarball ($(du -h "$tarball" | cut -f1))"
else
    command -v debootstrap >/dev/null || die "debootstrap not installed (apt-get install debootstrap)"
    mirror="${REPOFIX_DEBIAN_MIRROR:-$(detect_mirror)}"
    rootfs="$(mktemp -d "$CACHE_DIR/rootfs-$SUITE.XXXXXX")"
    # dpkg fsyncs every file it unpacks; on a busy VM disk that is most of debootstrap's time.
    # On a tmpfs fsync costs nothing (the tree is ~300 MB, and only lives until it is tarred).
    if mount -t tmpfs -o size=2g,mode=0755 repofix-rootfs "$rootfs" 2>/dev/null; then
        say "building the rootfs on a tmpfs"
    fi
    trap 'umount "$rootfs" 2>/dev/null || true; rm -rf --one-file-system "$rootfs" "$tarball.partial"' EXIT
    include="$(IFS=,; echo "${PACKAGES[*]}")"
    say "debootstrap --variant=$VARIANT --include=$include $SUITE from $mirror"
    t0=$SECONDS
    # --cache-dir keeps the .debs: after a change of the package list only the difference is fetched.
    mkdir -p "$CACHE_DIR/debs"
    if ! debootstrap --variant="$VARIANT" --include="$include" --cache-dir="$CACHE_DIR/debs" \
            "$SUITE" "$rootfs" "$mirror" \
            >"$CACHE_DIR/debootstrap-$SUITE.log" 2>&1; then
        tail -n 30 "$CACHE_DIR/debootstrap-$SUITE.log" >&2
        die "debootstrap failed (full log: $CACHE_DIR/debootstrap-$SUITE.log)"
    fi
    say "debootstrap done in $((SECONDS - t0))s"

    if [ "${#ca_files[@]}" -gt 0 ]; then
        say "adding ${#ca_files[@]} extra CA certificate(s) from $EXTRA_CA_DIR"
        mkdir -p "$rootfs/usr/local/share/ca-certificates/host"
        cp "${ca_files[@]}" "$rootfs/usr/local/share/ca-certificates/host/"
        chroot "$rootfs" update-ca-certificates >/dev/null 2>&1 || die "update-ca-certificates failed in the rootfs"
    fi

    # Keep it small and free of this host's details.
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/lib/apt/lists/* \
           "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
           "$rootfs"/var/log/* "$rootfs"/tmp/* "$rootfs"/root/.cache
    find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name 'locale.alias' -exec rm -rf {} +
    : >"$rootfs/etc/resolv.conf"
    : >"$rootfs/etc/machine-id"
    echo sandbox >"$rootfs/etc/hostname"

    t0=$SECONDS
    tar --numeric-owner --xattrs -C "$rootfs" -cf "$tarball.partial" .
    mv "$tarball.partial" "$tarball"   # write-then-rename: a crash never leaves a half tarball as cache
    umount "$rootfs" 2>/dev/null || true
    rm -rf --one-file-system "$rootfs"
    trap - EXIT
    say "rootfs tarball $tarball ($(du -h "$tarball" | cut -f1)) in $((SECONDS - t0))s"
    # Older tarballs of this release with other keys are dead weight (other releases' are not).
    find "$CACHE_DIR" -maxdepth 1 -name "rootfs-$SUITE-*.tar" ! -name "$(basename "$tarball")" -delete
fi

old_id="$(docker image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)"
say "docker import -> $IMAGE"
t0=$SECONDS
docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["/bin/bash"]' \
    --change "LABEL org.repofix.image=base org.repofix.base.key=$key org.repofix.base.suite=$SUITE" \
    --message "repofix base: debootstrap $VARIANT $SUITE ($key)" \
    "$tarball" "$IMAGE" >/dev/null
say "imported $IMAGE in $((SECONDS - t0))s ($(docker image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1/1e6}'))"
if [ -n "$old_id" ] && [ "$old_id" != "$(docker image inspect --format '{{.Id}}' "$IMAGE")" ]; then
    # The replaced image is untagged now; it stays only while images built on it still exist.
    docker rmi "$old_id" >/dev/null 2>&1 || true
fi
