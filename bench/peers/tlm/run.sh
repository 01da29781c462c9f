#!/bin/sh
# bench/peers/tlm/run.sh BUILD [N=1000000] [THREADS="1 2"] [REPEATS=5]: the measurements of README.md here.
# Needs bench/peers/setup_tlm.sh BUILD first. For each ray set (narrow: y, z in [-5, 5], every ray within the
# D = 15 aperture; wide: y, z in [-10, 10], about 44% hit) and each surface (sphere R 20, conic R 20 k -0.5,
# asphere R 20 k -1 a4..a8 1e-4,-1e-6,1e-8; all D 15), runs tlm_rays.py (torchlensmaker as installed, then the
# 0.0.12 CollisionMethod with --legacy, then the closed-form sphere-r for reference) on each thread count, and
# checks every answer against rays.py's reference. Prints the JSON lines; files in BUILD/peers/tlm-run.
set -eu
[ $# -ge 1 ] || { echo "usage: bench/peers/tlm/run.sh BUILD [N] [THREADS] [REPEATS]" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
PEERS=$(cd "$1/peers" && pwd)
N=${2:-1000000}
THREADS=${3:-1 2}
REPEATS=${4:-5}
PY="$PEERS/tlm-venv/bin/python"
WORK="$PEERS/tlm-run"
mkdir -p "$WORK"
[ -x "$PY" ] || { echo "no $PY: run bench/peers/setup_tlm.sh $1 first" >&2; exit 1; }

"$PY" "$HERE/rays.py" gen "$WORK/narrow.f64" "$N" --half-width 5
"$PY" "$HERE/rays.py" gen "$WORK/wide.f64" "$N" --half-width 10

for set in narrow wide; do
    for case in "sphere|--radius 20" "conic|--radius 20 --k -0.5" "asphere|--radius 20 --k -1 --coeffs 1e-4,-1e-6,1e-8" \
                "sphere-r|--radius 20"; do
        surface=${case%%|*}
        params=${case#*|}
        for variant in current legacy; do
            legacy=""
            [ "$variant" = legacy ] && legacy="--legacy"
            for t in $THREADS; do
                out="$WORK/$set-$surface-$variant.out"
                # shellcheck disable=SC2086
                line=$("$PY" "$HERE/../tlm_rays.py" "$WORK/$set.f64" --surface "$surface" $params --diameter 15 \
                       --threads "$t" --repeats "$REPEATS" --out "$out" $legacy)
                echo "{\"set\": \"$set\", ${line#\{}"
            done
            closed=""
            [ "$surface" = sphere ] || [ "$surface" = sphere-r ] && closed="--sphere-closed-form"
            # shellcheck disable=SC2086
            echo "{\"set\": \"$set\", \"check\": \"$surface $variant\", $("$PY" "$HERE/rays.py" check "$WORK/$set.f64" "$out" $params --diameter 15 $closed | sed 's/^{//')"
        done
    done
done
