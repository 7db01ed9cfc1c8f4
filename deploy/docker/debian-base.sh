#!/usr/bin/env bash
# Build a local Debian bookworm image with Python 3.11, without any image registry.
#
# debootstrap (from Debian's packages) makes a minimal root file system,
# `docker import` turns it into an image. It is the base of `make image`
# (BASE_IMAGE) and of the offline PostgreSQL and Redis images, on machines
# that reach Debian's package archive but no image registry. Trimmed like the
# official slim images: no apt lists, documentation, manual pages or locales.
#
# Usage: deploy/docker/debian-base.sh [IMAGE]   (default schedlab/debian:bookworm)
# Environment: DEBIAN_MIRROR (default: debootstrap's own), REBUILD=1 to rebuild.
set -euo pipefail

image=${1:-schedlab/debian:bookworm}
if [[ -z ${REBUILD:-} ]] && docker image inspect "$image" >/dev/null 2>&1; then
    echo "debian-base: $image exists (REBUILD=1 to rebuild it)"
    exit 0
fi
if ! command -v debootstrap >/dev/null; then
    if [[ $(id -u) -ne 0 ]]; then
        echo "debian-base: debootstrap is missing (apt-get install debootstrap)" >&2
        exit 2
    fi
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
fi
if [[ $(id -u) -ne 0 ]]; then
    echo "debian-base: debootstrap needs root" >&2
    exit 2
fi

root=$(mktemp -d /var/tmp/schedlab-rootfs.XXXXXX)
cleanup() {
    # debootstrap mounts /proc and /sys inside the tree; never delete through a mount.
    for mnt in proc sys dev/pts; do
        mountpoint -q "$root/$mnt" && umount -l "$root/$mnt"
    done
    rm -rf --one-file-system "$root"
}
trap cleanup EXIT

start=$SECONDS
echo "debian-base: debootstrap bookworm into $root"
# shellcheck disable=SC2086  # DEBIAN_MIRROR is one optional word
debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
    bookworm "$root" ${DEBIAN_MIRROR:-} >"$root.log" 2>&1 || {
    tail -20 "$root.log" >&2
    exit 1
}
rm -f "$root.log"

# Later `apt-get install`s in images built on this base skip these paths too.
cat >"$root/etc/dpkg/dpkg.cfg.d/schedlab-slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/lintian/*
CFG
cat >"$root/etc/apt/apt.conf.d/schedlab-slim" <<'CFG'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Languages "none";
CFG
chroot "$root" apt-get clean
find "$root/usr/share/doc" -mindepth 2 ! -name copyright ! -type d -delete
find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$root"/usr/share/{man,info,lintian}/* "$root"/var/lib/apt/lists/* "$root"/var/log/*.log
find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +

tar -C "$root" --numeric-owner --exclude=./proc/* --exclude=./sys/* --exclude=./dev/* -c . |
    docker import \
        --change 'ENV LANG=C.UTF-8' \
        --change 'CMD ["/bin/bash"]' \
        --message "debootstrap --variant=minbase bookworm + python3" \
        - "$image" >/dev/null
echo "debian-base: $image built in $((SECONDS - start)) s ($(docker image inspect -f '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1/1e6}'))"
