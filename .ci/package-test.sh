#!/usr/bin/env bash
# The packages as a user gets them (issue 15): make package, lintian on both
# .debs (errors fail; the warnings left are justified in docs/packaging.md),
# install them with apt, start the installed app from /usr/bin under Xvfb
# until its first screen (screenshot), open a weald:// invite link through
# the installed desktop entry until the join screen has it, then a second
# link while that app runs (handed to its window, no second app), check the
# relay's user and binary, then purge both and check nothing is left.
# Runs as root (CI); every wait has a deadline.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${WEALD_ARTIFACTS:-test-artifacts}
deadline=${WEALD_SMOKE_SECONDS:-90}
mkdir -p "$out"
# say prints a line with the seconds since the test began.
say() { echo "package-test [${SECONDS}s]: $*"; }
[ "$(id -u)" -eq 0 ] || { say "needs root (apt-get install)"; exit 1; }

make --no-print-directory package >/dev/null
app_deb=$(ls -t build/bin/weald_*.deb | head -1)
relay_deb=$(ls -t build/bin/weald-relay_*.deb | head -1)
say "built $app_deb ($(du -k "$app_deb" | cut -f1) KiB), $relay_deb ($(du -k "$relay_deb" | cut -f1) KiB)"

lintian --fail-on error --tag-display-limit 0 "$app_deb" "$relay_deb" | tee "$out/lintian.txt"
say "lintian: $(grep -c '^E:' "$out/lintian.txt" || true) errors, $(grep -c '^W:' "$out/lintian.txt" || true) warnings (docs/packaging.md)"

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq weald weald-relay >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq "./$app_deb" "./$relay_deb" >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; exit 1; }
for f in /usr/bin/weald-desktop /usr/bin/weald /usr/bin/weald-relay /usr/share/applications/weald.desktop \
  /usr/share/icons/hicolor/48x48/apps/weald.png /usr/share/icons/hicolor/scalable/apps/weald.svg \
  /lib/systemd/system/weald-relay.service /etc/default/weald-relay /usr/share/man/man1/weald-desktop.1.gz \
  /usr/share/man/man1/weald.1.gz /usr/share/man/man1/weald-workspace-create.1.gz /usr/share/man/man1/weald-relay.1.gz; do
  [ -e "$f" ] || { say "FAIL: $f is not installed"; exit 1; }
done
/usr/bin/weald-desktop --version
/usr/bin/weald --version
/usr/bin/weald-relay --version
getent passwd weald-relay >/dev/null || { say "FAIL: no weald-relay user"; exit 1; }
say "manual pages installed: $(dpkg -L weald weald-relay | grep -c '^/usr/share/man/man1/.*\.1\.gz$')"

# The relay as its unit runs it: its own user, the settings file.
mkdir -p "$work/relay" && chown weald-relay:weald-relay "$work/relay" && chmod 0700 "$work"/relay && chmod 0755 "$work"
(set -a; . /etc/default/weald-relay; set +a; WEALD_RELAY_DATA_DIR="$work/relay" WEALD_RELAY_LISTEN=127.0.0.1:0 \
  exec runuser -u weald-relay -- /usr/bin/weald-relay) >"$work/relay.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do grep -q "listening on" "$work/relay.log" && break; sleep 0.1; done
grep -q "listening on" "$work/relay.log" || { say "FAIL: the installed relay did not start as weald-relay"; cat "$work/relay.log"; exit 1; }
say "relay: $(grep -o 'listening on [^ ]*' "$work/relay.log") as user weald-relay"

disp=""
for n in $(seq 151 180); do
  if [ ! -e "/tmp/.X11-unix/X$n" ] && [ ! -e "/tmp/.X$n-lock" ]; then disp=":$n"; break; fi
done
[ -n "$disp" ] || { say "no free X display"; exit 1; }
Xvfb "$disp" -screen 0 1280x820x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do [ -e "/tmp/.X11-unix/X${disp#:}" ] && break; sleep 0.1; done

# waitlog FILE TEXT PID: wait until FILE has TEXT, while PID lives.
waitlog() {
  for _ in $(seq 1 $((deadline * 10))); do
    grep -q "$2" "$1" && return 0
    kill -0 "$3" 2>/dev/null || break
    sleep 0.1
  done
  say "FAIL: no \"$2\" within ${deadline}s; log:"; cat "$1"; return 1
}
shot() {
  DISPLAY=$disp import -window root "$out/$1"
  colors=$(convert "$out/$1" -format %k info:)
  [ "$colors" -ge 16 ] || { say "FAIL: $1 looks blank ($colors colours)"; exit 1; }
}

