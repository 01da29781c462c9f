#!/bin/sh
# fetch_models.sh [DEST]: fetches the real test and benchmark meshes that are too large to bundle into DEST
# (default build/models). They come from CGAL's data set in Debian's `libcgal-demo` package (all architectures,
# ~24 MB): the package is downloaded and unpacked without being installed (`apt-get download`, `dpkg -x`), the
# OFF files are taken from data/meshes/ of the tarball /usr/share/doc/libcgal-dev/data.tar.gz inside it, and
# the temporary files are removed. If libcgal-demo happens to be installed, its tarball is read in place.
#
# Idempotent: a model already in DEST is not fetched again; nothing is downloaded when all are present. Every
# model in DEST (fetched or not) is checked against the vertex and triangle counts below, read from its OFF
# header and face lines; a file that fails the check is removed, so a re-run fetches it again.
# On a fresh Debian machine with empty apt lists, `apt-get update` is run first when we are root.
set -eu

DEST=${1:-build/models}
PACKAGE=libcgal-demo
TARBALL=usr/share/doc/libcgal-dev/data.tar.gz

# name:vertices:triangles (all faces of these files are triangles)
MODELS="
armadillo.off:26002:52000
bunny00.off:37706:75408
ChineseDragon-10kv.off:10000:19994
fandisk.off:6475:12946
elephant.off:2775:5558
elephant-with-holes.off:2798:4463
cow.off:2904:5804
camel.off:9770:19536
cube.off:8:12
tetrahedron.off:4:4
octahedron.off:6:8
icosahedron.off:12:20
sphere.off:162:320
ellipsoid.off:162:320
"
# the ones the tests and benchmarks rely on; the others are skipped with a warning if a package lacks them
REQUIRED="armadillo.off bunny00.off ChineseDragon-10kv.off fandisk.off elephant.off cube.off sphere.off"

die() {
    echo "fetch_models: error: $*" >&2
    exit 1
}

# off_counts FILE: prints "VERTICES TRIANGLES" (faces fan-triangulated) or fails on a malformed file
off_counts() {
    awk '
    { sub(/#.*/, ""); if (NF == 0) next }
    state == 0 { if ($1 !~ /OFF$/) exit 2; state = 1; if (NF >= 3) { nv = $2; nf = $3; state = 2 }; next }
    state == 1 { nv = $1; nf = $2; state = 2; next }
    state == 2 { if (++v >= nv) state = 3; next }
    state == 3 { if ($1 < 3) exit 2; tri += $1 - 2; if (++f >= nf) state = 4; next }
    END { if (state != 4 && !(state >= 2 && nf == 0 && v >= nv)) exit 2; print nv, tri }' "$1"
}

mkdir -p "$DEST" || die "cannot create $DEST"
DEST=$(cd "$DEST" && pwd)

missing=""
for entry in $MODELS; do
    name=${entry%%:*}
    [ -s "$DEST/$name" ] || missing="$missing $name"
done

fetched=0
if [ -n "$missing" ]; then
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/fetch_models.XXXXXX") || die "cannot create a temporary directory"
    trap 'rm -rf "$WORK"' EXIT
    trap 'exit 130' HUP INT PIPE TERM

    if [ -f "/$TARBALL" ]; then
        data="/$TARBALL"
        source="installed $PACKAGE"
    else
        command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1 ||
            die "apt-get and dpkg are needed to fetch $PACKAGE (a Debian/Ubuntu machine); missing:$missing"
        # apt drops root to the _apt user while downloading; let it write here (otherwise it warns)
        if [ "$(id -u)" -eq 0 ] && id _apt >/dev/null 2>&1; then chown _apt "$WORK" 2>/dev/null || true; fi
        if ! (cd "$WORK" && apt-get download -q "$PACKAGE") >"$WORK/apt.log" 2>&1; then
            if [ "$(id -u)" -eq 0 ]; then
                echo "fetch_models: apt-get download $PACKAGE failed; running apt-get update and retrying"
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
        source="$(basename "$deb")"
        dpkg -x "$deb" "$WORK/pkg" || die "dpkg -x $deb failed"
        rm -f "$deb"
        data="$WORK/pkg/$TARBALL"
        [ -f "$data" ] || die "$PACKAGE has no /$TARBALL (its layout changed?)"
    fi

    members=""
    listing=$(tar -tzf "$data") || die "cannot read $data"
    for name in $missing; do
        if printf '%s\n' "$listing" | grep -qx "data/meshes/$name"; then
            members="$members data/meshes/$name"
        else
            echo "fetch_models: $name is not in $source (data/meshes/); skipped" >&2
        fi
    done
    if [ -n "$members" ]; then
        # shellcheck disable=SC2086 # members is a list of plain file names
        tar -xzf "$data" -C "$WORK" $members || die "cannot extract the meshes from $data"
        for member in $members; do
            name=${member##*/}
            cp "$WORK/$member" "$DEST/$name.tmp" && mv "$DEST/$name.tmp" "$DEST/$name" ||
                die "cannot write $DEST/$name"
            fetched=$((fetched + 1))
        done
    fi
fi

# check every model against its expected counts
status=0
present=0
for entry in $MODELS; do
    name=${entry%%:*}
    expect=${entry#*:}
    expect_v=${expect%%:*}
    expect_t=${expect#*:}
    file="$DEST/$name"
    [ -s "$file" ] || continue
    counts=$(off_counts "$file") || counts="unreadable"
    if [ "$counts" != "$expect_v $expect_t" ]; then
        echo "fetch_models: $name: got '$counts' (vertices triangles), expected $expect_v V / $expect_t T; removed it" >&2
        rm -f "$file"
        status=1
        continue
    fi
    present=$((present + 1))
    case " $missing " in
        *" $name "*) echo "fetched $name: $expect_v V / $expect_t T" ;;
    esac
done

if [ "$fetched" -gt 0 ]; then
    echo "fetch_models: fetched $fetched models from $source into $DEST ($present of $(echo $MODELS | wc -w) present)"
else
    echo "fetch_models: $present models present in $DEST (nothing to fetch)"
fi
for name in $REQUIRED; do
    [ -s "$DEST/$name" ] || { echo "fetch_models: required model $name is missing" >&2; status=1; }
done
[ "$status" -eq 0 ] || die "some models are missing or failed their check (see above)"
