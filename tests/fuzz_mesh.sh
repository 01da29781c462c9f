#!/bin/sh
# fuzz_mesh.sh: builds one libFuzzer target per mesh importer (tests/fuzz/fuzz_mesh_*.c), one for
# the spline-grid loader (tests/fuzz/fuzz_grid.c), one for the STEP importer (tests/fuzz/fuzz_step.c,
# fixtures tests/data/step/) and one for the command-line program's option parsing
# (tests/fuzz/fuzz_cli.c over tools/cli_options.c, seeds tests/data/mesh/cli/*.cli: one argument a
# line) with clang -fsanitize=fuzzer,address,undefined
# over the library's src/*.c, runs each for a bounded time, then replays the regression crashers
# (tests/data/mesh/crashers/) and every fixture (tests/data/mesh/, tests/data/grid/) through each
# target of that kind. Exits non-zero on a crash, a hang, a leak or a contract
# violation (see tests/fuzz/fuzz_mesh.h), or when no crasher or no fixture was found to replay.
# Without clang or libFuzzer it says so in one line and exits 77, which CTest reports as skipped
# (the crashers and fixtures still replay through the plain driver, tests test_fuzz_*_replay);
# with OSC_STRICT=1 (CI) that is a failure instead.
#
# usage: fuzz_mesh.sh SOURCE_DIR WORK_DIR [SECONDS_PER_TARGET (default 20)]
# the corpus grows in WORK_DIR/corpus/<format> between runs; findings land in WORK_DIR/artifacts.
# FUZZ_CC overrides the compiler (default clang); FUZZ_TARGETS picks targets (default
# "obj stl off ply grid step cli").

set -u
source_dir=${1:?usage: fuzz_mesh.sh SOURCE_DIR WORK_DIR [SECONDS]}
work_dir=${2:?usage: fuzz_mesh.sh SOURCE_DIR WORK_DIR [SECONDS]}
seconds=${3:-20}
cc=${FUZZ_CC:-clang}
targets=${FUZZ_TARGETS:-obj stl off ply grid step cli}

fail() {
    echo "fuzz_mesh.sh: $*" >&2
    exit 1
}
# skip WHY: the libFuzzer run cannot happen on this machine
skip() {
    [ "${OSC_STRICT:-0}" = 1 ] && fail "$* (OSC_STRICT=1)"
    echo "fuzz_mesh.sh: SKIPPED: $*; the crashers and fixtures replayed through the plain driver (test_fuzz_*_replay)"
    exit 77
}

command -v "$cc" >/dev/null 2>&1 ||
    skip "'$cc' not found (Debian: apt-get install clang libclang-rt-14-dev)"
mkdir -p "$work_dir/obj" "$work_dir/bin" "$work_dir/artifacts" "$work_dir/logs" ||
    fail "cannot create $work_dir"

# libFuzzer present? (clang without libclang-rt fails to link -fsanitize=fuzzer)
printf 'int LLVMFuzzerTestOneInput(const unsigned char* d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char* d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
    >"$work_dir/probe.c"
"$cc" -fsanitize=fuzzer,address,undefined "$work_dir/probe.c" -o "$work_dir/probe" \
    >"$work_dir/logs/probe.log" 2>&1 ||
    skip "'$cc' cannot link -fsanitize=fuzzer (libFuzzer missing: Debian libclang-rt-14-dev; see $work_dir/logs/probe.log)"

