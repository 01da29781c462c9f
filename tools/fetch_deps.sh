#!/bin/sh
# fetch_deps.sh [DEST] [WHAT]: makes a Debian package's files available to the build without installing
# anything, for what a fresh machine may lack: when they are not already on the system, the packages are
# downloaded and unpacked into DEST (default build/deps; `apt-get download`, `dpkg -x`). WHAT is
#   libccd (default): libccd-dev and libccd2, the independent GJK / MPR oracle of the DCOL tests and the
#                     peer of bench_dcol; the Makefile points CMake at DEST/usr
#   pip:              python3-pip-whl, pip's wheel (DEST/usr/share/python-wheels/pip-*.whl), which
#                     python/run_tests.sh runs to put pip into a virtual environment made without it
#                     (a Debian python3 without python3-venv)
#   certs:            ca-certificates, joined into DEST/ca-certificates.crt with the site's own
#                     authorities of /usr/local/share/ca-certificates (as update-ca-certificates
#                     would), for pip to reach PyPI where /etc/ssl/certs/ca-certificates.crt is
#                     missing (Debian's pip reads that file instead of a bundle of its own)
# Idempotent; on a fresh Debian machine with empty apt lists, `apt-get update` is run first when we are root.
# The library itself needs none of this (qhull, for osc_convex_create_hull, is optional and taken only from
# the system: .ci/run installs libqhull-dev).
set -eu

DEST=${1:-build/deps}
WHAT=${2:-libccd}
case "$WHAT" in
    libccd)
        PACKAGES="libccd-dev libccd2"
        present() { [ -f /usr/include/ccd/ccd.h ] || [ -f "$DEST/usr/include/ccd/ccd.h" ]; }
        ;;
    pip)
        PACKAGES="python3-pip-whl"
        present() { ls "$DEST"/usr/share/python-wheels/pip-*.whl >/dev/null 2>&1; }
        ;;
    certs)
        PACKAGES="ca-certificates"
        present() { [ -s /etc/ssl/certs/ca-certificates.crt ] || [ -s "$DEST/ca-certificates.crt" ]; }
        ;;
    *)
        echo "fetch_deps: error: unknown WHAT '$WHAT' (libccd, pip or certs)" >&2
        exit 2
        ;;
esac

die() {
    echo "fetch_deps: error: $*" >&2
    exit 1
}

if present; then
    exit 0
fi
command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1 ||
    die "apt-get and dpkg are needed to fetch $PACKAGES (a Debian/Ubuntu machine); or install them"
mkdir -p "$DEST" || die "cannot create $DEST"
DEST=$(cd "$DEST" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fetch_deps.XXXXXX") || die "cannot create a temporary directory"
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' HUP INT PIPE TERM
# apt drops root to the _apt user while downloading; let it write here (otherwise it warns)
if [ "$(id -u)" -eq 0 ] && id _apt >/dev/null 2>&1; then chown _apt "$WORK" 2>/dev/null || true; fi
# shellcheck disable=SC2086 # PACKAGES is a list of package names
if ! (cd "$WORK" && apt-get download -q $PACKAGES) >"$WORK/apt.log" 2>&1; then
    if [ "$(id -u)" -eq 0 ]; then
        apt-get update -qq >"$WORK/update.log" 2>&1 ||
            { cat "$WORK/update.log" >&2; die "apt-get update failed (is a Debian mirror reachable?)"; }
        # shellcheck disable=SC2086
        (cd "$WORK" && apt-get download -q $PACKAGES) >"$WORK/apt.log" 2>&1 ||
            { cat "$WORK/apt.log" >&2; die "apt-get download $PACKAGES failed after apt-get update"; }
    else
        cat "$WORK/apt.log" >&2
        die "apt-get download $PACKAGES failed; run 'sudo apt-get update' (or install libccd-dev) and try again"
    fi
fi
for deb in "$WORK"/*.deb; do
    [ -f "$deb" ] || die "apt-get download left no .deb in $WORK"
    dpkg -x "$deb" "$DEST" || die "dpkg -x $deb failed"
done
if [ "$WHAT" = certs ]; then
    local_cas=$(ls /usr/local/share/ca-certificates/*.crt 2>/dev/null || true)
    # shellcheck disable=SC2086 # local_cas is a list of file names without spaces
    cat "$DEST"/usr/share/ca-certificates/mozilla/*.crt $local_cas >"$DEST/ca-certificates.crt.tmp" &&
        mv "$DEST/ca-certificates.crt.tmp" "$DEST/ca-certificates.crt" ||
        die "cannot join the certificates of $DEST/usr/share/ca-certificates/mozilla"
fi
present || die "the unpacked $PACKAGES lack the files expected of $WHAT"
echo "fetch_deps: $PACKAGES unpacked into $DEST/usr"
