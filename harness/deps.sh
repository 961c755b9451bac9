#!/bin/sh
# deps.sh [--check] PACKAGE... — installs the Debian packages bpebench needs
# that are missing. As root it runs apt-get; otherwise, or with --check (what
# a plain `make` runs: it installs nothing), it prints the exact command and
# fails, so `make` stops before a confusing compiler error.
# A package named "cmd:NAME=PACKAGE" counts as present when command NAME exists
# (gnuplot may come from gnuplot-nox, gnuplot-x11 or gnuplot-qt).
set -u
check_only=false
if [ "${1:-}" = --check ]; then
    check_only=true
    shift
fi
if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "deps: not a Debian system; make sure these are installed: $*" >&2
    exit 0
fi
missing=""
for want in "$@"; do
    case "$want" in
    cmd:*)
        spec=${want#cmd:}
        command -v "${spec%%=*}" >/dev/null 2>&1 || missing="$missing ${spec#*=}"
        ;;
    *)
        dpkg-query -W -f='${Status}' "$want" 2>/dev/null | grep -q 'install ok installed' ||
            missing="$missing $want"
        ;;
    esac
done
[ -z "$missing" ] && exit 0
if $check_only || [ "$(id -u)" != 0 ]; then
    echo "bpebench needs Debian packages that are missing:$missing" >&2
    echo "Install them as root (make deps), then run make again:" >&2
    echo "  apt-get update && apt-get install -y$missing" >&2
    exit 1
fi
echo "deps: installing$missing" >&2
apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
