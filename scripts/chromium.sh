#!/usr/bin/env bash
# Make sure a Chromium the review page's browser tests can drive is
# installed: $KGFORGE_CHROMIUM if set, else Debian's `chromium`, installed
# with apt-get when missing (as root, or through sudo).
#   scripts/chromium.sh {up|path}
set -euo pipefail

log() { echo "chromium.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
as_root() { if ((EUID == 0)); then "$@"; else sudo "$@"; fi; }

# find prints the browser the tests will use (review/browser_test.go looks
# in the same places, in the same order), or fails.
find_browser() {
  if [[ -n ${KGFORGE_CHROMIUM:-} ]]; then
    [[ -x $KGFORGE_CHROMIUM && -f $KGFORGE_CHROMIUM ]] || die "KGFORGE_CHROMIUM=$KGFORGE_CHROMIUM is not an executable file"
    echo "$KGFORGE_CHROMIUM"; return
  fi
  local name
  for name in /usr/bin/chromium chromium chromium-browser; do
    command -v "$name" 2>/dev/null && return
  done
  return 1
}

cmd_up() {
  local bin
  if bin=$(find_browser); then log "$("$bin" --version 2>/dev/null || echo "$bin") already installed ($bin)"; return; fi
  command -v apt-get >/dev/null || die "no chromium found and no apt-get to install it: install Chromium or Chrome and set KGFORGE_CHROMIUM to its binary"
  log "installing chromium (apt)"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq
  as_root apt-get install -y -qq chromium >/dev/null
  bin=$(find_browser) || die "apt-get installed chromium but no chromium binary is on PATH"
  log "installed $("$bin" --version 2>/dev/null || echo "$bin") ($bin)"
}

case ${1:-} in
  up) cmd_up ;;
  path) find_browser || die "no chromium found: run scripts/chromium.sh up" ;;
  *) die "usage: scripts/chromium.sh {up|path}" ;;
esac
