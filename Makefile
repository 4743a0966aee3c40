# SPDX-License-Identifier: GPL-2.0
#
# netfs-kunit: see README.md.  Everything is built outside the repository,
# under $(NETFS_WORK).
#
# Variables:
#   NETFS_WORK  work directory (default /var/tmp/netfs-kunit)
#   BASELINE=1  run against upstream's implementation (glue patches only)
#   FILTER      kunit.py filter glob: 'suite' or 'suite.case'
#   JOBS        parallel build jobs (default: number of CPUs)
#   TIMEOUT     outer bound in seconds for one boot of a test kernel (default 1800)
#   E2E_FILTER  make e2e: only the cases matching these globs ('a*,b')
#   E2E_BIG_MIB make e2e: size of the big test file in MiB (default 64)
#   E2E_SLOWDOWN make e2e: give QEMU 1/N of the CPU time (a machine N times slower)
#   E2E_CMDLINE make e2e: more kernel arguments (e2e_hang=NAME: see tools/e2e/init)
#   SEED        make soak: netfs_random's seed (default 1, as in make test)
#   COUNT       make soak: how many scenarios (default 20000)
#   VERBOSE=1   make bench: also where each inline read row's time goes

NETFS_WORK ?= /var/tmp/netfs-kunit
export NETFS_WORK FILTER JOBS TIMEOUT INJECT E2E_FILTER E2E_BIG_MIB E2E_SLOWDOWN E2E_CMDLINE VERBOSE

MODE := $(if $(filter 1 y yes,$(BASELINE)),baseline,patched)

.PHONY: all run e2e test check bench soak build-users deps prepare export clean distclean help

all: run

help:
	@sed -n '/^# Variables:/,/^$$/p' Makefile
	@echo 'Targets: run e2e test check bench soak build-users prepare export clean distclean deps'

deps:
	@tools/install-deps

prepare: deps
	@tools/prepare-tree $(MODE)

run: deps
	@tools/run-kunit $(MODE); rc=$$?; tools/summary $(MODE) && exit $$rc

e2e: deps
	@tools/e2e-run $(MODE); rc=$$?; tools/summary e2e-$(MODE) && exit $$rc

test:
	@tools/test-all $(if $(filter baseline,$(MODE)),baseline-only)

check: deps
	@tools/check

bench: deps
	@tools/bench

# netfs_random alone, any seed and count; the boot's bound grows with COUNT
soak: deps
	@count=$(or $(COUNT),20000); \
	RANDOM_SEED=$(or $(SEED),1) RANDOM_COUNT=$$count FILTER=netfs_random \
		TIMEOUT=$${TIMEOUT:-$$(( count / 10 + 900 ))} tools/run-kunit $(MODE); \
		rc=$$?; tools/random-cases $(MODE); tools/summary $(MODE) && exit $$rc

build-users: deps
	@tools/build-users $(MODE)

export:
	@tools/export-patches

clean:
	rm -rf $(NETFS_WORK)/build $(NETFS_WORK)/build-baseline \
		$(NETFS_WORK)/build-bench $(NETFS_WORK)/build-baseline-bench \
		$(NETFS_WORK)/build-users $(NETFS_WORK)/build-users-baseline \
		$(NETFS_WORK)/e2e \
		$(NETFS_WORK)/results

distclean:
	@case "$(abspath $(NETFS_WORK))" in \
	/|$(abspath $(HOME))|$(CURDIR)|$(CURDIR)/*) \
		echo "distclean: refusing to remove NETFS_WORK=$(NETFS_WORK)"; exit 1;; esac
	rm -rf $(NETFS_WORK)
