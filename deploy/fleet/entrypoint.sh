#!/bin/sh
# Clone the shared remote once, then work its queue until stopped.
#   RGR_REMOTE_URL     the shared remote (https://..., ssh://..., or a mounted path)
#   RGR_GIT_USERNAME / RGR_GIT_PASSWORD   credentials for an https remote (a token as
#                      the password), given to git by a credential helper that reads
#                      them from the environment: they are written to no file and are
#                      not part of the remote's URL (which rgr prints and logs)
#   RGR_BASE_BRANCH    the branch jobs start from (default: main)
#   RGR_WORKERS        workers in this container (default: 1)
#   RGR_INTEGRATE      none | merge | pr (default: none)
#   RGR_LEASE / RGR_POLL   rgr daemon's --lease (default 120) and --poll (default 2)
#   RGR_GRACE          rgr daemon's --grace (default 20): seconds a phase may still run
#                      after SIGTERM before its job is handed back; keep it about 10 s
#                      below the engine's grace period (Kubernetes: 30 s by default)
#   GIT_AUTHOR_NAME / GIT_AUTHOR_EMAIL   the identity of the agents' commits
#   ANTHROPIC_API_KEY  the agents' key; git credentials via the variables above,
#                      GIT_ASKPASS or an ssh key
#   RGR_DAEMON_HOST    this worker's name in claims, for people (default: the
#                      container's hostname; workers sharing one are told apart by the
#                      random instance id each daemon draws at start)
set -eu
: "${RGR_REMOTE_URL:?set RGR_REMOTE_URL to the shared git remote}"
if [ -n "${RGR_GIT_USERNAME:-}${RGR_GIT_PASSWORD:-}" ]; then
  # Every git process here, rgr's and the job clones', sees this helper (GIT_CONFIG_*
  # is inherited); the shell function reads the variables when git asks.
  export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=credential.helper
  # shellcheck disable=SC2016  # expanded by git's shell, when git asks
  export GIT_CONFIG_VALUE_0='!f() { test "$1" = get || exit 0; echo "username=${RGR_GIT_USERNAME:-rgr}"; echo "password=${RGR_GIT_PASSWORD:-}"; }; f'
fi
repo="$HOME/work"
if [ ! -d "$repo/.git" ]; then
  git clone --origin hub --branch "${RGR_BASE_BRANCH:-main}" "$RGR_REMOTE_URL" "$repo"
fi
cd "$repo"
git config user.name "${GIT_AUTHOR_NAME:-rgr worker}"
git config user.email "${GIT_AUTHOR_EMAIL:-rgr@localhost}"
# On `docker stop` (SIGTERM) the phase under way finishes within RGR_GRACE seconds, or
# its job is handed back at its last phase boundary: jobs stay resumable.
exec rgr daemon --remote hub --watch --workers "${RGR_WORKERS:-1}" \
  --integrate "${RGR_INTEGRATE:-none}" --lease "${RGR_LEASE:-120}" --poll "${RGR_POLL:-2}" \
  --grace "${RGR_GRACE:-20}"
