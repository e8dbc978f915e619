#!/bin/sh
# Makes sure the headless browser used by test/e2e/browser.test.ts exists at /usr/bin/chromium.
# Present: exit 0 without touching anything. Missing: install the Debian `chromium` package
# (needs root or sudo, and apt access). Any failure exits non-zero, so CI stops here instead of
# failing later in the browser test with a less obvious message.
set -eu

CHROMIUM_BIN=/usr/bin/chromium

if [ -x "$CHROMIUM_BIN" ]; then
  echo "ensure-chromium: $CHROMIUM_BIN is present"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "ensure-chromium: $CHROMIUM_BIN is missing and this user can neither install packages nor sudo" >&2
  exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: $CHROMIUM_BIN is missing and apt-get is not available on this system" >&2
  exit 1
fi

echo "ensure-chromium: installing the Debian chromium package..."
export DEBIAN_FRONTEND=noninteractive
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null

if [ ! -x "$CHROMIUM_BIN" ]; then
  echo "ensure-chromium: apt-get finished but $CHROMIUM_BIN is still missing" >&2
  exit 1
fi
echo "ensure-chromium: installed $("$CHROMIUM_BIN" --version 2>/dev/null || echo chromium)"