# the library, instrumented once for all targets
flags="-std=c11 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
rm -f "$work_dir"/obj/*.o
for source in "$source_dir"/src/*.c; do
    object="$work_dir/obj/$(basename "$source" .c).o"
    # shellcheck disable=SC2086
    "$cc" $flags -I"$source_dir/include" -I"$source_dir/src" -c "$source" -o "$object" ||
        fail "cannot compile $source"
done

status=0
for target in $targets; do
    # the grid loader's target, its fixtures; or a mesh importer's, with the mesh fixtures
    if [ "$target" = grid ]; then
        name=fuzz_grid
        fixtures="$source_dir/tests/data/grid"
    elif [ "$target" = step ]; then
        name=fuzz_step
        fixtures="$source_dir/tests/data/step"
    elif [ "$target" = cli ]; then
        name=fuzz_cli
        fixtures="$source_dir/tests/data/mesh/cli"
    else
        name=fuzz_mesh_$target
        fixtures="$source_dir/tests/data/mesh"
    fi
    binary="$work_dir/bin/$name"
    extra=""
    [ "$target" = cli ] && extra="$source_dir/tools/cli_options.c"
    # shellcheck disable=SC2086
    "$cc" $flags -fsanitize=fuzzer -I"$source_dir/include" -I"$source_dir/tools" "$source_dir/tests/fuzz/$name.c" \
        $extra "$work_dir"/obj/*.o -lm -o "$binary" || fail "cannot build $binary"

    # seeds: the fixtures of this format (valid and malformed)
    seeds="$work_dir/seeds/$target"
    corpus="$work_dir/corpus/$target"
    mkdir -p "$seeds" "$corpus"
    for fixture in "$fixtures"/*."$target" "$fixtures"/*.oscgrid "$fixtures"/crashers/*; do
        [ -f "$fixture" ] && cp "$fixture" "$seeds/"
    done
    dictionary="$source_dir/tests/fuzz/mesh_$target.dict"
    [ -f "$dictionary" ] || dictionary="$source_dir/tests/fuzz/$target.dict"
    dict_option=""
    [ -f "$dictionary" ] && dict_option="-dict=$dictionary"

    echo "fuzz_mesh.sh: fuzzing $target for $seconds s"
    log="$work_dir/logs/fuzz_$target.log"
    # -timeout: a hang, not a slow valid input: the slowest STEP input found (a degree-14 rational
    # edge off its B-spline face, tests/data/step/crashers/slow_degree14_off_face.step, refused at
    # the reader's work budget) takes 0.25 s a read, 16 s of CPU for the target's two reads under
    # AddressSanitizer and UndefinedBehaviorSanitizer; the limit counts wall time, and on a machine
    # loaded 10 times over (load 20 on 2 cores) its mutations reached 84 s and were reported
    # shellcheck disable=SC2086
    "$binary" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=2048 -max_len=16384 \
        $dict_option -artifact_prefix="$work_dir/artifacts/$target-" \
        -print_final_stats=1 "$corpus" "$seeds" >"$log" 2>&1
    code=$?
    grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$log" | tail -n 2
    if [ $code -ne 0 ]; then
        echo "fuzz_mesh.sh: $name FAILED (exit $code); the end of $log:" >&2
        tail -n 40 "$log" >&2
        status=1
    fi

    # regression: every crasher and every fixture of this kind, through this target
    replayed=0
    crashers=0
    for input in "$fixtures"/crashers/* "$fixtures"/*.obj "$fixtures"/*.stl "$fixtures"/*.off "$fixtures"/*.ply \
        "$fixtures"/*.oscgrid "$fixtures"/*.step "$fixtures"/*.cli; do
        [ -f "$input" ] || continue
        if ! "$binary" "$input" >"$work_dir/logs/replay.log" 2>&1; then
            echo "fuzz_mesh.sh: $name fails on $input:" >&2
            tail -n 30 "$work_dir/logs/replay.log" >&2
            status=1
        fi
        replayed=$((replayed + 1))
        case "$input" in */crashers/*) crashers=$((crashers + 1)) ;; esac
    done
    echo "fuzz_mesh.sh: replayed $replayed files ($crashers crashers) through $name"
    # nothing replayed means the fixtures were not found: a wrong SOURCE_DIR, not a pass (the mesh
    # importers have crashers to replay; the grid loader, the STEP importer and the option parser
    # may have none)
    if [ $((replayed - crashers)) -eq 0 ] ||
        { [ "$target" != grid ] && [ "$target" != step ] && [ "$target" != cli ] && [ $crashers -eq 0 ]; }; then
        echo "fuzz_mesh.sh: no crashers or no fixtures under $fixtures" >&2
        status=1
    fi
done
[ $status -eq 0 ] && echo "fuzz_mesh.sh: all targets passed"
exit $status
