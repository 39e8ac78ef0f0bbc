#!/bin/sh
# Clone the shared remote once, then work its queue until stopped.
#   RGR_REMOTE_URL     the shared remote (https://..., ssh://..., or a mounted path)
#   RGR_BASE_BRANCH    the branch jobs start from (default: main)
#   RGR_WORKERS        workers in this container (default: 1)
#   RGR_INTEGRATE      none | merge | pr (default: none)
#   GIT_AUTHOR_NAME / GIT_AUTHOR_EMAIL   the identity of the agents' commits
#   ANTHROPIC_API_KEY  the agents' key; git credentials via GIT_ASKPASS or an ssh key
#   RGR_DAEMON_HOST    this worker's name in claims (default: the container's hostname)
set -eu
: "${RGR_REMOTE_URL:?set RGR_REMOTE_URL to the shared git remote}"
repo="$HOME/work"
if [ ! -d "$repo/.git" ]; then
  git clone --origin hub --branch "${RGR_BASE_BRANCH:-main}" "$RGR_REMOTE_URL" "$repo"
fi
cd "$repo"
git config user.name "${GIT_AUTHOR_NAME:-rgr worker}"
git config user.email "${GIT_AUTHOR_EMAIL:-rgr@localhost}"
# Stop at the next phase boundary on `docker stop` (SIGTERM): jobs stay resumable.
exec rgr daemon --remote hub --watch --workers "${RGR_WORKERS:-1}" \
  --integrate "${RGR_INTEGRATE:-none}" --lease "${RGR_LEASE:-120}"
