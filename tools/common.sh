# SPDX-License-Identifier: GPL-2.0
# Shared settings and helpers for the tools/ scripts.  Sourced, not run.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# All build state lives outside the repository, under one directory.
NETFS_WORK=${NETFS_WORK:-/var/tmp/netfs-kunit}
# Debian's source package and the tarball it installs.
SRC_PKG=linux-source-6.1
SRC_TARBALL=/usr/src/linux-source-6.1.tar.xz

GIT_DIR_PRISTINE=$NETFS_WORK/linux.git

PROG=$(basename "$0")

die() {
	printf '\n%s: error: %s\n' "$PROG" "$*" >&2
	exit 1
}

# die with a preformatted paragraph on stdin
die_para() {
	printf '\n%s: error:\n' "$PROG" >&2
	sed 's/^/  /' >&2
	exit 1
}

msg() {
	printf '%s: %s\n' "$PROG" "$*"
}

# mode_dirs MODE -> sets SRC, BUILD, RESULTS for "patched" or "baseline"
mode_dirs() {
	case "$1" in
	patched)  SRC=$NETFS_WORK/src;          BUILD=$NETFS_WORK/build ;;
	baseline) SRC=$NETFS_WORK/src-baseline; BUILD=$NETFS_WORK/build-baseline ;;
	*) die "unknown mode '$1' (expected 'patched' or 'baseline')" ;;
	esac
	RESULTS=$NETFS_WORK/results/$1
}

# kunit.py's configuration of a mode's kernel: .kunitconfig for the suites,
# plus tools/e2e.config, so that the same build serves the KUnit run
# (run-kunit) and the end-to-end boot (e2e-run).  Run kunit.py from $SRC.
KUNIT_CONFIG=(--arch=x86_64 --kunitconfig="$REPO/.kunitconfig"
	      --kunitconfig="$REPO/tools/e2e.config")

# Outer bound, in seconds, for one boot of a test kernel.  A stuck e2e boot
# is stopped well before by tools/e2e-boot.py's progress watchdog.
TIMEOUT=${TIMEOUT:-1800}

# shared_libs FILE: the shared libraries FILE loads (the loader included),
# a path a line, as this host's ldd finds them; fails, naming them, if the
# host lacks any.  Call it as an assignment (libs=$(shared_libs F)), so
# that under set -e its failure stops the caller.
shared_libs() {
	local out
	out=$(ldd "$1") || die "ldd $1 failed"
	if grep -q 'not found' <<< "$out"; then
		grep 'not found' <<< "$out" | sed 's/^/    /' >&2
		die "$1 needs libraries this host lacks: run 'make deps' (as root)"
	fi
	awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<< "$out"
}

# lock_build: hold $BUILD's lock until the script exits, so that two runs of
# one mode (make run and make e2e, say) never build in one directory at once.
lock_build() {
	mkdir -p "$BUILD"
	exec 9>"$BUILD/.netfs-lock"
	if ! flock -n 9; then
		msg "another run is using $BUILD: waiting for it to finish"
		flock 9
	fi
}
