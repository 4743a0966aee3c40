// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs_write_begin: the suite of netfs_write_begin(), through
 * kernel_write().  write_begin grabs order-0 folios in 6.1 whatever the
 * mapping allows, so most of these run with small folios only; a large
 * folio comes only from a readahead before the write (pre_failed).
 *
 * Each entry is one scenario (struct nk_scenario in netfs_kunit.h): the
 * file, the operation, the fake server's and the fake cache's scripts, and
 * what must be seen afterwards.  After each run the harness checks the
 * page cache byte for byte, the folio states, the calls the fakes saw and
 * the request bookkeeping.  Adding a regression case is adding one entry.
 */

#include <linux/sizes.h>

#include "netfs_kunit.h"

static const struct nk_scenario write_begin_scenarios[] = {
	{ .name = "whole_folio", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 2 * PG,
	  .len = PG, .folios = SMALL_ONLY,
	  .expect = { .cwb_calls = NK_ANY, .server_calls = 0 } },
	{ .name = "partial_in_file", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 2 * PG + 100, .len = 200, .folios = SMALL_ONLY,
	  .expect = { .cwb_calls = NK_ANY, .server_calls = 1,
		      .calls = { NK_CALL(2 * PG, PG) } } },
	{ .name = "beyond_eof_fresh_folio", .size = 2 * PG, .op = NK_OP_WRITE,
	  .pos = 3 * PG + 100, .len = 100, .folios = SMALL_ONLY,
	  .expect = { .cwb_calls = NK_ANY, .server_calls = 0 } },
	{ .name = "beyond_eof_after_data", .size = 5000, .op = NK_OP_WRITE,
	  .pos = 6000, .len = 100, .folios = SMALL_ONLY,
	  .expect = { .cwb_calls = NK_ANY, .server_calls = 1,
		      .calls = { NK_CALL(PG, 5000 - PG) } } },
	{ .name = "from_folio_start_past_eof", .size = 5000, .op = NK_OP_WRITE,
	  .pos = PG, .len = 2000, .folios = SMALL_ONLY,
	  .expect = { .cwb_calls = NK_ANY, .server_calls = 0 } },
	/* from the folio's start to exactly EOF: nothing to read */
	{ .name = "to_eof_from_folio_start", .size = 2 * PG + 1000,
	  .op = NK_OP_WRITE, .pos = 2 * PG, .len = 1000, .folios = SMALL_ONLY,
	  .expect = { .server_calls = 0, .cwb_calls = 1 } },
	{ .name = "to_one_short_of_eof", .size = 2 * PG + 1000,
	  .op = NK_OP_WRITE, .pos = 2 * PG, .len = 999, .folios = SMALL_ONLY,
	  .expect = { .server_calls = 1, .calls = { NK_CALL(2 * PG, 1000) },
		      .cwb_calls = 1 } },
	{ .name = "to_one_past_eof", .size = 2 * PG + 1000,
	  .op = NK_OP_WRITE, .pos = 2 * PG, .len = 1001, .folios = SMALL_ONLY,
	  .expect = { .server_calls = 0, .cwb_calls = 1 } },
	{ .name = "across_folios", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 4000,
	  .len = 5000, .folios = SMALL_ONLY,
	  .expect = { .cwb_calls = NK_ANY, .server_calls = 2,
		      .calls = { NK_CALL(0, PG), NK_CALL(2 * PG, PG) } } },
	{ .name = "beyond_4gib", .size = SZ_4G + SZ_1G, .op = NK_OP_WRITE,
	  .pos = SZ_4G + 100, .len = 200, .folios = SMALL_ONLY,
	  .expect = { .cwb_calls = NK_ANY, .server_calls = 1,
		      .calls = { NK_CALL(SZ_4G, PG) } } },
	{ .name = "check_write_begin_regrab", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 2 * PG + 100, .len = 200, .folios = SMALL_ONLY,
	  .server = { .cwb_regrab = 1 },
	  .expect = { .server_calls = 1, .cwb_calls = 2 } },
	{ .name = "check_write_begin_error", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 2 * PG + 100, .len = 200, .folios = SMALL_ONLY,
	  .server = { .cwb_error = -EIO },
	  .expect = { .error = -EIO, .server_calls = 0, .cwb_calls = 1,
		      .bad = NK_RANGE(2 * PG, 1) } },
	/* ceph's pattern: the folio is gone when the error comes back */
	{ .name = "check_write_begin_drops_and_fails", .size = SZ_64K,
	  .op = NK_OP_WRITE, .pos = 2 * PG + 100, .len = 200,
	  .folios = SMALL_ONLY, .server = { .cwb_error = -EIO,
					    .cwb_drop = true },
	  .expect = { .error = -EIO, .server_calls = 0, .cwb_calls = 1,
		      .bad = NK_RANGE(2 * PG, 1) } },
	/* ceph's -EAGAIN: the folio is gone, the write is to be retried */
	{ .name = "check_write_begin_eagain", .size = SZ_64K,
	  .op = NK_OP_WRITE, .pos = 2 * PG + 100, .len = 200,
	  .folios = SMALL_ONLY, .server = { .cwb_error = -EAGAIN,
					    .cwb_drop = true },
	  .expect = { .error = -EAGAIN, .server_calls = 0, .cwb_calls = 1,
		      .bad = NK_RANGE(2 * PG, 1) } },
	{ .name = "init_request_error", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 2 * PG + 100, .len = 200, .folios = SMALL_ONLY,
	  .server = { .init_error = -ENOMEM },
	  .expect = { .cwb_calls = NK_ANY, .error = -ENOMEM, .server_calls = 0,
		      .bad = NK_RANGE(2 * PG, 1) } },
	{ .name = "begin_cache_enomem", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 2 * PG + 100, .len = 200, .folios = SMALL_ONLY,
	  .cache = { .begin_error = -ENOMEM },
	  .expect = { .cwb_calls = NK_ANY, .error = -ENOMEM, .server_calls = 0,
		      .bad = NK_RANGE(2 * PG, 1) } },
	{ .name = "begin_cache_eintr", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 2 * PG + 100, .len = 200, .folios = SMALL_ONLY,
	  .cache = { .begin_error = -EINTR },
	  .expect = { .cwb_calls = NK_ANY, .error = -EINTR, .server_calls = 0,
		      .bad = NK_RANGE(2 * PG, 1) } },
	{ .name = "begin_cache_erestartsys", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 2 * PG + 100, .len = 200, .folios = SMALL_ONLY,
	  .cache = { .begin_error = -ERESTARTSYS },
	  .expect = { .cwb_calls = NK_ANY, .error = -ERESTARTSYS,
		      .server_calls = 0,
		      .bad = NK_RANGE(2 * PG, 1) } },
	{ .name = "begin_cache_enobufs", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 2 * PG + 100, .len = 200, .folios = SMALL_ONLY,
	  .cache = { .begin_error = -ENOBUFS },
	  .expect = { .cwb_calls = NK_ANY, .server_calls = 1,
		      .calls = { NK_CALL(2 * PG, PG) } } },
	/* the read for the write grows to what expand_readahead asks */
	{ .name = "expanded", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 2 * PG + 100, .len = 200, .folios = SMALL_ONLY,
	  .server = { .expand = SZ_16K, .expand_how = NK_EXPAND_BOTH },
	  .expect = { .cwb_calls = NK_ANY, .server_calls = 1,
		      .request = NK_RANGE(0, SZ_16K),
		      .calls = { NK_CALL(0, SZ_16K) } } },
	/*
	 * With the cache enabled, the folio is read through it (and copied
	 * to it), and write_begin waits for the copy before it returns: the
	 * cache holds the server's bytes, not the write's (the fake cache
	 * takes its data when the copy completes).
	 */
	{ .name = "through_cache_miss", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 2 * PG + 100, .len = 200, .folios = SMALL_ONLY,
	  .cache = { .on = true, .cookie = true },
	  .expect = { .cache_reads = NK_ANY, .cwb_calls = NK_ANY,
		      .server_calls = 1, .calls = { NK_CALL(2 * PG, PG) },
		      .cache_writes = 1, .writes = { NK_RANGE(2 * PG, PG) },
		      .cached = NK_RANGE(2 * PG, PG) } },
	{ .name = "through_cache_hit", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 2 * PG + 100, .len = 200, .folios = SMALL_ONLY,
	  .cache = { .on = true, .cookie = true,
		     .held = { NK_RANGE(0, SZ_64K) } },
	  .expect = { .cwb_calls = NK_ANY, .server_calls = 0, .cache_reads = 1,
		      .cache_writes = 0 } },
	{ .name = "waits_for_its_read", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 2 * PG + 100, .len = 200, .folios = SMALL_ONLY,
	  .server = { .hold = 1 },
	  .expect = { .cwb_calls = NK_ANY, .server_calls = 1,
		      .calls = { NK_CALL(2 * PG, PG) } } },
	/*
	 * Into a folio that a failed readahead left in the page cache, not
	 * uptodate, at a page past its first: the whole folio is read, and
	 * the page at pos is the one written.  Upstream bug F12 in the large
	 * folio cases: kunit/known-upstream-failures.
	 */
	{ .name = "into_failed_large_folio", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = SZ_16K + PG + 100, .len = 200,
	  .folios = NK_ONLY(NK_FOLIOS_LARGE),
	  .pre = NK_RANGE(SZ_16K, SZ_16K), .pre_failed = true,
	  .expect = { .server_calls = 1, .calls = { NK_CALL(SZ_16K, SZ_16K) },
		      .cwb_calls = 1 } },
	/*
	 * A whole page at a page boundary inside such a folio: the write
	 * covers its page, not its folio, so the folio is still read (an
	 * order-0 folio is not: the write covers it).
	 */
	{ .name = "into_failed_large_folio_page", .size = SZ_64K,
	  .op = NK_OP_WRITE, .pos = SZ_16K + PG, .len = PG,
	  .folios = NK_ONLY(NK_FOLIOS_LARGE),
	  .pre = NK_RANGE(SZ_16K, SZ_16K), .pre_failed = true,
	  .expect = { .server_calls = 1, .calls = { NK_CALL(SZ_16K, SZ_16K) },
		      .cwb_calls = 1 } },
	/*
	 * The same, with the folio after it uptodate in the page cache: the
	 * read neither reads into that folio nor unlocks it.  Upstream bug
	 * F13: its request runs into that folio, and unlocking a folio that
	 * is not locked is a kernel BUG (a boot of its own on the baseline).
	 */
	{ .name = "into_failed_large_folio_next_uptodate", .size = SZ_64K,
	  .op = NK_OP_WRITE, .pos = SZ_16K + PG + 100, .len = 200,
	  .folios = NK_ONLY(NK_FOLIOS_LARGE),
	  .pre = NK_RANGE(SZ_16K, SZ_16K), .pre_failed = true,
	  .pre_ok = NK_RANGE(SZ_32K, PG),
	  .expect = { .server_calls = 1, .calls = { NK_CALL(SZ_16K, SZ_16K) },
		      .cwb_calls = 1 } },
	{ .name = "into_failed_folio_page", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = SZ_16K + PG, .len = PG, .folios = SMALL_ONLY,
	  .pre = NK_RANGE(SZ_16K + PG, PG), .pre_failed = true,
	  .expect = { .server_calls = 0, .cwb_calls = 1 } },
	{ .name = "into_failed_folio", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = SZ_16K + PG + 100, .len = 200, .folios = SMALL_ONLY,
	  .pre = NK_RANGE(SZ_16K + PG, PG), .pre_failed = true,
	  .expect = { .server_calls = 1, .calls = { NK_CALL(SZ_16K + PG, PG) },
		      .cwb_calls = 1 } },
	{ .name = "into_failed_large_folio_cache", .size = SZ_64K,
	  .op = NK_OP_WRITE, .pos = SZ_16K + PG + 100, .len = 200,
	  .folios = NK_ONLY(NK_FOLIOS_LARGE),
	  .pre = NK_RANGE(SZ_16K, SZ_16K), .pre_failed = true,
	  .cache = { .on = true, .cookie = true },
	  .expect = { .cache_reads = NK_ANY, .server_calls = 1,
		      .calls = { NK_CALL(SZ_16K, SZ_16K) },
		      .cache_writes = 1, .writes = { NK_RANGE(SZ_16K, SZ_16K) },
		      .cached = NK_RANGE(SZ_16K, SZ_16K), .cwb_calls = 1 } },
	{ .name = "into_failed_folio_cache", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = SZ_16K + PG + 100, .len = 200, .folios = SMALL_ONLY,
	  .pre = NK_RANGE(SZ_16K + PG, PG), .pre_failed = true,
	  .cache = { .on = true, .cookie = true },
	  .expect = { .cache_reads = NK_ANY, .server_calls = 1,
		      .calls = { NK_CALL(SZ_16K + PG, PG) },
		      .cache_writes = 1,
		      .writes = { NK_RANGE(SZ_16K + PG, PG) },
		      .cached = NK_RANGE(SZ_16K + PG, PG), .cwb_calls = 1 } },
	{ .name = "read_error", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 2 * PG + 100, .len = 200, .folios = SMALL_ONLY,
	  .server = { .faults = { NK_ERROR(1, -EIO) } },
	  .expect = { .cwb_calls = NK_ANY, .error = -EIO, .server_calls = 1,
		      .bad = NK_RANGE(2 * PG, 1) } },
	{ .name = "no_progress_not_in_row", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 2 * PG + 100, .len = 200, .folios = SMALL_ONLY,
	  .server = { .faults = { NK_ZERO(1), NK_SHORT(2, 1000), NK_ZERO(3) } },
	  .expect = { .cwb_calls = NK_ANY, .server_calls = 4,
		      .calls = { NK_CALL(2 * PG, PG), NK_CALL(2 * PG, PG),
				 NK_CALL_DONE(2 * PG, PG, 1000),
				 NK_CALL_DONE(2 * PG, PG, 1000) } } },
	{ .name = "short_read_retried", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 2 * PG + 100, .len = 100, .folios = SMALL_ONLY,
	  .server = { .step = 1000 },
	  .expect = { .cwb_calls = NK_ANY, .server_calls = 5,
		      .calls = { NK_CALL(2 * PG, PG),
				 NK_CALL_DONE(2 * PG, PG, 1000),
				 NK_CALL_DONE(2 * PG, PG, 2000),
				 NK_CALL_DONE(2 * PG, PG, 3000),
				 NK_CALL_DONE(2 * PG, PG, 4000) } } },
};

NK_TABLE_SUITE(write_begin, "netfs_write_begin");
