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
