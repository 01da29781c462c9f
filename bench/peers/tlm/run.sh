#!/bin/sh
# bench/peers/tlm/run.sh BUILD [N=1000000] [THREADS="1 2"] [REPEATS=5] [LEGACY_N=100000]: the measurements of
# README.md here.
# Needs bench/peers/setup_tlm.sh BUILD first. For each ray set (narrow: y, z in [-5, 5], every ray within the
# D = 15 aperture; wide: y, z in [-10, 10], about 44% hit) and each surface (sphere R 20, conic R 20 k -0.5,
# asphere R 20 k -1 a4..a8 1e-4,-1e-6,1e-8; all D 15), runs tlm_rays.py (torchlensmaker as installed, then the
# 0.0.12 CollisionMethod with --legacy on the first LEGACY_N rays of the set, as it is about 60 times slower; then
# the closed-form sphere-r for reference) on each thread count, and
# checks every answer against rays.py's reference. Prints the JSON lines; files in BUILD/peers/tlm-run.
set -eu
[ $# -ge 1 ] || { echo "usage: bench/peers/tlm/run.sh BUILD [N] [THREADS] [REPEATS]" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
PEERS=$(cd "$1/peers" && pwd)
N=${2:-1000000}
THREADS=${3:-1 2}
REPEATS=${4:-5}
LEGACY_N=${5:-100000}
PY="$PEERS/tlm-venv/bin/python"
WORK="$PEERS/tlm-run"
mkdir -p "$WORK"
[ -x "$PY" ] || { echo "no $PY: run bench/peers/setup_tlm.sh $1 first" >&2; exit 1; }

"$PY" "$HERE/rays.py" gen "$WORK/narrow.f64" "$N" --half-width 5
"$PY" "$HERE/rays.py" gen "$WORK/wide.f64" "$N" --half-width 10
for set in narrow wide; do head -c $((LEGACY_N * 48)) "$WORK/$set.f64" > "$WORK/$set-legacy.f64"; done

for set in narrow wide; do
    for case in "sphere|--radius 20" "conic|--radius 20 --k -0.5" "asphere|--radius 20 --k -1 --coeffs 1e-4,-1e-6,1e-8" \
                "sphere-r|--radius 20"; do
        surface=${case%%|*}
        params=${case#*|}
        for variant in current legacy; do
            legacy=""
            rays="$WORK/$set.f64"
            if [ "$variant" = legacy ]; then legacy="--legacy"; rays="$WORK/$set-legacy.f64"; fi
            for t in $THREADS; do
                out="$WORK/$set-$surface-$variant.out"
                # shellcheck disable=SC2086
                line=$("$PY" "$HERE/../tlm_rays.py" "$rays" --surface "$surface" $params --diameter 15 \
                       --threads "$t" --repeats "$REPEATS" --out "$out" $legacy | grep '^{' | tail -n 1)
                printf '{"set": "%s", %s\n' "$set" "${line#\{}"
            done
            closed=""
            [ "$surface" = sphere ] || [ "$surface" = sphere-r ] && closed="--sphere-closed-form"
            # shellcheck disable=SC2086
            printf '{"set": "%s", "check": "%s %s", %s\n' "$set" "$surface" "$variant" "$("$PY" "$HERE/rays.py" check "$rays" "$out" $params --diameter 15 $closed | sed 's/^{//')"
        done
    done
done
