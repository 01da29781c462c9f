#!/bin/sh
# fetch_cad.sh [DEST]: fetches the STEP files the B-Rep tests read into DEST (default build/models/cad).
# They come from OpenCASCADE's sample data in Debian's `occt-misc` package (all architectures, ~10 MB,
# LGPL, hence not bundled in data/): the package is downloaded and unpacked without being installed
# (`apt-get download`, `dpkg -x`), the files are copied from /usr/share/opencascade/data/step/, and the
# temporary files are removed. If occt-misc happens to be installed, the files are read in place.
#
# screw.step: a screw of 10 analytic faces (planes, a cylinder, cones, tori) with B-spline edges.
# linkrods.step: rational B-spline faces, for the unsupported-geometry reporting (optional).
#
# Idempotent: nothing is downloaded when the files are present. Each file is checked to start with
# ISO-10303-21; and to hold its expected number of ADVANCED_FACEs; a file that fails is removed.
# On a fresh Debian machine with empty apt lists, `apt-get update` is run first when we are root.
set -eu

DEST=${1:-build/models/cad}
PACKAGE=occt-misc
DIR=usr/share/opencascade/data/step
# name:advanced faces
FILES="screw.step:10 linkrods.step:37"
REQUIRED="screw.step"

die() {
    echo "fetch_cad: error: $*" >&2
    exit 1
}

mkdir -p "$DEST" || die "cannot create $DEST"
DEST=$(cd "$DEST" && pwd)

missing=""
for entry in $FILES; do
    name=${entry%%:*}
    [ -s "$DEST/$name" ] || missing="$missing $name"
done

if [ -n "$missing" ]; then
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/fetch_cad.XXXXXX") || die "cannot create a temporary directory"
    trap 'rm -rf "$WORK"' EXIT
    trap 'exit 130' HUP INT PIPE TERM
    if [ -d "/$DIR" ]; then
        source_dir="/$DIR"
    else
        command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1 ||
            die "apt-get and dpkg are needed to fetch $PACKAGE (a Debian/Ubuntu machine); missing:$missing"
        # apt drops root to the _apt user while downloading; let it write here (otherwise it warns)
        if [ "$(id -u)" -eq 0 ] && id _apt >/dev/null 2>&1; then chown _apt "$WORK" 2>/dev/null || true; fi
        if ! (cd "$WORK" && apt-get download -q "$PACKAGE") >"$WORK/apt.log" 2>&1; then
            if [ "$(id -u)" -eq 0 ]; then
                echo "fetch_cad: apt-get download $PACKAGE failed; running apt-get update and retrying"
                apt-get update -qq >"$WORK/update.log" 2>&1 ||
                    { cat "$WORK/update.log" >&2; die "apt-get update failed (is a Debian mirror reachable?)"; }
                (cd "$WORK" && apt-get download -q "$PACKAGE") >"$WORK/apt.log" 2>&1 ||
                    { cat "$WORK/apt.log" >&2; die "apt-get download $PACKAGE failed after apt-get update"; }
            else
                cat "$WORK/apt.log" >&2
                die "apt-get download $PACKAGE failed; the apt lists may be empty: run 'sudo apt-get update' (or run this script as root) and try again"
            fi
        fi
        deb=$(ls "$WORK"/"$PACKAGE"_*.deb 2>/dev/null | head -n 1)
        [ -n "$deb" ] || die "apt-get download left no $PACKAGE .deb in $WORK"
        dpkg -x "$deb" "$WORK/pkg" || die "dpkg -x $deb failed"
        rm -f "$deb"
        source_dir="$WORK/pkg/$DIR"
    fi
    for name in $missing; do
        if [ -f "$source_dir/$name" ]; then
            cp "$source_dir/$name" "$DEST/$name.tmp" && mv "$DEST/$name.tmp" "$DEST/$name" || die "cannot write $DEST/$name"
            echo "fetched $name"
        else
            echo "fetch_cad: $name is not in $PACKAGE ($DIR); skipped" >&2
        fi
    done
fi

# check every file: a STEP header and its number of faces
status=0
for entry in $FILES; do
    name=${entry%%:*}
    faces=${entry#*:}
    file="$DEST/$name"
    [ -s "$file" ] || continue
    found=$(grep -c "ADVANCED_FACE(" "$file" || true)
    if [ "$(head -c 13 "$file")" != "ISO-10303-21;" ] || [ "$found" != "$faces" ]; then
        echo "fetch_cad: $name: $found ADVANCED_FACEs, expected $faces (or no STEP header); removed it" >&2
        rm -f "$file"
        status=1
    fi
done
for name in $REQUIRED; do
    [ -s "$DEST/$name" ] || { echo "fetch_cad: required file $name is missing" >&2; status=1; }
done
[ "$status" -eq 0 ] || die "some STEP files are missing or failed their check (see above)"
echo "fetch_cad: STEP files present in $DEST"
