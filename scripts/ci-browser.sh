#!/usr/bin/env bash
# Makes sure Debian's Chromium, Firefox ESR and WebKitGTK's WebDriver (with Xvfb, a display for it) are present
# for the browser tests (tests/e2e). Idempotent, and it never fails the CI run: without a browser its tests
# skip themselves loudly instead.
set -u

CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
FIREFOX="${FIREFOX_PATH:-/usr/bin/firefox-esr}"
PACKAGES=()
[ -x "$CHROMIUM" ] && echo "ci-browser: $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM") present" || PACKAGES+=(chromium)
[ -x "$FIREFOX" ] && echo "ci-browser: $("$FIREFOX" --version 2>/dev/null || echo "$FIREFOX") present" || PACKAGES+=(firefox-esr)
[ -x /usr/bin/WebKitWebDriver ] && echo "ci-browser: WebKitWebDriver present" || PACKAGES+=(webkit2gtk-driver)
[ -x /usr/bin/Xvfb ] && echo "ci-browser: Xvfb present" || PACKAGES+=(xvfb)
[ ${#PACKAGES[@]} -eq 0 ] && exit 0

SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
    echo "ci-browser: !!! ${PACKAGES[*]} missing and this user cannot install packages: their browser tests will be SKIPPED" >&2
    exit 0
  fi
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ci-browser: !!! ${PACKAGES[*]} missing and apt-get is not available: their browser tests will be SKIPPED" >&2
  exit 0
fi

echo "ci-browser: installing ${PACKAGES[*]} from the Debian archive"
export DEBIAN_FRONTEND=noninteractive
if $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" fonts-dejavu-core >/dev/null; then
  echo "ci-browser: ${PACKAGES[*]} installed"
else
  echo "ci-browser: !!! installing ${PACKAGES[*]} failed: their browser tests will be SKIPPED" >&2
fi
exit 0
