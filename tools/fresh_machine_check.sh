#!/bin/sh
# fresh_machine_check.sh: runs the README's quick start (`make demo`, then `make test`) from a fresh
# clone on a fresh Debian 12 system that has only what the quick start names: a C compiler, CMake
# and make (Debian's build-essential and cmake; nothing else). The system is made with debootstrap
# (variant minbase) in a folder and entered with chroot; the commands run as an ordinary user, so
# that whatever the tests need beyond that must be fetched without root (tools/fetch_deps.sh and
# friends, PyPI wheels in a virtual environment) or be skipped with a one-line note.
#
#   usage: sudo sh tools/fresh_machine_check.sh [--python] [--ref REF] [--work DIR] [--log FILE]
#
#   --python   also install Debian's python3 (no venv module, NumPy or PyTorch) into the fresh system
#              after the first `make test`, and run `make test` again: the Python part then fetches its
#              own pip, NumPy, JAX, a CPU PyTorch and pytest from PyPI and runs the Python suite
#   --ref REF  the commit to check (default HEAD of this repository; uncommitted changes are not seen)
#   --work DIR where the systems live (default /var/tmp/osculate-fresh): DIR/base is the bootstrapped
#              system with build-essential and cmake, made once and reused; DIR/root is a fresh copy
#              of it for each run, removed at the start of the next
#   --log FILE the log, also printed (default DIR/fresh_machine_check.log)
#
# Needs root (debootstrap, chroot, mounts), a Debian mirror through apt's sources and about 3 GB.
# The time each step took is logged; the last lines give the summary.
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
ref=HEAD
work=/var/tmp/osculate-fresh
log=""
python=0
suite=bookworm
while [ $# -gt 0 ]; do
    case "$1" in
        --python) python=1 ;;
        --ref) ref=${2:?--ref needs a commit}; shift ;;
        --work) work=${2:?--work needs a folder}; shift ;;
        --log) log=${2:?--log needs a file}; shift ;;
        -h | --help) sed -n '2,22p' "$0"; exit 0 ;;
        *) echo "fresh_machine_check: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
[ "$(id -u)" -eq 0 ] || { echo "fresh_machine_check: run as root (debootstrap, chroot)" >&2; exit 2; }
mkdir -p "$work"
work=$(cd "$work" && pwd)
log=${log:-$work/fresh_machine_check.log}
base="$work/base"
root="$work/root"
: >"$log"

say() { echo "$*" | tee -a "$log"; }
now() { date +%s; }
# step NAME COMMAND...: runs the command with its output in the log, says how long it took
step() {
    name=$1
    shift
    say "== $name"
    start=$(now)
    if "$@" >>"$log" 2>&1; then
        took=$(($(now) - start))
        say "   $name: ok in ${took} s"
        summary="$summary
$name: ok in ${took} s"
    else
        code=$?
        took=$(($(now) - start))
        say "   $name: FAILED (exit $code) after ${took} s; the end of $log:"
        tail -n 60 "$log"
        exit 1
    fi
}
summary=""

mounted=""
cleanup() {
    for m in $mounted; do umount -l "$m" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' HUP INT TERM

# the base system: minbase (apt, dpkg, coreutils) plus the quick start's tools; made once
make_base() {
    command -v debootstrap >/dev/null 2>&1 || apt-get install -y -qq debootstrap
    rm -rf "$base.tmp"
    debootstrap --variant=minbase "$suite" "$base.tmp" http://deb.debian.org/debian
    cp /etc/resolv.conf "$base.tmp/etc/resolv.conf"
    chroot "$base.tmp" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin sh -c 'apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends build-essential cmake &&
        useradd --create-home --shell /bin/sh user'
    mv "$base.tmp" "$base"
}

fresh_root() {
    [ -d "$base" ] || make_base
    rm -rf "$root"
    cp -a "$base" "$root"
    # this machine's network: its resolver and the site's own certificate authorities (an
    # intercepting proxy's), where an administrator would have put them
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
        mkdir -p "$root/usr/local/share/ca-certificates"
        cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
    fi
    for m in proc dev dev/pts; do
        mount --bind "/$m" "$root/$m"
        mounted="$root/$m $mounted"
    done
    # a fresh clone of the commit under test (made outside: git is not among the quick start's
    # tools), owned by the user
    commit=$(git -C "$repo" rev-parse --verify "$ref^{commit}")
    git clone -q --no-checkout "$repo" "$root/home/user/osculate"
    git -C "$root/home/user/osculate" -c advice.detachedHead=false checkout -q "$commit"
    chroot "$root" chown -R user:user /home/user/osculate
    facts="commit $commit; $(chroot "$root" cc --version | head -n 1); $(chroot "$root" cmake --version | head -n 1)
absent: $(for t in clang python3 pkg-config ninja git; do chroot "$root" sh -c "command -v $t" >/dev/null 2>&1 || printf '%s ' "$t"; done)"
}
facts=""

# as_user COMMAND: runs COMMAND in the clone as the ordinary user, with the output in the log
as_user() {
    chroot "$root" /usr/bin/env -i TERM=dumb su - user -c "cd /home/user/osculate && $1"
}

total_start=$(now)
step "fresh Debian $suite system (debootstrap minbase + build-essential cmake)" fresh_root
say "$facts"
step "make demo" as_user "make demo"
step "make test" as_user "make test"
if [ "$python" = 1 ]; then
    step "apt-get install python3 (as root; nothing else)" chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin sh -c \
        'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3'
    step "make test (with python3)" as_user "make test"
fi
say ""
say "fresh_machine_check: passed in $(($(now) - total_start)) s
$facts$summary"
