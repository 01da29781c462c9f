#!/bin/sh
# Installs the build tree into a temporary prefix, then builds and runs a consumer (tests/install/)
# the way a downstream project would, adding no flags by hand:
#   cmake:     through the CMake package config (find_package; shared and static targets), at -O0
#              and -O2; the installed package must name no path of this build machine
#   pkgconfig: through `pkg-config --cflags --libs osculate` against the shared library and
#              `pkg-config --static` against a prefix holding only the static one, at -O0 and -O2
#              (the consumer calls math.h's inline helpers, so -lm must come from the .pc file).
#              Without pkg-config it says so in one line and exits 77 (CTest: skipped), unless
#              OSC_STRICT=1 (CI)
#   usage: install_consumer.sh <build dir> <source dir> <work dir> <cmake generator> cmake|pkgconfig
set -eu
build=$1 source=$2 work=$3 generator=$4 mode=$5
if [ "$mode" = pkgconfig ] && ! command -v pkg-config >/dev/null 2>&1; then
    if [ "${OSC_STRICT:-0}" = 1 ]; then
        echo "install_consumer: pkg-config is not installed (OSC_STRICT=1)" >&2
        exit 1
    fi
    echo "install_consumer: SKIPPED: pkg-config is not installed (Debian: apt install pkg-config)"
    exit 77
fi
rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
test -f "$prefix/include/osculate/osculate.h"
run_shared() { LD_LIBRARY_PATH="$prefix/lib:$prefix/lib64:${LD_LIBRARY_PATH:-}" "$@"; }

if [ "$mode" = cmake ]; then
    # the exported targets and config: no absolute path of this machine (the build tree, the source
    # tree, a system library); dependencies are found again with find_dependency
    config_dir=$(dirname "$(find "$prefix" -name osculateConfig.cmake | head -n 1)")
    if grep -n -E "(^|[\";[:space:]])/(usr|lib|opt|home|root|work|tmp)/" "$config_dir"/*.cmake; then
        echo "install_consumer: the installed CMake package names absolute paths (above)" >&2
        exit 1
    fi
    for opt in 0 2; do
        cmake -S "$source/tests/install" -B "$work/consumer-O$opt" -G "$generator" -DCMAKE_PREFIX_PATH="$prefix" \
            -DCMAKE_BUILD_TYPE=None -DCMAKE_C_FLAGS="-O$opt" >"$work/configure-O$opt.log"
        cmake --build "$work/consumer-O$opt" >"$work/build-O$opt.log"
        run_shared "$work/consumer-O$opt/consumer_shared"
        "$work/consumer-O$opt/consumer_static"
    done
    echo "install_consumer: CMake package consumers (shared, static; -O0, -O2) ok"
    exit 0
fi

# pkg-config: shared, then static from a prefix without the shared library (as a static-only
# install would be), so that -losculate must pick libosculate.a and --static must bring the rest
pc_dir=$(dirname "$(find "$prefix" -name osculate.pc | head -n 1)")
static_prefix="$work/static-prefix"
cp -a "$prefix" "$static_prefix"
find "$static_prefix" -name 'libosculate.so*' -exec rm -f {} +
static_pc_dir=$(dirname "$(find "$static_prefix" -name osculate.pc | head -n 1)")
shared_flags=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs osculate)
static_flags=$(PKG_CONFIG_PATH="$static_pc_dir" pkg-config --static --cflags --libs osculate)
echo "install_consumer: pkg-config --libs: $shared_flags"
echo "install_consumer: pkg-config --static --libs: $static_flags"
for opt in 0 2; do
    # shellcheck disable=SC2086 # the flags are a list
    cc -std=c11 -O$opt "$source/tests/install/consumer.c" $shared_flags -o "$work/consumer_pkgconfig-O$opt"
    run_shared "$work/consumer_pkgconfig-O$opt"
    # shellcheck disable=SC2086
    cc -std=c11 -O$opt "$source/tests/install/consumer.c" $static_flags -o "$work/consumer_pkgconfig_static-O$opt"
    "$work/consumer_pkgconfig_static-O$opt"
done
echo "install_consumer: pkg-config consumers (shared, static; -O0, -O2) ok"
