#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages Weald needs, only those missing.
#   .ci/deps.sh run    what building and running the desktop app needs
#   .ci/deps.sh test   that, plus what the tests need (Chromium, Xvfb, PostgreSQL, ImageMagick, lintian)
#   .ci/deps.sh tags   prints the Go build tags for this system's WebKitGTK
set -euo pipefail
what=${1:-run}

webkit_pkg() {
  # WebKitGTK 4.1 where the system offers it (Debian 12+, Ubuntu 22.04+), else 4.0.
  if apt-cache show libwebkit2gtk-4.1-dev >/dev/null 2>&1; then echo libwebkit2gtk-4.1-dev; else echo libwebkit2gtk-4.0-dev; fi
}

if [ "$what" = tags ]; then
  if pkg-config --exists webkit2gtk-4.1 2>/dev/null; then echo "desktop,production,webkit2_41"; else echo "desktop,production"; fi
  exit 0
fi

pkgs=(gcc pkg-config libgtk-3-dev "$(webkit_pkg)" xvfb xauth dbus)
if [ "$what" = test ]; then
  pkgs+=(chromium imagemagick postgresql lintian libglib2.0-bin)
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
for tool in go node npm; do
  command -v "$tool" >/dev/null || { echo "deps: $tool is not installed; Weald needs Go 1.26, Node 20 and npm" >&2; exit 1; }
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "deps: missing packages ${missing[*]}; install them as root" >&2; exit 1; }
  sudo=sudo
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
