#!/bin/sh
# Installs the build tree into a temporary prefix, then builds and runs a consumer through the CMake
# package config (shared and static) and through pkg-config.
#   usage: install_consumer.sh <build dir> <source dir> <work dir> <cmake generator>
set -eu
build=$1 source=$2 work=$3 generator=$4
rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
test -f "$prefix/include/osculate/osculate.h"
cmake -S "$source/tests/install" -B "$work/consumer" -G "$generator" -DCMAKE_PREFIX_PATH="$prefix" > "$work/configure.log"
cmake --build "$work/consumer" > "$work/build.log"
LD_LIBRARY_PATH="$prefix/lib:$prefix/lib64:${LD_LIBRARY_PATH:-}" "$work/consumer/consumer_shared"
"$work/consumer/consumer_static"
if ! command -v pkg-config >/dev/null 2>&1; then
    echo "install_consumer: pkg-config is not installed; .ci/run installs it" >&2
    exit 1
fi
pc_dir=$(dirname "$(find "$prefix" -name osculate.pc | head -n 1)")
flags=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs osculate)
cc -std=c11 "$source/tests/install/consumer.c" $flags -lm -o "$work/consumer_pkgconfig"
LD_LIBRARY_PATH="$prefix/lib:$prefix/lib64:${LD_LIBRARY_PATH:-}" "$work/consumer_pkgconfig"
echo "install_consumer: CMake package (shared, static) and pkg-config consumers ok"
