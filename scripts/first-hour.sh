#!/usr/bin/env bash
# The time from a fresh clone to the first `svc edge list`, as the README's "Two commands" section states it:
# clone, `npm ci`, `svc quickstart` until it is ready, `svc edge login`, `svc edge list edge-routers`.
# Usage: scripts/first-hour.sh [REPOSITORY] (default: this checkout, cloned at its HEAD). Needs the network for npm ci.
# Each phase is timed and printed, then the total; the clone is removed at the end (SVC_FIRST_HOUR_KEEP=1 keeps it).
# The controller runs in a network namespace of its own when `unshare -rn` works, so its ports (1280, 6262, 3022,
# 8081) never meet another controller on the machine; otherwise on the machine's loopback.
set -euo pipefail

source_repo=${1:-$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)}
base=$(mktemp -d "${TMPDIR:-/tmp}/svc-first-hour-XXXXXX")
cleanup() { [ "${SVC_FIRST_HOUR_KEEP:-0}" = 1 ] && echo "kept: $base" || rm -rf "$base"; }
trap cleanup EXIT
now() { date +%s.%N; }
phase() { awk -v a="$2" -v b="$3" -v n="$1" 'BEGIN { printf "%-36s %7.1f s\n", n, b - a }'; }

t0=$(now)
git clone --quiet "$source_repo" "$base/svc"
t1=$(now)
cd "$base/svc"
npm ci --no-audit --no-fund 2>&1 | tee "$base/npm-ci.log" | grep -E 'EBADENGINE|added|ERR' || true
t2=$(now)

export HOME="$base/home" SVC_ADMIN_PASSWORD='first-hour-password'
mkdir -p "$HOME"
export PATH="$PWD/bin:$PATH"
svc_cmd=svc
command -v svc >/dev/null || svc_cmd="node $PWD/bin/svc.js"   # before bin/svc exists

# The rest runs in its own network namespace when it can (see above); it prints three timestamps.
inner=$(cat <<EOF
set -euo pipefail
$svc_cmd quickstart > "$base/quickstart.log" 2>&1 &
qs=\$!
until grep -q 'Press Ctrl+C to stop' "$base/quickstart.log"; do kill -0 \$qs || { cat "$base/quickstart.log"; exit 1; }; sleep 0.1; done
date +%s.%N
$svc_cmd edge login https://127.0.0.1:1280 -u admin --ca "\$HOME/.svc/quickstart/pki/ca-bundle.pem" > /dev/null
date +%s.%N
$svc_cmd edge list edge-routers
date +%s.%N
kill -TERM \$qs; wait \$qs || true
EOF
)
if unshare -rn true 2>/dev/null; then
  out=$(unshare -rn bash -c "ip link set lo up && $inner")
else
  out=$(bash -c "$inner")
fi
echo "$out" | grep -v '^[0-9.]*$'
mapfile -t stamps < <(echo "$out" | grep -E '^[0-9]+\.[0-9]+$')

echo
phase 'git clone' "$t0" "$t1"
phase 'npm ci (builds dist/)' "$t1" "$t2"
phase 'svc quickstart, until ready' "$t2" "${stamps[0]}"
phase 'svc edge login' "${stamps[0]}" "${stamps[1]}"
phase 'svc edge list edge-routers' "${stamps[1]}" "${stamps[2]}"
phase 'fresh clone to first svc edge list' "$t0" "${stamps[2]}"
