#!/usr/bin/env bash
# Desktop smoke test: run the real Wails binary under Xvfb, wait (with a
# deadline) until the frontend has reached Go (the app logs its first bound
# call), screenshot the window and check the picture is not blank.
set -euo pipefail
bin=${1:-build/bin/weald-desktop}
out=${WEALD_ARTIFACTS:-test-artifacts}
deadline=${WEALD_SMOKE_SECONDS:-90}
mkdir -p "$out"
[ -x "$bin" ] || { echo "desktop-smoke: $bin is not built (make build)"; exit 1; }
command -v Xvfb >/dev/null || { echo "desktop-smoke: Xvfb is missing (apt-get install xvfb)"; exit 1; }

work=$(mktemp -d)
disp=""
for n in $(seq 90 120); do
  if [ ! -e "/tmp/.X11-unix/X$n" ] && [ ! -e "/tmp/.X$n-lock" ]; then disp=":$n"; break; fi
done
[ -n "$disp" ] || { echo "desktop-smoke: no free X display"; exit 1; }

Xvfb "$disp" -screen 0 1280x820x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
xpid=$!
apid=""
cleanup() {
  [ -n "$apid" ] && kill "$apid" 2>/dev/null || true
  kill "$xpid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 1 50); do [ -e "/tmp/.X11-unix/X${disp#:}" ] && break; sleep 0.1; done

DISPLAY=$disp WEALD_HOME="$work/home" WEBKIT_DISABLE_COMPOSITING_MODE=1 \
  dbus-run-session -- "$bin" >"$work/app.log" 2>&1 &
apid=$!

ok=""
for _ in $(seq 1 $((deadline * 4))); do
  if grep -q "frontend connected: first bound call App.Status" "$work/app.log"; then ok=1; break; fi
  kill -0 "$apid" 2>/dev/null || break
  sleep 0.25
done
if [ -z "$ok" ]; then
  echo "desktop-smoke: FAIL: the frontend did not reach Go within ${deadline}s; app log:"
  cat "$work/app.log"
  exit 1
fi
sleep 2 # let the first frame paint after the call returned
DISPLAY=$disp import -window root "$out/desktop-shell.png"
colors=$(convert "$out/desktop-shell.png" -format %k info:)
if [ "$colors" -lt 16 ]; then
  echo "desktop-smoke: FAIL: the window looks blank ($colors colours in $out/desktop-shell.png)"
  exit 1
fi
echo "desktop-smoke: ok: frontend reached Go; screenshot $out/desktop-shell.png ($colors colours)"
