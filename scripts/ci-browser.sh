#!/usr/bin/env bash
# Makes sure Debian's Chromium is present for the browser tests (tests/e2e). Idempotent, and it
# never fails the CI run: without Chromium the browser tests skip themselves loudly instead.
set -u

CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then
  echo "ci-browser: $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM") present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
    echo "ci-browser: !!! Chromium is missing and this user cannot install packages: browser tests will be SKIPPED" >&2
    exit 0
  fi
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ci-browser: !!! Chromium is missing and apt-get is not available: browser tests will be SKIPPED" >&2
  exit 0
fi

echo "ci-browser: installing chromium from the Debian archive"
export DEBIAN_FRONTEND=noninteractive
if $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null; then
  echo "ci-browser: $("$CHROMIUM" --version 2>/dev/null || echo chromium) installed"
else
  echo "ci-browser: !!! installing chromium failed: browser tests will be SKIPPED" >&2
fi
exit 0
