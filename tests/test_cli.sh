#!/bin/sh
# test_cli.sh: the osculate program's behaviour on unusual input (tools/osculate.c, cli_options.c,
# cli_models.c): help and exit statuses, outputs that would overwrite an input, devices, degenerate
# and inverted meshes, stray slivers, and the default scale of bodies of different sizes.
#
# usage: test_cli.sh OSCULATE SOURCE_DIR WORK_DIR
# Each case prints "ok" or "FAILED: why"; the exit status is the number of failures (capped at 1).

set -u
cli=${1:?usage: test_cli.sh OSCULATE SOURCE_DIR WORK_DIR}
source_dir=${2:?usage: test_cli.sh OSCULATE SOURCE_DIR WORK_DIR}
work=${3:?usage: test_cli.sh OSCULATE SOURCE_DIR WORK_DIR}
case $cli in /*) ;; *) cli="$(pwd)/$cli" ;; esac
case $source_dir in /*) ;; *) source_dir="$(pwd)/$source_dir" ;; esac
mkdir -p "$work" || exit 1
cd "$work" || exit 1
bunny="$source_dir/data/bunny.obj"
fixtures="$source_dir/tests/data/mesh"
failures=0

# run ARGS...: runs the program; $status, and its output in out.txt / err.txt
run() {
    "$cli" "$@" >out.txt 2>err.txt
    status=$?
}

fail() {
    echo "  FAILED: $*"
    echo "    stdout: $(head -c 400 out.txt)"
    echo "    stderr: $(head -c 400 err.txt)"
    failures=$((failures + 1))
}

# expect STATUS FILE PATTERN NAME: the last run exited with STATUS and FILE matches PATTERN
expect() {
    if [ "$status" -ne "$1" ]; then
        fail "$4: exit status $status, expected $1"
    elif ! grep -q -e "$3" "$2"; then
        fail "$4: '$3' not in $2"
    else
        echo "  ok: $4"
    fi
}

# the value of "key": NUMBER in a JSON file (the first)
json_value() {
    sed -n "s/.*\"$1\": \\([-0-9.e+]*\\).*/\\1/p" "$2" | head -n 1
}

echo "help: every command, exit status 0, the usage on stdout"
for args in "--help" "-h" "help" "help bake" "version --help" "info --help" "eval --help" "bake --help" \
    "contact --help" "box-sweep --help" "bake x.obj --help"; do
    # shellcheck disable=SC2086
    run $args
    expect 0 out.txt "usage: osculate" "osculate $args"
done
run
expect 2 err.txt "usage: osculate" "no command: usage on stderr, exit 2"
run frobnicate
expect 2 err.txt "unknown command 'frobnicate'" "an unknown command"
run version extra
expect 2 err.txt "takes no arguments" "version with an argument"

echo "bake refuses to overwrite its input"
cp "$bunny" input.obj
ln -sf input.obj link.obj
ln -f input.obj hard.obj
before=$(cksum <input.obj)
for out in input.obj ./input.obj link.obj hard.obj; do
    run bake input.obj "$out" --resolution 8
    expect 1 err.txt "will not overwrite its input" "bake input.obj $out"
done
[ "$(cksum <input.obj)" = "$before" ] && echo "  ok: input.obj unchanged" || fail "input.obj was changed"
run contact input.obj "$bunny" --json link.obj --resolution 8
expect 1 err.txt "will not overwrite an input" "contact --json naming an input"
run contact input.obj "$bunny" --obj same.obj --scene same.obj --resolution 8
expect 1 err.txt "two outputs name the same file" "contact with two outputs on one file"
[ "$(cksum <input.obj)" = "$before" ] && echo "  ok: input.obj still unchanged" || fail "input.obj was changed"

echo "devices and endless streams are refused with a message, exit status 1"
run contact /dev/zero "$bunny" --resolution 8
expect 1 err.txt "not a regular file" "contact /dev/zero"
run bake /dev/zero zero.grid
expect 1 err.txt "not a regular file" "bake /dev/zero"
run contact "$bunny" /dev/null --resolution 8
expect 1 err.txt "not a regular file" "contact /dev/null"

echo "zero-area facets: refused by default, dropped and counted with --degenerate drop"
run bake "$fixtures/bad_stl_binary_degenerate.stl" degenerate.grid --resolution 8
expect 1 err.txt "degenerate face" "bake, default"
run bake "$fixtures/bad_stl_binary_degenerate.stl" degenerate.grid --resolution 8 --degenerate drop
expect 0 out.txt '"degenerate_faces_dropped": 1' "bake --degenerate drop (JSON)"
expect 0 err.txt "degenerate faces dropped: 1" "bake --degenerate drop (remark)"
run contact "$fixtures/bad_stl_binary_degenerate.stl" "$fixtures/box.obj" --degenerate drop --resolution 8 \
    --mesh-resolution 16 --json degenerate.json
