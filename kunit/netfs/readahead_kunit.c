// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs_readahead: the suite of netfs_readahead(), through kernel_read()
 * and explicit readahead windows: whole-file reads, slicing, short reads,
 * EOF, errors.
 *
 * Each entry is one scenario (struct nk_scenario in netfs_kunit.h): the
 * file, the operation, the fake server's and the fake cache's scripts, and
 * what must be seen afterwards.  After each run the harness checks the
 * page cache byte for byte, the folio states, the calls the fakes saw and
 * the request bookkeeping.  Adding a regression case is adding one entry.
 */

#include <linux/sizes.h>

#include "netfs_kunit.h"

static const struct nk_scenario readahead_scenarios[] = {
	/* whole-file reads of every interesting size, any offset */
	{ .name = "empty_file", .size = 0, .op = NK_OP_READ, .len = SZ_4K,
	  .expect = { .server_calls = 0 } },
	{ .name = "one_byte", .size = 1, .op = NK_OP_READ, .len = SZ_4K,
	  .expect = { .server_calls = 1, .calls = { NK_CALL(0, 1) } } },
	{ .name = "page_minus_one", .size = PG - 1, .op = NK_OP_READ,
	  .len = 2 * PG,
	  .expect = { .server_calls = 1, .calls = { NK_CALL(0, PG - 1) } } },
	{ .name = "one_page", .size = PG, .op = NK_OP_READ, .len = 2 * PG,
	  .expect = { .server_calls = 1, .calls = { NK_CALL(0, PG) } } },
	{ .name = "page_plus_one", .size = PG + 1, .op = NK_OP_READ,
	  .len = 3 * PG,
	  .expect = { .server_calls = NK_ANY, .slices = true } },
	{ .name = "three_mib", .size = 3 * SZ_1M + 1234, .op = NK_OP_READ,
	  .len = 3 * SZ_1M + 1234, .expect = { .server_calls = NK_ANY,
					       .slices = true } },
	{ .name = "across_page_boundary", .size = 3 * PG, .op = NK_OP_READ,
	  .pos = PG - 1, .len = 2, .expect = { .server_calls = NK_ANY,
					       .slices = true } },
	{ .name = "middle_of_file", .size = SZ_1M, .op = NK_OP_READ,
	  .pos = 300000, .len = 100000, .expect = { .server_calls = NK_ANY,
						    .slices = true } },
	{ .name = "last_byte", .size = 10000, .op = NK_OP_READ, .pos = 9999,
	  .len = 1, .expect = { .server_calls = NK_ANY, .slices = true } },
	{ .name = "straddles_eof", .size = 10000, .op = NK_OP_READ, .pos = 8000,
	  .len = 4000, .expect = { .server_calls = NK_ANY, .slices = true } },
	{ .name = "read_at_eof", .size = 5000, .op = NK_OP_READ, .pos = 8192,
	  .len = PG, .expect = { .server_calls = 0 } },
	{ .name = "across_4gib", .size = SZ_4G + SZ_1G + 1000, .op = NK_OP_READ,
	  .pos = SZ_4G - 2048, .len = SZ_64K, .server = { .rsize = SZ_16K },
	  .expect = { .server_calls = NK_ANY, .slices = true } },
	{ .name = "window_across_4gib", .size = SZ_4G + SZ_1G + 1000,
	  .op = NK_OP_READAHEAD, .pos = SZ_4G - SZ_32K, .len = SZ_64K,
	  .server = { .rsize = SZ_16K },
	  .expect = { .server_calls = 4, .slices = true,
		      .calls = { NK_CALL(SZ_4G - SZ_32K, SZ_16K),
				 NK_CALL(SZ_4G - SZ_16K, SZ_16K),
				 NK_CALL(SZ_4G, SZ_16K),
				 NK_CALL(SZ_4G + SZ_16K, SZ_16K) } } },
	{ .name = "error_after_4gib", .size = SZ_4G + SZ_1G + 1000,
	  .op = NK_OP_READAHEAD, .pos = SZ_4G - SZ_32K, .len = SZ_64K,
	  .server = { .rsize = SZ_16K, .faults = { NK_ERROR(3, -EIO) } },
	  .expect = { .server_calls = 4, .bad = NK_RANGE(SZ_4G, SZ_16K) } },
	/* short reads whose retries cross 4 GiB: 5000 bytes a call */
	{ .name = "short_across_4gib", .size = SZ_4G + SZ_1G + 1000,
	  .op = NK_OP_READAHEAD, .pos = SZ_4G - SZ_32K, .len = SZ_64K,
	  .server = { .step = 5000 },
	  .expect = { .server_calls = 14,
		      .request = NK_RANGE(SZ_4G - SZ_32K, SZ_64K),
		      .calls = { NK_CALL(SZ_4G - SZ_32K, SZ_64K) } } },

	/* slicing by clamp_length */
	{ .name = "rsize_4k", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .server = { .rsize = SZ_4K },
	  .expect = { .server_calls = 16, .slices = true } },
	{ .name = "rsize_5000", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .server = { .rsize = 5000 },
	  .expect = { .server_calls = 14, .slices = true,
		      .calls = { NK_CALL(0, 5000), NK_CALL(5000, 5000),
				 NK_CALL(10000, 5000) } } },
	{ .name = "rsize_16k", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .server = { .rsize = SZ_16K },
	  .expect = { .server_calls = 4, .slices = true } },
	{ .name = "rsize_1m", .size = SZ_4M, .op = NK_OP_READAHEAD,
	  .len = SZ_2M,
	  .server = { .rsize = SZ_1M },
	  .expect = { .server_calls = 2,
		      .calls = { NK_CALL(0, SZ_1M), NK_CALL(SZ_1M, SZ_1M) } } },
	{ .name = "rsize_5000_to_eof", .size = 30000, .op = NK_OP_READAHEAD,
	  .len = SZ_32K, .server = { .rsize = 5000 },
	  .expect = { .server_calls = 6, .slices = true } },
	{ .name = "read_rsize_5000", .size = SZ_1M, .op = NK_OP_READ,
	  .len = SZ_1M,
	  .server = { .rsize = 5000 }, .expect = { .server_calls = NK_ANY,
						   .slices = true } },

	/* expand_readahead by the netfs */
	{ .name = "expand_start", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .pos = SZ_16K, .len = SZ_16K,
	  .server = { .expand = SZ_64K, .expand_how = NK_EXPAND_START },
	  .expect = { .server_calls = NK_ANY, .request = NK_RANGE(0, SZ_32K),
		      .slices = true } },
	{ .name = "expand_end", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .pos = SZ_16K, .len = SZ_16K,
	  .server = { .expand = SZ_64K, .expand_how = NK_EXPAND_END },
	  .expect = { .server_calls = NK_ANY,
		      .request = NK_RANGE(SZ_16K, SZ_32K + SZ_16K),
		      .slices = true } },
	{ .name = "expand_both", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .pos = SZ_16K, .len = SZ_16K,
	  .server = { .expand = SZ_64K, .expand_how = NK_EXPAND_BOTH },
	  .expect = { .server_calls = NK_ANY, .request = NK_RANGE(0, SZ_64K),
		      .slices = true } },
	{ .name = "expand_stops_at_cached_folio", .size = SZ_1M,
	  .op = NK_OP_READAHEAD, .pos = SZ_16K, .len = SZ_16K,
	  .pre = NK_RANGE(0, PG),
	  .server = { .expand = SZ_64K, .expand_how = NK_EXPAND_START },
	  .expect = { .request = NK_RANGE(PG, SZ_32K - PG), .server_calls = 1,
		      .calls = { NK_CALL(PG, SZ_32K - PG) } } },
	{ .name = "expand_past_eof", .size = 40000, .op = NK_OP_READAHEAD,
	  .pos = SZ_16K, .len = SZ_16K,
	  .server = { .expand = SZ_64K, .expand_how = NK_EXPAND_BOTH },
	  .expect = { .server_calls = NK_ANY, .request = NK_RANGE(0, SZ_64K),
		      .slices = true,
		      .calls = { NK_CALL(0, 40000) } } },

	/* short reads */
	{ .name = "short_once", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_16K,
	  .server = { .faults = { NK_SHORT(1, 1000) } },
	  .expect = { .server_calls = 2,
		      .calls = { NK_CALL(0, SZ_16K),
				 NK_CALL_DONE(0, SZ_16K, 1000) } } },
	{ .name = "short_steps", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_16K,
	  .server = { .step = 3000 },
	  .expect = { .server_calls = 6,
		      .calls = { NK_CALL(0, SZ_16K),
				 NK_CALL_DONE(0, SZ_16K, 3000),
				 NK_CALL_DONE(0, SZ_16K, 6000),
				 NK_CALL_DONE(0, SZ_16K, 9000),
				 NK_CALL_DONE(0, SZ_16K, 12000),
				 NK_CALL_DONE(0, SZ_16K, 15000) } } },
	{ .name = "short_slices", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .server = { .rsize = SZ_16K, .step = 3000 },
	  .expect = { .server_calls = 24, .slices = true } },
	{ .name = "no_progress_once", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_16K, .server = { .faults = { NK_ZERO(1) } },
	  .expect = { .server_calls = 2,
		      .calls = { NK_CALL(0, SZ_16K), NK_CALL(0, SZ_16K) } } },
	{ .name = "no_progress_twice", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_16K,
	  .server = { .faults = { NK_ZERO(1), NK_ZERO(2) } },
	  .expect = { .server_calls = 2, .bad = NK_RANGE(0, SZ_16K) } },
	/* two reads without progress, but not in a row: the slice goes on */
	{ .name = "no_progress_not_in_row", .size = SZ_1M,
	  .op = NK_OP_READAHEAD,
	  .len = SZ_16K,
	  .server = { .faults = { NK_ZERO(1), NK_SHORT(2, 1000), NK_ZERO(3) } },
	  .expect = { .server_calls = 4,
		      .calls = { NK_CALL(0, SZ_16K), NK_CALL(0, SZ_16K),
				 NK_CALL_DONE(0, SZ_16K, 1000),
				 NK_CALL_DONE(0, SZ_16K, 1000) } } },
	/*
	 * A server that reports more than it was asked for: clamped to the
	 * slice, nothing read past it, the rest of the window read as usual.
	 * Upstream bug F6: kunit/known-upstream-failures.
	 */
	{ .name = "over_reported", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .server = { .rsize = SZ_16K, .faults = { NK_OVER(2, 5000) } },
	  .expect = { .server_calls = 4, .slices = true } },
	{ .name = "short_then_shrink", .size = SZ_64K, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .server = { .step = 5000, .resize_at = 3, .resize_to = 12000,
		      .clear_tail = true },
	  .expect = { .server_calls = 3 } },
	/* the bytes of the first, short, call stay; only the tail is zeroed */
	{ .name = "clear_tail_after_short", .size = 3 * PG,
	  .op = NK_OP_READAHEAD,
	  .len = 3 * PG,
	  .server = { .step = 3000,
		      .faults = { NK_CLEAR_TAIL(2, 1000) } },
	  .expect = { .server_calls = 2,
		      .calls = { NK_CALL(0, 3 * PG),
				 NK_CALL_DONE(0, 3 * PG, 3000) } } },
	{ .name = "clear_tail_at_server_eof", .size = 12000,
	  .op = NK_OP_READAHEAD,
	  .len = SZ_16K,
	  .server = { .resize_at = 1, .resize_to = 5000, .clear_tail = true },
	  .expect = { .server_calls = 1, .calls = { NK_CALL(0, 12000) } } },

	/* EOF */
	{ .name = "eof_in_window", .size = 10000, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .expect = { .server_calls = 1, .calls = { NK_CALL(0, 10000) } } },
	{ .name = "eof_on_page", .size = 2 * PG, .op = NK_OP_READAHEAD,
	  .len = SZ_32K,
	  .expect = { .server_calls = 1, .calls = { NK_CALL(0, 2 * PG) } } },
	{ .name = "window_beyond_eof", .size = 2 * PG, .op = NK_OP_READAHEAD,
	  .pos = SZ_16K, .len = SZ_16K, .expect = { .server_calls = 0 } },
	{ .name = "shrinks_during_read", .size = SZ_64K, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .server = { .rsize = SZ_16K, .resize_at = 2, .resize_to = 20000,
		      .clear_tail = true },
	  .expect = { .server_calls = 4, .slices = true } },
	/*
	 * The server's file shrinks, between slices, to inside a later slice:
	 * the request's slicing is still that of the size it started with
	 * (rreq->i_size), and the server's short reads with CLEAR_TAIL zero
	 * the rest.  A helper that clamped its downloads to the live i_size
	 * would cut the third slice short and the fourth to nothing.
	 */
	{ .name = "shrinks_into_later_slice", .size = SZ_64K,
	  .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .server = { .rsize = SZ_16K, .resize_at = 1, .resize_to = 40000,
		      .clear_tail = true },
	  .expect = { .server_calls = 4, .slices = true,
		      .calls = { NK_CALL(0, SZ_16K), NK_CALL(SZ_16K, SZ_16K),
				 NK_CALL(SZ_32K, SZ_16K),
				 NK_CALL(SZ_32K + SZ_16K, SZ_16K) } } },
	/* EOF inside the last page of a large folio */
	{ .name = "eof_in_last_page_of_folio", .size = 7 * PG + 1000,
	  .op = NK_OP_READAHEAD, .len = 8 * PG,
	  .expect = { .server_calls = 1,
		      .calls = { NK_CALL(0, 7 * PG + 1000) } } },
	/*
	 * The server's file shrinks between slices, to inside the last page
	 * of a large folio, and the netfs cuts its cache to match (as with
	 * fscache_resize_cookie()): the cache's copy from there on is gone,
	 * and what the request still downloads reads as zeroes.
	 */
	{ .name = "shrinks_between_slices_cached", .size = SZ_64K,
	  .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .server = { .resize_at = 1, .resize_to = 7 * PG + 1000,
		      .clear_tail = true },
	  .cache = { .on = true,
		     .held = { NK_RANGE(SZ_16K, SZ_32K + SZ_16K) } },
	  .expect = { .server_calls = 2, .cache_reads = 1, .cache_writes = 2,
		      .calls = { NK_CALL(0, SZ_16K),
				 NK_CALL(SZ_32K, SZ_32K) } } },
	/* growth seen during the read is not read: the request keeps its size */
	{ .name = "grows_during_read", .size = SZ_64K, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .server = { .rsize = SZ_16K, .resize_at = 2, .resize_to = SZ_128K },
	  .expect = { .server_calls = 4, .slices = true,
		      .request = NK_RANGE(0, SZ_64K) } },

	/* errors */
	{ .name = "error_in_one_of_four", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .server = { .rsize = SZ_16K, .faults = { NK_ERROR(2, -EIO) } },
	  .expect = { .server_calls = 4, .bad = NK_RANGE(SZ_16K, SZ_16K) } },
	/* a failure covering part of a folio: that folio only is not uptodate */
	{ .name = "error_first_half_of_folio", .size = SZ_1M,
	  .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .server = { .rsize = SZ_8K, .faults = { NK_ERROR(3, -EIO) } },
	  .expect = { .server_calls = 8, .bad = NK_RANGE(SZ_16K, SZ_8K) } },
	{ .name = "error_second_half_of_folio", .size = SZ_1M,
	  .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .server = { .rsize = SZ_8K, .faults = { NK_ERROR(4, -EIO) } },
	  .expect = { .server_calls = 8,
		      .bad = NK_RANGE(SZ_16K + SZ_8K, SZ_8K) } },
	{ .name = "error_unaligned_slice", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .server = { .rsize = 5000, .faults = { NK_ERROR(4, -EIO) } },
	  .expect = { .server_calls = 14, .bad = NK_RANGE(15000, 5000) } },
	/*
	 * A short read beside a slice that fails: which folios end up
	 * uptodate depends on when the retry runs, but none may be uptodate
	 * with the bytes the short read left unread.  Upstream bug F8
	 * (found by netfs_random): kunit/known-upstream-failures.
	 */
	{ .name = "short_beside_failed", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .server = { .rsize = SZ_16K,
		      .faults = { NK_SHORT(1, 1000), NK_ERROR(2, -EIO) } },
	  .expect = { .server_calls = NK_ANY, .may_fail = true } },
	/*
	 * A slice that cannot be prepared (clamp_length false) ends the
	 * request there: what was issued is read, the rest stays not uptodate.
	 * Upstream bug F4: kunit/known-upstream-failures.
	 */
	{ .name = "clamp_length_fails_first", .size = SZ_1M,
	  .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .server = { .rsize = SZ_16K, .clamp_fail = 1 },
	  .expect = { .server_calls = 0, .bad = NK_RANGE(0, SZ_64K) } },
	{ .name = "clamp_length_fails_later", .size = SZ_1M,
	  .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .server = { .rsize = SZ_16K, .clamp_fail = 3 },
	  .expect = { .server_calls = 2, .bad = NK_RANGE(SZ_32K, SZ_32K) } },
	/* kernel_read returns the bytes before the page it cannot read */
	{ .name = "read_stops_at_error", .size = 3 * PG, .op = NK_OP_READ,
	  .len = 3 * PG, .folios = SMALL_ONLY,
	  .server = { .rsize = PG,
		      .faults = { NK_ERROR(2, -EIO), NK_ERROR(4, -EIO),
				  NK_ERROR(5, -EIO) } },
	  .expect = { .server_calls = NK_ANY, .result = PG,
		      .bad = NK_RANGE(PG, PG) } },
	{ .name = "error_left_to_read_folio", .size = SZ_64K, .op = NK_OP_READ,
	  .len = SZ_64K,
	  .server = { .rsize = SZ_16K, .faults = { NK_ERROR(1, -EIO) } },
	  .expect = { .server_calls = NK_ANY, .readpage = true } },
	{ .name = "begin_cache_eintr", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_16K, .cache = { .begin_error = -EINTR },
	  .expect = { .server_calls = 0 } },
	{ .name = "begin_cache_erestartsys", .size = SZ_1M,
	  .op = NK_OP_READAHEAD,
	  .len = SZ_16K, .cache = { .begin_error = -ERESTARTSYS },
	  .expect = { .server_calls = 0 } },
	{ .name = "begin_cache_enobufs", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .server = { .rsize = SZ_16K },
	  .cache = { .begin_error = -ENOBUFS },
	  .expect = { .server_calls = 4, .slices = true } },

	/*
	 * 7. folios complete as they are read: the eighth of sixteen slices
	 * held back, the folios of the other fifteen must not wait for it
	 * (upstream bug F5: kunit/known-upstream-failures)
	 */
	{ .name = "folios_complete_as_read", .size = SZ_1M,
	  .op = NK_OP_READAHEAD, .len = SZ_256K,
	  .server = { .rsize = SZ_16K, .hold = 8 },
	  .expect = { .server_calls = 16, .slices = true } },
};

NK_TABLE_SUITE(readahead, "netfs_readahead");
