#!/usr/bin/env bash
# The real Wails window under Xvfb reaching the ready state of issue 6:
# a workspace is created and provisioned on a real weald-relay with the CLI
# (same data-directory layout as the app), then the desktop binary is started
# on that data directory; the test waits (with a deadline) for the app's log
# line "frontend ready: #general … shown with Send enabled" and screenshots
# the window.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build/bin/weald-desktop}
out=${WEALD_ARTIFACTS:-test-artifacts}
deadline=${WEALD_SMOKE_SECONDS:-90}
mkdir -p "$out"
[ -x "$bin" ] || { echo "desktop-ready: $bin is not built (make build)"; exit 1; }
go build -o build/bin/weald-relay ./backend/cmd/weald-relay
go build -o build/bin/weald ./backend/cmd/weald

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The log exists before the poll below reads it: the background job opens
# it only once it runs, and a sed on a missing file would end the script
# (set -e) before the relay had a chance to start.
: >"$work/relay.log"
build/bin/weald-relay -listen 127.0.0.1:0 -data-dir "$work/relay" >"$work/relay.log" 2>&1 &
pids+=($!)
addr=""
for _ in $(seq 1 100); do
  addr=$(sed -n 's/.*listening on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$work/relay.log" | head -1)
  [ -n "$addr" ] && break
  sleep 0.1
done
[ -n "$addr" ] || { echo "desktop-ready: the relay did not start"; cat "$work/relay.log"; exit 1; }
home="$work/home"
cli() { timeout 60 build/bin/weald --home "$home" "$@"; }
cli init --name Dana >/dev/null
json=$(cli --json workspace create Acme --relay "ws://$addr/v1/ws" || true)
ws=$(printf '%s' "$json" | sed -n 's/.*"workspace": *"\([0-9a-f]\{64\}\)".*/\1/p' | head -1)
gen=$(printf '%s' "$json" | sed -n 's/.*"genesis_key": *"\([0-9a-f]\{64\}\)".*/\1/p' | head -1)
[ -n "$ws" ] && [ -n "$gen" ] || { echo "desktop-ready: workspace create said: $json"; exit 1; }
build/bin/weald-relay provision -workspace "$ws" -genesis "$gen" -data-dir "$work/relay" >/dev/null
cli --json sync | grep -q '"ready": true' || { echo "desktop-ready: the workspace did not become ready"; exit 1; }

disp=""
for n in $(seq 121 150); do
  if [ ! -e "/tmp/.X11-unix/X$n" ] && [ ! -e "/tmp/.X$n-lock" ]; then disp=":$n"; break; fi
done
[ -n "$disp" ] || { echo "desktop-ready: no free X display"; exit 1; }
Xvfb "$disp" -screen 0 1280x820x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do [ -e "/tmp/.X11-unix/X${disp#:}" ] && break; sleep 0.1; done

DISPLAY=$disp WEALD_HOME="$home" WEBKIT_DISABLE_COMPOSITING_MODE=1 dbus-run-session -- "$bin" >"$work/app.log" 2>&1 &
apid=$!
pids+=($apid)
ok=""
for _ in $(seq 1 $((deadline * 4))); do
  if grep -q "frontend ready: #general of workspace $ws shown with Send enabled" "$work/app.log"; then ok=1; break; fi
  kill -0 "$apid" 2>/dev/null || break
  sleep 0.25
done
if [ -z "$ok" ]; then
  echo "desktop-ready: FAIL: the window did not reach the ready state within ${deadline}s; app log:"
  cat "$work/app.log"
  exit 1
fi
sleep 2
DISPLAY=$disp import -window root "$out/desktop-ready.png"
colors=$(convert "$out/desktop-ready.png" -format %k info:)
[ "$colors" -ge 16 ] || { echo "desktop-ready: FAIL: the window looks blank ($colors colours)"; exit 1; }
echo "desktop-ready: ok: #general of $ws ready with Send enabled in the real window; screenshot $out/desktop-ready.png ($colors colours)"
