#!/bin/sh
# Runs every benchmark program of the build and collects their figures, one JSON object per line,
# into $BUILD/bench/results.jsonl (docs/architecture.md §6). Peers are installed by bench/peers/setup.sh
# when a benchmark needs one; a peer that cannot be installed is reported as missing by that benchmark.
set -eu
BUILD=${1:-build}
OUT="$BUILD/bench/results.jsonl"
mkdir -p "$BUILD/bench"
export OSC_BUILD_DIR="$BUILD"
: > "$OUT"
if [ -x bench/peers/setup.sh ]; then bench/peers/setup.sh "$BUILD" || echo "bench: peer setup failed (peers reported missing)"; fi
if [ -x bench/peers/setup_thimni.sh ]; then bench/peers/setup_thimni.sh "$BUILD" || echo "bench: thimni setup failed (reported missing)"; fi
if [ -f bench/peers/setup_coal.sh ]; then sh bench/peers/setup_coal.sh "$BUILD" || echo "bench: coal setup failed (reported missing)"; fi
if [ -f bench/peers/setup_tlm.sh ]; then sh bench/peers/setup_tlm.sh "$BUILD" || echo "bench: torchlensmaker setup failed (reported missing)"; fi
echo "machine: $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //')"
for program in "$BUILD"/bench/bench_*; do
    [ -x "$program" ] || continue
    echo "== $(basename "$program")"
    "$program" | tee -a "$OUT"
done
echo "wrote $OUT ($(wc -l < "$OUT") figures)"
