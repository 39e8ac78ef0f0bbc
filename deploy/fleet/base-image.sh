#!/bin/sh
# The worker image's base when no registry serves one: a minimal Debian made with
# debootstrap from the OS package mirror this machine already uses, imported into
# podman. Built once per machine: an existing image is kept (RGR_REBUILD_BASE=1 builds
# it again).
#
#   sh deploy/fleet/base-image.sh            # -> localhost/rgr-base:bookworm
#
#   RGR_BASE_IMAGE   the image name (default: localhost/rgr-base:bookworm)
#   DEBIAN_SUITE     the release (default: bookworm)
#   DEBIAN_MIRROR    the mirror (default: the first one /etc/apt/sources.list* names for
#                    that release)
#   PODMAN           the podman command (default: podman)
#
# Needs root (debootstrap) and `apt-get install debootstrap podman`. Where a registry
# is reachable, skip this and build the worker on any Debian-based image instead
# (`--build-arg BASE=debian:bookworm-slim`): the Dockerfile installs what it needs.
set -eu
image="${RGR_BASE_IMAGE:-localhost/rgr-base:bookworm}"
suite="${DEBIAN_SUITE:-bookworm}"
podman="${PODMAN:-podman}"

if [ "${RGR_REBUILD_BASE:-0}" != 1 ] && $podman image exists "$image"; then
  echo "base image $image: already built"
  exit 0
fi

mirror_of() {
  # The URI of the first source that serves $1 (the deb822 .sources format, then
  # one-line `deb URI suite ...` entries).
  for file in /etc/apt/sources.list.d/*.sources; do
    [ -f "$file" ] || continue
    awk -v suite="$1" '
      /^[[:space:]]*$/ { if (uri != "" && has) { print uri; exit } uri = ""; has = 0; next }
      /^URIs:/ { uri = $2 }
      /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) has = 1 }
      END { if (uri != "" && has) print uri }' "$file" | head -n 1
  done
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$file" ] || continue
    awk -v suite="$1" '$1 == "deb" {
        i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
        if ($(i + 1) == suite) { print $i; exit } }' "$file"
  done
}

mirror="${DEBIAN_MIRROR:-$(mirror_of "$suite" | head -n 1)}"
if [ -z "$mirror" ]; then
  echo "base-image.sh: no apt source for $suite on this machine: set DEBIAN_MIRROR" >&2
  exit 1
fi
command -v debootstrap >/dev/null || {
  echo "base-image.sh: debootstrap is not installed: apt-get install debootstrap" >&2
  exit 1
}

# What a worker runs, all OS packages: git, Python (rgr's venv; the kata's pytest), the
# sandbox, certificates and ssh for a remote over https or ssh, and tini as PID 1 (it
# forwards `podman stop`'s SIGTERM to the daemon and reaps orphaned processes).
packages="ca-certificates,git,openssh-client,python3,python3-venv,python3-pytest,bubblewrap,tini"

root="$(mktemp -d /var/tmp/rgr-base.XXXXXX)"
trap 'rm -rf "$root"' EXIT
echo "base image $image: debootstrap $suite from $mirror"
debootstrap --variant=minbase --include="$packages" "$suite" "$root" "$mirror"
# apt inside the image uses the same mirror; no package lists or caches are kept.
printf 'deb %s %s main\n' "$mirror" "$suite" > "$root/etc/apt/sources.list"
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin \
  "$root"/var/cache/apt/archives/*.deb
tar --numeric-owner -C "$root" -c . \
  | $podman import --change 'CMD ["/bin/bash"]' --change 'ENV LANG=C.UTF-8' - "$image"
echo "base image $image: built"
