#!/usr/bin/env bash
# Regenerates images/icon.png (128x128) with ImageMagick (Debian: apt-get install imagemagick).
# The PNG is committed; this script only documents how it was made.
set -euo pipefail
cd "$(dirname "$0")/.."
CONVERT=/usr/bin/convert
"$CONVERT" -size 128x128 xc:none \
  -fill '#1e3a8a' -draw 'roundrectangle 4,4 123,123 22,22' \
  -fill '#3b82f6' -draw 'roundrectangle 12,12 115,115 16,16' \
  -fill '#ffffff' -draw 'rectangle 30,34 98,42' \
  -fill '#ffffff' -draw 'rectangle 30,52 78,60' \
  -fill '#fde047' -draw 'rectangle 30,70 90,78' \
  -fill '#ffffff' -draw 'rectangle 30,88 70,96' \
  -fill '#fde047' -draw 'polygon 84,104 92,82 112,62 120,70 100,90' \
  -fill '#1e3a8a' -draw 'polygon 84,104 88,94 94,100' \
  -depth 8 -strip images/icon.png
