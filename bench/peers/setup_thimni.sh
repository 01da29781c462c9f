#!/bin/sh
# bench/peers/setup_thimni.sh BUILD: builds the peer of the SDF collision-point benchmark (Al-Ameri 2025), the Rust crate
# `thimni` (crates.io, pinned to 0.3.4 in thimni/Cargo.toml and thimni/Cargo.lock) driven by thimni/src/main.rs, in
# release mode into BUILD/peers/thimni (the binary: BUILD/peers/thimni/release/thimni_scene). See thimni/README.md.
#
# Like setup.sh: idempotent (cargo rebuilds nothing that is up to date and, with the crates in its cache, downloads
# nothing), never fails the caller, prints one line
#   peer thimni: installed (thimni VERSION, glam VERSION, rustc VERSION)   or   peer thimni: missing (WHY)
# and writes the same to BUILD/peers/status/thimni. Details: BUILD/peers/logs/thimni.log.
#
# Needs cargo and rustc >= 1.85 (thimni 0.3.4 is edition 2024): found on PATH, in $CARGO_HOME/bin or ~/.cargo/bin.
# With none, as root on Debian/Ubuntu, the distribution's `cargo` is installed if its rustc is new enough (Debian 12's
# 1.63 is not: then install Rust with rustup, https://rustup.rs). crates.io is reached through cargo only.
set -eu

[ $# -ge 1 ] || { echo "usage: bench/peers/setup_thimni.sh BUILD_DIR" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1/peers"
PEERS=$(cd "$1/peers" && pwd)
LOGS="$PEERS/logs"
STATUS="$PEERS/status"
TARGET="$PEERS/thimni"
BIN="$TARGET/release/thimni_scene"
MANIFEST="$HERE/thimni/Cargo.toml"
MIN_RUSTC=1.85
mkdir -p "$LOGS" "$STATUS"
log="$LOGS/thimni.log"
: > "$log"

is_root() { [ "$(id -u)" -eq 0 ]; }

report() {
    echo "peer thimni: $1 ($2)"
    echo "$1 $2" > "$STATUS/thimni"
}

why() {
    reason=$(grep -E '^(ERROR|E):|Error|error(\[E[0-9]+\])?:' "$1" 2>/dev/null | tail -n 1)
    [ -n "$reason" ] || reason=$(tail -n 1 "$1" 2>/dev/null)
    printf '%s' "$reason" | tr -d '"\\' | cut -c1-200
}

# version_ge A B: true if the dotted version A >= B (major.minor compared)
version_ge() {
    awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, "."); split(b, y, ".");
        if (x[1] + 0 != y[1] + 0) exit !(x[1] + 0 > y[1] + 0); exit !(x[2] + 0 >= y[2] + 0) }'
}

find_cargo() {
    for c in "$(command -v cargo 2>/dev/null || true)" "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" "$HOME/.cargo/bin/cargo"; do
        [ -n "$c" ] && [ -x "$c" ] && { echo "$c"; return 0; }
    done
    return 1
}

# rustc_of CARGO: the rustc that cargo will use (RUSTC, else the one beside cargo, else on PATH)
rustc_of() {
    if [ -n "${RUSTC:-}" ]; then echo "$RUSTC"; return; fi
    d=$(dirname "$1")
    if [ -x "$d/rustc" ]; then echo "$d/rustc"; else command -v rustc 2>/dev/null || echo rustc; fi
}

if ! CARGO=$(find_cargo) && is_root && command -v apt-get >/dev/null 2>&1; then
    # the distribution's Rust, only if it is new enough for thimni (checked before downloading anything large)
    apt-get update -qq >>"$log" 2>&1 || true
    candidate=$(apt-cache policy rustc 2>/dev/null | awk '/Candidate:/ { print $2 }' | sed 's/^[0-9]*://; s/[+~-].*//')
    echo "setup: distribution rustc candidate: ${candidate:-none}" >>"$log"
    if [ -n "$candidate" ] && [ "$candidate" != "(none)" ] && version_ge "$candidate" "$MIN_RUSTC"; then
        env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends cargo >>"$log" 2>&1 || true
    fi
fi
if ! CARGO=$(find_cargo); then
    report missing "no cargo: install Rust >= $MIN_RUSTC with rustup (https://rustup.rs); the distribution's rustc (${candidate:-not checked}) is missing or older than $MIN_RUSTC"
    exit 0
fi
RUSTC_BIN=$(rustc_of "$CARGO")
rustc_version=$("$RUSTC_BIN" --version 2>>"$log" | awk '{ print $2 }')
if [ -z "$rustc_version" ]; then
    report missing "cargo at $CARGO but no working rustc: $(why "$log")"
    exit 0
fi
if ! version_ge "$rustc_version" "$MIN_RUSTC"; then
    report missing "rustc $rustc_version is older than $MIN_RUSTC, which thimni 0.3.4 (edition 2024) needs: update it (rustup update)"
    exit 0
fi

echo "setup: $CARGO build --release --locked --target-dir $TARGET --manifest-path $MANIFEST" >>"$log"
start=$(date +%s)
if ! "$CARGO" build --release --locked --target-dir "$TARGET" --manifest-path "$MANIFEST" >>"$log" 2>&1; then
    report missing "cargo build of the thimni harness failed (rustc $rustc_version): $(why "$log")"
    exit 0
fi
echo "setup: cargo build took $(( $(date +%s) - start )) s" >>"$log"

# smoke test: two overlapping unit spheres are one candidate pair with one collision point
smoke="$TARGET/smoke_scene.txt"
printf '# setup_thimni.sh smoke test\nsphere 0 0 0 1\nsphere 1.5 0 0 1\n' > "$smoke"
if ! versions=$("$BIN" --version 2>>"$log") ||
    ! out=$("$BIN" "$smoke" --repeats 1 2>>"$log") ||
    ! printf '%s' "$out" | grep -q '"candidate_pairs": 1, "colliding_pairs": 1'; then
    echo "setup: smoke test output: ${out:-none}" >>"$log"
    report missing "thimni_scene built but its smoke test failed: $(why "$log")"
    exit 0
fi
thimni_version=$(echo "$versions" | awk '{ print $2 }')
glam_version=$(echo "$versions" | awk '{ print $4 }')
report installed "thimni $thimni_version, glam $glam_version, rustc $rustc_version"
