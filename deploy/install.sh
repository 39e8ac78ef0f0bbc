#!/bin/sh
# rgr's first command, from a clone of its repository: `sh deploy/install.sh`.
#
# On Debian 12 and 13 and Ubuntu 24.04, as root (no sudo needed) or as a user with sudo:
# installs what is missing from the OS packages (git, Python 3.11+ with venv, Node.js and
# npm, bubblewrap, pipx where the system Python is "externally managed" (PEP 668)), then
# Claude Code at the release rgr pins and rgr itself (pipx, from this clone, with the demo
# and web extras, so `rgr serve` works on the first try) under ~/.local, and runs
# `rgr demo`. Running it again updates rgr from the clone and installs nothing twice.
#
#   RGR_INSTALL_NO_DEMO=1   install only; do not run `rgr demo`
#
# Elsewhere (macOS, other distributions) it says what to install by hand and stops:
# docs/install.md.
set -eu

say() { printf 'install.sh: %s\n' "$*"; }
die() { printf 'install.sh: error: %s\n' "$*" >&2; exit 1; }

clone="$(cd "$(dirname "$0")/.." && pwd)"
[ -f "$clone/pyproject.toml" ] && [ -f "$clone/rgr/backends/claude_release.py" ] ||
  die "run this from a clone of rgr's repository: sh deploy/install.sh"
# The pinned Claude Code release: named once, in rgr/backends/claude_release.py.
claude_version="$(sed -n 's/^PINNED = "\(.*\)"$/\1/p' "$clone/rgr/backends/claude_release.py")"
[ -n "$claude_version" ] || die "cannot read PINNED from rgr/backends/claude_release.py"

if [ "$(uname -s)" != Linux ]; then
  die "this script installs from Debian's and Ubuntu's packages; on $(uname -s) install \
Node.js, Python 3.11+ and pipx yourself (macOS: brew install node python pipx), then: \
npm install -g --prefix ~/.local @anthropic-ai/claude-code@$claude_version && \
pipx install '$clone[demo,web]' && ~/.local/bin/rgr demo (docs/install.md says what rgr \
does without bubblewrap)"
fi

# Root runs apt-get itself (a root shell in a container has no sudo); a user needs sudo.
if [ "$(id -u)" = 0 ]; then
  as_root=""
elif command -v sudo >/dev/null 2>&1; then
  as_root="sudo"
else
  as_root="-"
fi

python_ok() {
  command -v python3 >/dev/null 2>&1 &&
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null
}

# PEP 668: a system Python marked "externally managed" refuses `pip install --user`;
# pipx then comes from the OS packages.
externally_managed() {
  python3 -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'
}

node_major() {
  node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0
}

# What the OS must provide, as Debian/Ubuntu package names.
packages=""
need() { packages="$packages $1"; }
command -v git >/dev/null 2>&1 || need git
python_ok || need python3
# venv with ensurepip: pipx makes a virtualenv per application.
{ python_ok && python3 -c 'import ensurepip, venv' 2>/dev/null; } || need python3-venv
command -v bwrap >/dev/null 2>&1 || need bubblewrap
[ -f /etc/ssl/certs/ca-certificates.crt ] || need ca-certificates
if ! command -v npm >/dev/null 2>&1 || [ "$(node_major)" -lt 18 ]; then
  need nodejs
  need npm
fi
pipx_from=""
if command -v pipx >/dev/null 2>&1; then
  pipx_from="path"
elif ! python_ok || externally_managed; then
  pipx_from="apt"
  need pipx
else
  pipx_from="pip"
  python3 -m pip --version >/dev/null 2>&1 || need python3-pip
fi

if [ -n "$packages" ]; then
  command -v apt-get >/dev/null 2>&1 ||
    die "no apt-get here: install$packages with this system's package manager, then run this again"
  [ "$as_root" != "-" ] ||
    die "installing$packages needs root: run this as root or with sudo installed, or have an administrator run: apt-get install$packages"
  say "installing from the OS packages:$packages"
  # shellcheck disable=SC2086  # $as_root is empty or "sudo"; $packages is a word list
  $as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  # shellcheck disable=SC2086
  $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $packages
fi

python_ok || die "rgr needs Python 3.11 or later; python3 is $(python3 --version 2>&1)"
[ "$(node_major)" -ge 18 ] || die "Claude Code needs Node.js 18 or later; node is $(node --version 2>&1)"

if [ "$pipx_from" = pip ]; then
  say "python3 -m pip install --user pipx"
  python3 -m pip install --user -q pipx
  pipx="python3 -m pipx"
else
  pipx="pipx"
fi

mkdir -p "$HOME/.local/bin"
claude="$HOME/.local/bin/claude"
if [ -x "$claude" ] && "$claude" --version 2>/dev/null | grep -q "^$claude_version "; then
  say "Claude Code $claude_version: already in ~/.local/bin"
else
  say "npm install -g --prefix ~/.local @anthropic-ai/claude-code@$claude_version"
  npm install -g --prefix "$HOME/.local" --no-audit --no-fund \
    "@anthropic-ai/claude-code@$claude_version"
fi

say "$pipx install --force '$clone[demo,web]'"
# --force: run again, it installs the clone as it is now.
$pipx install --force "$clone[demo,web]"
rgr="$HOME/.local/bin/rgr"
[ -x "$rgr" ] || die "pipx installed rgr, but not into ~/.local/bin (PIPX_BIN_DIR is set?): run rgr from where pipx says"

# bubblewrap can be installed and still refused: Ubuntu 24.04 restricts unprivileged
# user namespaces with AppArmor, and a container's runtime may mask /proc. rgr's own
# probe names the cause and the fix; say it here, before the demo meets it.
if ! refused="$(bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent true 2>&1)"; then
  say "warning: bubblewrap is installed but cannot create a sandbox here: $refused"
  if [ -f /proc/sys/kernel/apparmor_restrict_unprivileged_userns ] &&
     [ "$(cat /proc/sys/kernel/apparmor_restrict_unprivileged_userns)" = 1 ]; then
    say "AppArmor restricts user namespaces (Ubuntu 24.04): allow bwrap with a profile:"
    say "  printf 'abi <abi/4.0>,\\ninclude <tunables/global>\\nprofile bwrap /usr/bin/bwrap flags=(unconfined) {\\n  userns,\\n}\\n' | sudo tee /etc/apparmor.d/bwrap && sudo systemctl reload apparmor"
  fi
  case "$refused" in
    *"Can't mount proc"*) say "a container whose runtime masks /proc: run it with podman --security-opt 'unmask=/proc/*' or docker --security-opt systempaths=unconfined" ;;
  esac
  say "rgr refuses to run agents unconfined unless told (--no-sandbox), so the demo will stop; \`$rgr doctor\` in a repository names the cause"
fi

case ":$PATH:" in
  *":$HOME/.local/bin:"*) ;;
  *) say "note: ~/.local/bin is not on PATH: run $pipx ensurepath (then open a new shell), or call $rgr" ;;
esac

if [ "${RGR_INSTALL_NO_DEMO:-0}" = 1 ]; then
  say "installed: $rgr ($("$rgr" --version 2>&1)), Claude Code $claude_version"
  exit 0
fi
say "$rgr demo"
exec "$rgr" demo --claude "$claude"