expect 0 err.txt "degenerate faces dropped: 1" "contact --degenerate drop (remark)"
expect 0 out.txt "1 degenerate faces dropped" "contact --degenerate drop (summary)"
run bake x.stl y.grid --degenerate maybe
expect 2 err.txt "neither drop nor refuse" "--degenerate with a bad value"

echo "an inverted mesh is turned outward and said so; its contacts are a cube's"
# the unit cube [0, 1]^3, counter-clockwise seen from outside, as it is and inverted
cube_vertices="v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1"
cube_faces="f 1 3 2
f 1 4 3
f 1 2 6
f 1 6 5
f 2 3 7
f 2 7 6
f 3 4 8
f 3 8 7
f 4 1 5
f 4 5 8
f 5 6 7
f 5 7 8"
printf '%s\n%s\n' "$cube_vertices" "$cube_faces" >cube.obj
printf '%s\n%s\n' "$cube_vertices" "$cube_faces" | sed 's/^f \([0-9]*\) \([0-9]*\) \([0-9]*\)$/f \1 \3 \2/' >inverted.obj
run contact inverted.obj cube.obj --pose-b "0.5 0 0 1 0 0 0" --resolution 16 --mesh-resolution 16 --json inverted.json
expect 0 err.txt "triangles turned to face outward: 12 of 12" "contact of an inverted cube (remark)"
expect 0 out.txt "12 triangles turned outward" "contact of an inverted cube (summary)"
penetrating=$(json_value penetrating inverted.json)
[ "${penetrating:-0}" -gt 0 ] && echo "  ok: the inverted cube penetrates the other ($penetrating contacts)" ||
    fail "the inverted cube does not penetrate the other"
printf '%s\n%s\n' "$cube_vertices" "$cube_faces" | head -n 18 >open.obj # without the top face: open
run contact open.obj cube.obj --pose-b "0.5 0 0 1 0 0 0" --resolution 16 --mesh-resolution 16 --json open.json
# (its spline's sign jumps across the hole, which osc_body_create may then refuse: the warning comes first)
grep -q "a: warning: the SDF's sign cannot be trusted everywhere: open (4 boundary edges)" err.txt &&
    echo "  ok: contact of an open cube warns" || fail "contact of an open cube: no warning"

echo "a stray vertex (a sliver to 100 units away) leaves the settings as they are without it"
vertices=$(grep -c '^v ' "$bunny")
{ cat "$bunny"; echo "v 100 0 0"; echo "f 1 2 $((vertices + 1))"; } >stray.obj
run contact "$bunny" "$bunny" --resolution 24 --mesh-resolution 32 --json clean.json
expect 0 out.txt "settings" "the bunny"
run contact stray.obj stray.obj --resolution 24 --mesh-resolution 32 --json stray.json
expect 0 err.txt "stray sliver triangles dropped: 1" "the bunny with a stray vertex"
for key in d_max bandwidth trace_temperature scale count; do
    clean=$(json_value "$key" clean.json)
    strayed=$(json_value "$key" stray.json)
    [ -n "$clean" ] && [ "$clean" = "$strayed" ] && echo "  ok: $key $clean" || fail "$key: $strayed with the stray vertex, $clean without"
done

echo "a small body touching a large one lightly: d_max from the small one, tens of contacts, not thousands"
run contact "$fixtures/cli/sphere.obj" "$fixtures/cli/slab.obj" --pose-a "0 1.01 0 1 0 0 0" --json touch.json
expect 0 out.txt "the size of a" "sphere on a slab"
count=$(json_value count touch.json)
d_max=$(json_value d_max touch.json)
scale=$(json_value scale touch.json)
[ "${count:-100000}" -lt 100 ] && echo "  ok: $count contacts" || fail "$count contacts for a light touch"
[ -n "$scale" ] && awk -v s="$scale" 'BEGIN { exit !(s > 1.9 && s < 2.1) }' && echo "  ok: scale $scale (the sphere's diameter)" ||
    fail "scale $scale, not the sphere's diameter"
[ -n "$d_max" ] && awk -v d="$d_max" -v s="$scale" 'BEGIN { exit !((d - 0.02 * s) ^ 2 < 1e-20 * s * s) }' &&
    echo "  ok: d_max $d_max" || fail "d_max $d_max, not 2% of $scale"

[ $failures -eq 0 ] && echo "test_cli.sh: all passed" && exit 0
echo "test_cli.sh: $failures failed"
exit 1
