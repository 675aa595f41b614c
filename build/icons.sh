#!/bin/sh
# Renders the app icon (build/appicon.svg, drawn by hand) to the PNGs that are
# committed: build/appicon.png (1024 px, Wails' layout; the window icon) and
# the hicolor theme sizes under build/linux/icons (the package installs the
# SVG itself as the scalable size). Needs rsvg-convert
# (Debian: librsvg2-bin). Run it after changing the SVG.
set -eu
cd "$(dirname "$0")"
rsvg-convert -w 1024 -h 1024 appicon.svg -o appicon.png
for n in 16 24 32 48 64 128 256 512; do
  d=linux/icons/hicolor/${n}x${n}/apps
  mkdir -p "$d"
  rsvg-convert -w "$n" -h "$n" appicon.svg -o "$d/weald.png"
done
