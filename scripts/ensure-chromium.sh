#!/bin/sh
# Makes sure the headless browser used by test/e2e/browser.test.ts exists at /usr/bin/chromium, with
# the fonts its screenshots need (Arabic, Hebrew, CJK). Present: exit 0 without touching anything.
# Missing: install the Debian `chromium` and font packages
# (needs root or sudo, and apt access). Any failure exits non-zero, so CI stops here instead of
# failing later in the browser test with a less obvious message.
set -eu

CHROMIUM_BIN=/usr/bin/chromium
# Fonts for the scripts the explorer screenshots show: DejaVu (Latin, Arabic, Hebrew), Noto CJK (Chinese, Japanese, Korean).
FONT_PACKAGES="fonts-dejavu-core fonts-noto-cjk"

missing=""
[ -x "$CHROMIUM_BIN" ] || missing="chromium"
if command -v dpkg-query >/dev/null 2>&1; then
  for package in $FONT_PACKAGES; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing="$missing $package"
  done
fi
if [ -z "$missing" ]; then
  echo "ensure-chromium: $CHROMIUM_BIN and its fonts are present"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "ensure-chromium: missing:$missing; this user can neither install packages nor sudo" >&2
  exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: missing:$missing; apt-get is not available on this system" >&2
  exit 1
fi

echo "ensure-chromium: installing the Debian packages:$missing..."
export DEBIAN_FRONTEND=noninteractive
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null

if [ ! -x "$CHROMIUM_BIN" ]; then
  echo "ensure-chromium: apt-get finished but $CHROMIUM_BIN is still missing" >&2
  exit 1
fi
echo "ensure-chromium: installed $("$CHROMIUM_BIN" --version 2>/dev/null || echo chromium)"
