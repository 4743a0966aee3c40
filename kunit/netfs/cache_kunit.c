// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs_cache: reads through the fake cache, and copy-to-cache.
 *
 * Each entry is one scenario (struct nk_scenario in netfs_kunit.h): the
 * file, the operation, the fake server's and the fake cache's scripts, and
 * what must be seen afterwards.  After each run the harness checks the
 * page cache byte for byte, the folio states, the calls the fakes saw and
 * the request bookkeeping.  Adding a regression case is adding one entry.
 */

#include <linux/sizes.h>

#include "netfs_kunit.h"

static const struct nk_scenario cache_scenarios[] = {
	/* reading from the cache */
	{ .name = "all_cached", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_1M) } },
	  .expect = { .server_calls = 0, .cache_reads = 1,
		      .cache_writes = 0 } },
	{ .name = "mixed", .size = SZ_1M, .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .cache = { .on = true, .held = { NK_RANGE(SZ_16K, SZ_16K),
					   NK_RANGE(SZ_32K + SZ_16K, SZ_16K) } },
	  .expect = { .server_calls = 2, .cache_reads = 2, .cache_writes = 2,
		      .calls = { NK_CALL(0, SZ_16K), NK_CALL(SZ_32K, SZ_16K) },
		      .writes = { NK_RANGE(0, SZ_16K),
				  NK_RANGE(SZ_32K, SZ_16K) },
		      .cached = NK_RANGE(0, SZ_64K) } },
	{ .name = "cache_read_fails", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_1M) },
		     .faults = { NK_ERROR(1, -EIO) } },
	  .expect = { .cache_writes = NK_ANY, .server_calls = 1,
		      .cache_reads = 1,
		      .calls = { NK_CALL(0, SZ_64K) } } },
	/* upstream bugs F2 and (softirq) F3: kunit/known-upstream-failures */
	{ .name = "stale_cache", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_1M) },
		     .stale = true },
	  .expect = { .cache_reads = NK_ANY, .cache_writes = NK_ANY,
		      .server_calls = 1, .calls = { NK_CALL(0, SZ_64K) } } },
	/*
	 * A cache read that fails, or turns out stale, is downloaded in
	 * pieces that clamp_length cuts, exactly as the submission would cut
	 * slices, inside the folios of the slice (every case also checks that
	 * no download is longer than the rsize).  Upstream bug F14:
	 * kunit/known-upstream-failures.
	 */
	{ .name = "cache_read_fails_rsize", .size = SZ_1M,
	  .op = NK_OP_READAHEAD, .len = SZ_64K, .server = { .rsize = SZ_16K },
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_1M) },
		     .faults = { NK_ERROR(1, -EIO) } },
	  .expect = { .cache_writes = NK_ANY, .server_calls = 4,
		      .cache_reads = 1,
		      .calls = { NK_CALL(0, SZ_16K), NK_CALL(SZ_16K, SZ_16K),
				 NK_CALL(SZ_32K, SZ_16K),
				 NK_CALL(SZ_32K + SZ_16K, SZ_16K) } } },
	/* pieces that end inside folios, whatever their size */
	{ .name = "stale_cache_rsize_5000", .size = SZ_1M,
	  .op = NK_OP_READAHEAD, .len = SZ_64K, .server = { .rsize = 5000 },
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_1M) },
		     .stale = true },
	  .expect = { .cache_reads = NK_ANY, .cache_writes = NK_ANY,
		      .server_calls = 14, .slices = true } },
	/* after a short cache read, from where it stopped */
	{ .name = "short_then_failed_cache_read_rsize", .size = SZ_1M,
	  .op = NK_OP_READAHEAD, .len = SZ_64K, .server = { .rsize = SZ_16K },
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_1M) },
		     .faults = { NK_SHORT(1, 5000), NK_ERROR(2, -EIO) } },
	  .expect = { .cache_writes = NK_ANY, .server_calls = 4,
		      .cache_reads = 2,
		      .calls = { NK_CALL(5000, SZ_16K),
				 NK_CALL(5000 + SZ_16K, SZ_16K),
				 NK_CALL(5000 + SZ_32K, SZ_16K),
				 NK_CALL(5000 + SZ_32K + SZ_16K,
					 SZ_64K - 5000 - SZ_32K - SZ_16K) } } },
	/* synchronous: the pieces end before read_folio returns */
	{ .name = "read_folio_cache_error_rsize", .size = SZ_1M,
	  .op = NK_OP_READ_FOLIO, .pos = SZ_16K, .server = { .rsize = 1000 },
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_1M) },
		     .faults = { NK_ERROR(1, -EIO) } },
	  .expect = { .cache_writes = NK_ANY, .server_calls = NK_ANY,
		      .cache_reads = 1, .slices = true } },
	/*
	 * One piece failing, or one that cannot be cut (clamp_length is only
	 * called for pieces here), fails the slice, all its folios, and
	 * stops the cutting.
	 */
	{ .name = "cache_read_fails_piece_fails", .size = SZ_1M,
	  .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .server = { .rsize = SZ_16K, .faults = { NK_ERROR(2, -EIO) } },
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_1M) },
		     .faults = { NK_ERROR(1, -EIO) } },
	  .expect = { .cache_writes = NK_ANY, .server_calls = NK_ANY,
		      .cache_reads = 1, .bad = NK_RANGE(0, SZ_64K) } },
	{ .name = "cache_read_fails_piece_cannot_be_cut", .size = SZ_1M,
	  .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .server = { .rsize = SZ_16K, .clamp_fail = 2 },
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_1M) },
		     .faults = { NK_ERROR(1, -EIO) } },
	  .expect = { .cache_writes = NK_ANY, .server_calls = 1,
		      .cache_reads = 1, .bad = NK_RANGE(0, SZ_64K) } },
	/* pieces that read short, and are issued again for the rest */
	{ .name = "cache_read_fails_pieces_short", .size = SZ_1M,
	  .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .server = { .rsize = SZ_16K, .step = 5000 },
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_1M) },
		     .faults = { NK_ERROR(1, -EIO) } },
	  .expect = { .cache_writes = NK_ANY, .server_calls = 16,
		      .cache_reads = 1, .slices = true } },
	/*
	 * A first cache read without progress, then a failed one: the
	 * download starts afresh and may make no progress once itself.
	 */
	{ .name = "cache_zero_then_fails", .size = SZ_1M,
	  .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .server = { .faults = { NK_ZERO(1) } },
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_1M) },
		     .faults = { NK_ZERO(1), NK_ERROR(2, -EIO) } },
	  .expect = { .cache_writes = NK_ANY, .server_calls = 2,
		      .cache_reads = 2,
		      .calls = { NK_CALL(0, SZ_64K),
				 NK_CALL_DONE(0, SZ_64K, 0) } } },
	/* a fallback between two downloads, all in one folio if large */
	{ .name = "fallback_shares_a_folio", .size = SZ_1M,
	  .op = NK_OP_READAHEAD, .len = SZ_16K,
	  .cache = { .on = true, .held = { NK_RANGE(PG, PG) },
		     .faults = { NK_ERROR(1, -EIO) } },
	  .expect = { .server_calls = 3, .cache_reads = 1,
		      .cache_writes = NK_ANY } },
	/* to EOF inside a page */
	{ .name = "cache_read_fails_rsize_to_eof", .size = 30000,
	  .op = NK_OP_READAHEAD, .len = SZ_32K,
	  .server = { .rsize = 5000 },
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_32K) },
		     .faults = { NK_ERROR(1, -EIO) } },
	  .expect = { .cache_writes = NK_ANY, .server_calls = 6,
		      .cache_reads = 1, .slices = true } },
	{ .name = "no_cache_support", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .server = { .rsize = SZ_16K },
	  .cache = { .absent = true, .held = { NK_RANGE(0, SZ_1M) } },
	  .expect = { .server_calls = 4, .cache_reads = 0, .slices = true } },
	{ .name = "cache_declined", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .server = { .rsize = SZ_16K },
	  .cache = { .held = { NK_RANGE(0, SZ_1M) } },
	  .expect = { .server_calls = 4, .cache_reads = 0, .slices = true } },
	/* upstream bug F1: kunit/known-upstream-failures */
	{ .name = "short_cache_read", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_1M) },
		     .faults = { NK_SHORT(1, 5000) } },
	  .expect = { .cache_writes = NK_ANY, .server_calls = 0,
		      .cache_reads = 2 } },
	/* read_folio is synchronous: its retry from the server must succeed */
	{ .name = "read_folio_cache_error", .size = SZ_1M,
	  .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K,
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_1M) },
		     .faults = { NK_ERROR(1, -EIO) } },
	  .expect = { .cache_writes = NK_ANY, .server_calls = 1,
		      .cache_reads = 1 } },
	/* upstream bug F1: kunit/known-upstream-failures */
	{ .name = "read_folio_short_cache_read", .size = SZ_1M,
	  .op = NK_OP_READ_FOLIO, .pos = SZ_16K,
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_1M) },
		     .faults = { NK_SHORT(1, 1000) } },
	  .expect = { .cache_writes = NK_ANY, .server_calls = 0,
		      .cache_reads = 2 } },
	/*
	 * Two cache reads without progress, not in a row: it goes on.
	 * Upstream bug F1 (the short read): kunit/known-upstream-failures.
	 */
	{ .name = "cache_no_progress_not_in_row", .size = SZ_1M,
	  .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_1M) },
		     .faults = { NK_ZERO(1), NK_SHORT(2, 1000), NK_ZERO(3) } },
	  .expect = { .server_calls = 0, .cache_reads = 4,
		      .cache_writes = 0 } },
	{ .name = "read_folio_cache_no_progress_not_in_row", .size = SZ_1M,
	  .op = NK_OP_READ_FOLIO, .pos = SZ_16K,
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_1M) },
		     .faults = { NK_ZERO(1), NK_SHORT(2, 1000), NK_ZERO(3) } },
	  .expect = { .server_calls = 0, .cache_reads = 4,
		      .cache_writes = 0 } },
	/*
	 * A hole inside what the cache reports as held (the file is sparse
	 * there): the first read, with NETFS_READ_HOLE_IGNORE, stops short at
	 * it; the rest is read with NETFS_READ_HOLE_CLEAR, which reads the
	 * hole as zeroes.  Nothing is downloaded.  Upstream bug F1 in
	 * hole_in_held_range and kernel_read_hole: kunit/known-upstream-failures.
	 */
	{ .name = "hole_in_held_range", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_1M) },
		     .hole = NK_RANGE(SZ_16K, PG) },
	  .expect = { .server_calls = 0, .cache_reads = 2,
		      .cache_writes = 0 } },
	{ .name = "hole_at_start_of_held_range", .size = SZ_1M,
	  .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_1M) },
		     .hole = NK_RANGE(0, 2 * PG) },
	  .expect = { .server_calls = 0, .cache_reads = 2,
		      .cache_writes = 0 } },
	{ .name = "read_folio_hole", .size = SZ_1M, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K,
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_1M) },
		     .hole = NK_RANGE(SZ_16K, PG) },
	  .expect = { .server_calls = 0, .cache_reads = 2,
		      .cache_writes = 0 } },
	{ .name = "kernel_read_hole", .size = SZ_1M, .op = NK_OP_READ,
	  .len = SZ_256K,
	  .cache = { .on = true, .held = { NK_RANGE(0, SZ_1M) },
		     .hole = NK_RANGE(SZ_32K + PG, 2 * PG) },
	  .expect = { .cache_reads = NK_ANY, .server_calls = 0,
		      .cache_writes = 0 } },
	{ .name = "kernel_read_from_cache", .size = SZ_1M, .op = NK_OP_READ,
	  .len = SZ_256K, .cache = { .on = true,
				     .held = { NK_RANGE(0, SZ_1M) } },
	  .expect = { .cache_reads = NK_ANY, .server_calls = 0,
		      .cache_writes = 0 } },

	/* copy to the cache */
	{ .name = "granules_amalgamated", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .cache = { .on = true, .granule = SZ_16K },
	  .expect = { .cache_reads = NK_ANY, .server_calls = 4,
		      .cache_writes = 1,
		      .writes = { NK_RANGE(0, SZ_64K) },
		      .cached = NK_RANGE(0, SZ_64K) } },
	{ .name = "large_folio_split", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .server = { .rsize = SZ_8K }, .cache = { .on = true },
	  .expect = { .cache_reads = NK_ANY, .server_calls = 8,
		      .cache_writes = 1,
		      .writes = { NK_RANGE(0, SZ_64K) },
		      .cached = NK_RANGE(0, SZ_64K) } },
	/* unaligned slices: merged, then rounded to pages once */
	{ .name = "copy_rsize_1000", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_16K, .server = { .rsize = 1000 }, .cache = { .on = true },
	  .expect = { .cache_reads = NK_ANY, .server_calls = 17,
		      .cache_writes = 1, .slices = true,
		      .writes = { NK_RANGE(0, SZ_16K) },
		      .cached = NK_RANGE(0, SZ_16K) } },
	{ .name = "copy_rsize_5000", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_32K, .server = { .rsize = 5000 }, .cache = { .on = true },
	  .expect = { .cache_reads = NK_ANY, .server_calls = 7,
		      .cache_writes = 1, .slices = true,
		      .writes = { NK_RANGE(0, SZ_32K) },
		      .cached = NK_RANGE(0, SZ_32K) } },
	{ .name = "copy_across_4gib", .size = SZ_4G + SZ_1G,
	  .op = NK_OP_READAHEAD,
	  .pos = SZ_4G - SZ_32K, .len = SZ_64K, .server = { .rsize = 5000 },
	  .cache = { .on = true },
	  .expect = { .cache_reads = NK_ANY, .server_calls = 14,
		      .cache_writes = 1, .slices = true,
		      .writes = { NK_RANGE(SZ_4G - SZ_32K, SZ_64K) },
		      .cached = NK_RANGE(SZ_4G - SZ_32K, SZ_64K) } },
	/* a cached page in the middle of a large folio: two copies into it */
	{ .name = "two_copies_in_one_folio", .size = SZ_1M,
	  .op = NK_OP_READAHEAD,
	  .len = SZ_16K, .cache = { .on = true, .held = { NK_RANGE(PG, PG) } },
	  .expect = { .server_calls = 2, .cache_reads = 1, .cache_writes = 2,
		      .calls = { NK_CALL(0, PG), NK_CALL(2 * PG, 2 * PG) },
		      .writes = { NK_RANGE(0, PG), NK_RANGE(2 * PG, 2 * PG) },
		      .cached = NK_RANGE(0, SZ_16K) } },
	/* upstream bug F4: kunit/known-upstream-failures */
	{ .name = "prepare_read_invalid_first", .size = SZ_1M,
	  .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .cache = { .on = true, .granule = SZ_16K, .prepare_read_invalid = 1 },
	  .expect = { .cache_writes = NK_ANY, .server_calls = 0,
		      .cache_reads = 0,
		      .bad = NK_RANGE(0, SZ_64K) } },
	{ .name = "prepare_read_invalid_later", .size = SZ_1M,
	  .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .cache = { .on = true, .granule = SZ_16K, .prepare_read_invalid = 3 },
	  .expect = { .cache_writes = NK_ANY, .server_calls = 2,
		      .cache_reads = 0,
		      .bad = NK_RANGE(SZ_32K, SZ_32K) } },
	/* a copy that cannot be made: the read succeeds, the next downloads */
	{ .name = "prepare_write_fails", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .twice = true,
	  .cache = { .on = true, .prepare_write_error = -ENOBUFS },
	  .expect = { .server_calls = 1, .cache_reads = 0,
		      .cache_writes = 0 } },
	{ .name = "write_fails", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .twice = true,
	  .cache = { .on = true, .write_error = -EIO },
	  .expect = { .server_calls = 1, .cache_reads = 0,
		      .cache_writes = 1 } },
	{ .name = "copy_to_eof", .size = 10000, .op = NK_OP_READAHEAD,
	  .len = SZ_16K, .cache = { .on = true },
	  .expect = { .cache_reads = NK_ANY, .server_calls = 1,
		      .calls = { NK_CALL(0, 10000) },
		      .writes = { NK_RANGE(0, 3 * PG) }, .cache_writes = 1,
		      .cached = NK_RANGE(0, 3 * PG) } },
	{ .name = "failed_request_not_copied", .size = SZ_1M,
	  .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .server = { .rsize = SZ_16K,
				     .faults = { NK_ERROR(2, -EIO) } },
	  .cache = { .on = true },
	  .expect = { .cache_reads = NK_ANY, .server_calls = 4,
		      .cache_writes = 0,
		      .bad = NK_RANGE(SZ_16K, SZ_16K) } },
	{ .name = "read_only_cache", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .cache = { .on = true, .no_copy = true },
	  .expect = { .cache_reads = NK_ANY, .server_calls = 1,
		      .cache_writes = 0 } },
	{ .name = "second_read_from_cache", .size = SZ_1M,
	  .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .twice = true, .cache = { .on = true },
	  .expect = { .server_calls = 0, .cache_reads = 1,
		      .cache_writes = 0 } },

	/* expand_readahead by the cache */
	{ .name = "cache_expand_start", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .pos = SZ_16K, .len = SZ_16K,
	  .cache = { .on = true, .granule = SZ_64K,
		     .expand_how = NK_EXPAND_START },
	  .expect = { .server_calls = NK_ANY, .cache_reads = NK_ANY,
		      .cache_writes = NK_ANY, .request = NK_RANGE(0, SZ_32K),
		      .calls = { NK_CALL(0, SZ_32K) } } },
	{ .name = "cache_expand_end", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .pos = SZ_16K, .len = SZ_16K,
	  .cache = { .on = true, .granule = SZ_64K,
		     .expand_how = NK_EXPAND_END },
	  .expect = { .server_calls = NK_ANY, .cache_reads = NK_ANY,
		      .cache_writes = NK_ANY,
		      .request = NK_RANGE(SZ_16K, SZ_32K + SZ_16K),
		      .calls = { NK_CALL(SZ_16K, SZ_32K + SZ_16K) } } },
	{ .name = "cache_expand_both", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .pos = SZ_16K, .len = SZ_16K,
	  .cache = { .on = true, .granule = SZ_64K,
		     .expand_how = NK_EXPAND_BOTH },
	  .expect = { .server_calls = NK_ANY, .cache_reads = NK_ANY,
		      .cache_writes = NK_ANY, .request = NK_RANGE(0, SZ_64K),
		      .calls = { NK_CALL(0, SZ_64K) },
		      .writes = { NK_RANGE(0, SZ_64K) } } },
	/* the cache moves the start, the netfs the end: the union is read */
	{ .name = "cache_and_netfs_expand", .size = SZ_1M,
	  .op = NK_OP_READAHEAD,
	  .pos = SZ_64K + SZ_16K, .len = SZ_16K,
	  .server = { .expand = SZ_128K, .expand_how = NK_EXPAND_END },
	  .cache = { .on = true, .granule = SZ_64K,
		     .expand_how = NK_EXPAND_START },
	  .expect = { .server_calls = NK_ANY, .cache_reads = NK_ANY,
		      .cache_writes = NK_ANY,
		      .request = NK_RANGE(SZ_64K, SZ_64K),
		      .calls = { NK_CALL(SZ_64K, SZ_64K) },
		      .writes = { NK_RANGE(SZ_64K, SZ_64K) },
		      .cached = NK_RANGE(SZ_64K, SZ_64K) } },

	/*
	 * 4. Found by netfs_random, pasted as it printed them.
	 *
	 * Two failing cache reads, one of them of the pages around EOF: the
	 * fallback downloads stop at EOF and the read succeeds.  Upstream
	 * bug F7: kunit/known-upstream-failures.
	 */
	{
		.name = "random_1_327",
		.size = 42231, .op = NK_OP_READAHEAD, .pos = 0, .len = 45056,
		.folios = NK_ONLY(NK_FOLIOS_SMALL),
		.server = { .expand = 16384, .expand_how = 1,
			    .mix = 0x7e226f93, },
		.cache = { .on = 1, .granule = 16384, .expand_how = 1,
			.held = { NK_RANGE(4096, 114688), NK_RANGE(0, 45056),
				  NK_RANGE(36864, 172032) },
			.faults = { NK_ERROR(3, -5), NK_ERROR(4, -5) }, },
		.expect = { NK_ANY_CALLS, .may_fail = false },
	},
};

NK_TABLE_SUITE(cache, "netfs_cache");