# 1. The installed binary, from its installed path, to the first screen.
export DISPLAY=$disp WEBKIT_DISABLE_COMPOSITING_MODE=1
start=$(date +%s%N)
WEALD_HOME="$work/home1" dbus-run-session -- /usr/bin/weald-desktop >"$work/app1.log" 2>&1 &
pids+=($!)
waitlog "$work/app1.log" "frontend connected: first bound call App.Status" $!
ms=$(( ($(date +%s%N) - start) / 1000000 ))
sleep 2
shot package-first-screen.png
kill "${pids[-1]}" 2>/dev/null || true
say "installed app reached its first screen in ${ms} ms; $out/package-first-screen.png"

# 2. A weald:// link opened through the installed desktop entry.
link='weald://join?relay=ws%3A%2F%2F127.0.0.1%3A1%2Fv1%2Fws&id=00'
grep -q '^MimeType=x-scheme-handler/weald;' /usr/share/applications/weald.desktop
WEALD_HOME="$work/home2" dbus-run-session -- sh -c "echo \"\$DBUS_SESSION_BUS_ADDRESS\" >'$work/bus2'; gio launch /usr/share/applications/weald.desktop '$link'; sleep $deadline" >"$work/app2.log" 2>&1 &
pids+=($!)
waitlog "$work/app2.log" "invite link handed to the join screen" $!
sleep 2
shot package-join-link.png
say "weald:// link opened through the desktop entry reached the join screen; $out/package-join-link.png"

# 2b. A second link opened the same way while the app runs: the new launch
# hands it to the open window over D-Bus and exits; the window shows it.
apps() {
  for e in /proc/[0-9]*/environ; do
    if { tr '\0' '\n' <"$e"; } 2>/dev/null | grep -qx "WEALD_HOME=$work/home2"; then p=${e#/proc/}; p=${p%/environ}; [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = /usr/bin/weald-desktop ] && echo "$p"; fi
  done
  return 0
}
first=$(apps)
pair='weald://pair?relay=ws%3A%2F%2F127.0.0.1%3A1%2Fv1%2Fws&id=01'
start=$(date +%s%N)
WEALD_HOME="$work/home2" DBUS_SESSION_BUS_ADDRESS=$(cat "$work/bus2") gio launch /usr/share/applications/weald.desktop "$pair" >"$work/app3.log" 2>&1
waitlog "$work/app2.log" "pairing link handed to the pairing screen" "${pids[-1]}"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
for _ in $(seq 1 $((deadline * 10))); do [ "$(apps)" = "$first" ] && break; sleep 0.1; done
[ -n "$first" ] && [ "$(apps)" = "$first" ] || { say "FAIL: a second app runs on the same data directory (pids $(apps | xargs), first $first)"; exit 1; }
grep -q "opened again with an invite link: handed to the running window" "$work/app2.log" || { say "FAIL: the open app did not say it took the link"; cat "$work/app2.log"; exit 1; }
sleep 2
shot package-handover.png
say "a second weald:// link opened while the app runs reached its window in ${ms} ms (pairing screen, one app process); $out/package-handover.png"
# gio started the app on its own: stop it by its pid.
for p in $(apps); do kill "$p" 2>/dev/null || true; done
kill "${pids[-1]}" 2>/dev/null || true

# 3. Uninstall cleanly.
for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
apt-get purge -y -qq weald weald-relay >"$work/purge.log" 2>&1 || { cat "$work/purge.log"; exit 1; }
left=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' weald weald-relay 2>/dev/null | grep -v '^un' || true)
[ -z "$left" ] || { say "FAIL: still known to dpkg: $left"; exit 1; }
for f in /usr/bin/weald-desktop /usr/bin/weald /usr/bin/weald-relay /usr/share/applications/weald.desktop /lib/systemd/system/weald-relay.service /etc/default/weald-relay /usr/share/man/man1/weald.1.gz /usr/share/man/man1/weald-relay.1.gz; do
  [ ! -e "$f" ] || { say "FAIL: $f is left after purge"; exit 1; }
done
say "ok: both packages purged, no file left"
