// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suites for the netfs read helpers, written as scenario tables.
 *
 * Each entry of a table is one scenario: the file, the operation, the fake
 * server's and fake cache's scripts, and what must be seen afterwards (see
 * struct nk_scenario in netfs_kunit.h).  Every scenario runs for each
 * folio size and completion context it applies to, and after each run the
 * harness checks the page cache byte for byte, the folio states, the calls
 * the fakes saw and the request bookkeeping.  Adding a regression case is
 * adding one entry.
 */

#include <linux/sizes.h>

#include "netfs_kunit.h"

#define PG		PAGE_SIZE
#define SMALL_ONLY	NK_ONLY(NK_FOLIOS_SMALL)

/* netfs_readahead: whole-file reads, slicing, short reads, EOF, errors */
static const struct nk_scenario readahead_scenarios[] = {
	/* 1. whole-file reads of every interesting size, any offset */
	{ .name = "empty_file", .size = 0, .op = NK_OP_READ, .len = SZ_4K,
	  .expect = { .server_calls = NK_NONE } },
	{ .name = "one_byte", .size = 1, .op = NK_OP_READ, .len = SZ_4K,
	  .expect = { .server_calls = 1, .calls = { { 0, 1 } } } },
	{ .name = "page_minus_one", .size = PG - 1, .op = NK_OP_READ, .len = 2 * PG,
	  .expect = { .server_calls = 1, .calls = { { 0, PG - 1 } } } },
	{ .name = "one_page", .size = PG, .op = NK_OP_READ, .len = 2 * PG,
	  .expect = { .server_calls = 1, .calls = { { 0, PG } } } },
	{ .name = "page_plus_one", .size = PG + 1, .op = NK_OP_READ, .len = 3 * PG,
	  .expect = { .slices = true } },
	{ .name = "three_mib", .size = 3 * SZ_1M + 1234, .op = NK_OP_READ,
	  .len = 3 * SZ_1M + 1234, .expect = { .slices = true } },
	{ .name = "across_page_boundary", .size = 3 * PG, .op = NK_OP_READ,
	  .pos = PG - 1, .len = 2, .expect = { .slices = true } },
	{ .name = "middle_of_file", .size = SZ_1M, .op = NK_OP_READ,
	  .pos = 300000, .len = 100000, .expect = { .slices = true } },
	{ .name = "last_byte", .size = 10000, .op = NK_OP_READ, .pos = 9999,
	  .len = 1, .expect = { .slices = true } },
	{ .name = "straddles_eof", .size = 10000, .op = NK_OP_READ, .pos = 8000,
	  .len = 4000, .expect = { .slices = true } },
	{ .name = "read_at_eof", .size = 5000, .op = NK_OP_READ, .pos = 8192,
	  .len = PG, .expect = { .server_calls = NK_NONE } },
	{ .name = "across_4gib", .size = SZ_4G + SZ_1G + 1000, .op = NK_OP_READ,
	  .pos = SZ_4G - 2048, .len = SZ_64K, .server = { .rsize = SZ_16K },
	  .expect = { .slices = true } },
	{ .name = "window_across_4gib", .size = SZ_4G + SZ_1G + 1000,
	  .op = NK_OP_READAHEAD, .pos = SZ_4G - SZ_32K, .len = SZ_64K,
	  .server = { .rsize = SZ_16K },
	  .expect = { .server_calls = 4, .slices = true,
		      .calls = { { SZ_4G - SZ_32K, SZ_16K }, { SZ_4G - SZ_16K, SZ_16K },
				 { SZ_4G, SZ_16K }, { SZ_4G + SZ_16K, SZ_16K } } } },

	/* 2. slicing by clamp_length */
	{ .name = "rsize_4k", .size = SZ_1M, .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .server = { .rsize = SZ_4K },
	  .expect = { .server_calls = 16, .slices = true } },
	{ .name = "rsize_5000", .size = SZ_1M, .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .server = { .rsize = 5000 },
	  .expect = { .server_calls = 14, .slices = true,
		      .calls = { { 0, 5000 }, { 5000, 5000 }, { 10000, 5000 } } } },
	{ .name = "rsize_16k", .size = SZ_1M, .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .server = { .rsize = SZ_16K },
	  .expect = { .server_calls = 4, .slices = true } },
	{ .name = "rsize_1m", .size = SZ_4M, .op = NK_OP_READAHEAD, .len = SZ_2M,
	  .server = { .rsize = SZ_1M },
	  .expect = { .server_calls = 2,
		      .calls = { { 0, SZ_1M }, { SZ_1M, SZ_1M } } } },
	{ .name = "rsize_5000_to_eof", .size = 30000, .op = NK_OP_READAHEAD,
	  .len = SZ_32K, .server = { .rsize = 5000 },
	  .expect = { .server_calls = 6, .slices = true } },
	{ .name = "read_rsize_5000", .size = SZ_1M, .op = NK_OP_READ, .len = SZ_1M,
	  .server = { .rsize = 5000 }, .expect = { .slices = true } },

	/* 3. expand_readahead by the netfs */
	{ .name = "expand_start", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .pos = SZ_16K, .len = SZ_16K,
	  .server = { .expand = SZ_64K, .expand_how = NK_EXPAND_START },
	  .expect = { .request = { 0, SZ_32K }, .slices = true } },
	{ .name = "expand_end", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .pos = SZ_16K, .len = SZ_16K,
	  .server = { .expand = SZ_64K, .expand_how = NK_EXPAND_END },
	  .expect = { .request = { SZ_16K, (SZ_32K + SZ_16K) }, .slices = true } },
	{ .name = "expand_both", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .pos = SZ_16K, .len = SZ_16K,
	  .server = { .expand = SZ_64K, .expand_how = NK_EXPAND_BOTH },
	  .expect = { .request = { 0, SZ_64K }, .slices = true } },
	{ .name = "expand_stops_at_cached_folio", .size = SZ_1M,
	  .op = NK_OP_READAHEAD, .pos = SZ_16K, .len = SZ_16K, .pre = { 0, PG },
	  .server = { .expand = SZ_64K, .expand_how = NK_EXPAND_START },
	  .expect = { .request = { PG, SZ_32K - PG }, .server_calls = 1,
		      .calls = { { PG, SZ_32K - PG } } } },
	{ .name = "expand_past_eof", .size = 40000, .op = NK_OP_READAHEAD,
	  .pos = SZ_16K, .len = SZ_16K,
	  .server = { .expand = SZ_64K, .expand_how = NK_EXPAND_BOTH },
	  .expect = { .request = { 0, SZ_64K }, .slices = true,
		      .calls = { { 0, 40000 } } } },

	/* 4. short reads */
	{ .name = "short_once", .size = SZ_1M, .op = NK_OP_READAHEAD, .len = SZ_16K,
	  .server = { .faults = { { 1, NK_FAULT_SHORT, 1000 } } },
	  .expect = { .server_calls = 2,
		      .calls = { { 0, SZ_16K, 0 }, { 0, SZ_16K, 1000 } } } },
	{ .name = "short_steps", .size = SZ_1M, .op = NK_OP_READAHEAD, .len = SZ_16K,
	  .server = { .step = 3000 },
	  .expect = { .server_calls = 6,
		      .calls = { { 0, SZ_16K, 0 }, { 0, SZ_16K, 3000 },
				 { 0, SZ_16K, 6000 }, { 0, SZ_16K, 9000 },
				 { 0, SZ_16K, 12000 }, { 0, SZ_16K, 15000 } } } },
	{ .name = "no_progress_once", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_16K, .server = { .faults = { { 1, NK_FAULT_ZERO } } },
	  .expect = { .server_calls = 2,
		      .calls = { { 0, SZ_16K, 0 }, { 0, SZ_16K, 0 } } } },
	{ .name = "no_progress_twice", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_16K,
	  .server = { .faults = { { 1, NK_FAULT_ZERO }, { 2, NK_FAULT_ZERO } } },
	  .expect = { .server_calls = 2, .bad = { 0, SZ_16K } } },
	{ .name = "short_then_shrink", .size = SZ_64K, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .server = { .step = 5000, .resize_at = 3, .resize_to = 12000,
		      .clear_tail = true },
	  .expect = { .server_calls = 3 } },
	{ .name = "clear_tail_at_server_eof", .size = 12000, .op = NK_OP_READAHEAD,
	  .len = SZ_16K,
	  .server = { .resize_at = 1, .resize_to = 5000, .clear_tail = true },
	  .expect = { .server_calls = 1, .calls = { { 0, 12000 } } } },

	/* 5. EOF */
	{ .name = "eof_in_window", .size = 10000, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .expect = { .server_calls = 1, .calls = { { 0, 10000 } } } },
	{ .name = "eof_on_page", .size = 2 * PG, .op = NK_OP_READAHEAD,
	  .len = SZ_32K,
	  .expect = { .server_calls = 1, .calls = { { 0, 2 * PG } } } },
	{ .name = "window_beyond_eof", .size = 2 * PG, .op = NK_OP_READAHEAD,
	  .pos = SZ_16K, .len = SZ_16K, .expect = { .server_calls = NK_NONE } },
	{ .name = "shrinks_during_read", .size = SZ_64K, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .server = { .rsize = SZ_16K, .resize_at = 2, .resize_to = 20000,
		      .clear_tail = true },
	  .expect = { .server_calls = 4, .slices = true } },

	/* 6. errors */
	{ .name = "error_in_one_of_four", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .server = { .rsize = SZ_16K, .faults = { { 2, NK_FAULT_ERROR, -EIO } } },
	  .expect = { .server_calls = 4, .bad = { SZ_16K, SZ_16K } } },
	{ .name = "error_left_to_read_folio", .size = SZ_64K, .op = NK_OP_READ,
	  .len = SZ_64K,
	  .server = { .rsize = SZ_16K, .faults = { { 1, NK_FAULT_ERROR, -EIO } } },
	  .expect = { .readpage = true } },
	{ .name = "begin_cache_eintr", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_16K, .cache = { .begin_error = -EINTR },
	  .expect = { .server_calls = NK_NONE } },
	{ .name = "begin_cache_enobufs", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .server = { .rsize = SZ_16K },
	  .cache = { .begin_error = -ENOBUFS },
	  .expect = { .server_calls = 4, .slices = true } },
};

NK_TABLE_PARAMS(readahead);

/* netfs_read_folio: one folio, synchronously, no expansion */
static const struct nk_scenario read_folio_scenarios[] = {
	{ .name = "middle", .size = SZ_64K, .op = NK_OP_READ_FOLIO, .pos = SZ_16K,
	  .expect = { .server_calls = 1, .slices = true } },
	{ .name = "not_expanded", .size = SZ_64K, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K,
	  .server = { .expand = SZ_64K, .expand_how = NK_EXPAND_BOTH },
	  .expect = { .server_calls = 1, .slices = true } },
	{ .name = "eof_folio", .size = 5000, .op = NK_OP_READ_FOLIO, .pos = PG,
	  .expect = { .server_calls = 1, .slices = true } },
	{ .name = "beyond_eof", .size = 5000, .op = NK_OP_READ_FOLIO, .pos = SZ_64K,
	  .expect = { .server_calls = NK_NONE } },
	{ .name = "rsize_1000", .size = SZ_64K, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K, .server = { .rsize = 1000 }, .expect = { .slices = true } },
	{ .name = "beyond_4gib", .size = SZ_4G + SZ_1G, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_4G + SZ_16K, .expect = { .server_calls = 1, .slices = true } },
	{ .name = "error", .size = SZ_64K, .op = NK_OP_READ_FOLIO, .pos = SZ_16K,
	  .server = { .faults = { { 1, NK_FAULT_ERROR, -EIO } } },
	  .expect = { .error = -EIO, .server_calls = 1, .bad = { SZ_16K, 1 } } },
	{ .name = "no_progress_twice", .size = SZ_64K, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K,
	  .server = { .faults = { { 1, NK_FAULT_ZERO }, { 2, NK_FAULT_ZERO } } },
	  .expect = { .error = -ENODATA, .server_calls = 2, .bad = { SZ_16K, 1 } } },
	{ .name = "init_request_error", .size = SZ_64K, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K, .server = { .init_error = -ENOMEM },
	  .expect = { .error = -ENOMEM, .server_calls = NK_NONE,
		      .bad = { SZ_16K, 1 } } },
	{ .name = "begin_cache_enomem", .size = SZ_64K, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K, .cache = { .begin_error = -ENOMEM },
	  .expect = { .error = -ENOMEM, .server_calls = NK_NONE,
		      .bad = { SZ_16K, 1 } } },
	{ .name = "from_cache", .size = SZ_64K, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K, .cache = { .on = true, .held = { { 0, SZ_64K } } },
	  .expect = { .server_calls = NK_NONE, .cache_reads = 1,
		      .cache_writes = NK_NONE } },
	{ .name = "to_cache", .size = SZ_64K, .op = NK_OP_READ_FOLIO, .pos = SZ_16K,
	  .cache = { .on = true },
	  .expect = { .server_calls = 1, .cache_writes = 1,
		      .cached = { SZ_16K, PG } } },
	{ .name = "read_cache_folio", .size = SZ_64K, .op = NK_OP_CACHE_FOLIO,
	  .pos = 2 * PG, .folios = SMALL_ONLY,
	  .expect = { .server_calls = 1, .calls = { { 2 * PG, PG } } } },
	{ .name = "read_cache_folio_error", .size = SZ_64K, .op = NK_OP_CACHE_FOLIO,
	  .pos = 2 * PG, .folios = SMALL_ONLY,
	  .server = { .faults = { { 1, NK_FAULT_ERROR, -EIO } } },
	  .expect = { .error = -EIO, .bad = { 2 * PG, 1 } } },
};

NK_TABLE_PARAMS(read_folio);

/*
 * netfs_write_begin, through kernel_write(); write_begin grabs order-0
 * folios in 6.1 whatever the mapping allows, so these run with small
 * folios only.
 */
static const struct nk_scenario write_begin_scenarios[] = {
	{ .name = "whole_folio", .size = SZ_64K, .op = NK_OP_WRITE, .pos = 2 * PG,
	  .len = PG, .folios = SMALL_ONLY,
	  .expect = { .server_calls = NK_NONE } },
	{ .name = "partial_in_file", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 2 * PG + 100, .len = 200, .folios = SMALL_ONLY,
	  .expect = { .server_calls = 1, .calls = { { 2 * PG, PG } } } },
	{ .name = "beyond_eof_fresh_folio", .size = 2 * PG, .op = NK_OP_WRITE,
	  .pos = 3 * PG + 100, .len = 100, .folios = SMALL_ONLY,
	  .expect = { .server_calls = NK_NONE } },
	{ .name = "beyond_eof_after_data", .size = 5000, .op = NK_OP_WRITE,
	  .pos = 6000, .len = 100, .folios = SMALL_ONLY,
	  .expect = { .server_calls = 1, .calls = { { PG, 5000 - PG } } } },
	{ .name = "from_folio_start_past_eof", .size = 5000, .op = NK_OP_WRITE,
	  .pos = PG, .len = 2000, .folios = SMALL_ONLY,
	  .expect = { .server_calls = NK_NONE } },
	{ .name = "across_folios", .size = SZ_64K, .op = NK_OP_WRITE, .pos = 4000,
	  .len = 5000, .folios = SMALL_ONLY,
	  .expect = { .server_calls = 2,
		      .calls = { { 0, PG }, { 2 * PG, PG } } } },
	{ .name = "beyond_4gib", .size = SZ_4G + SZ_1G, .op = NK_OP_WRITE,
	  .pos = SZ_4G + 100, .len = 200, .folios = SMALL_ONLY,
	  .expect = { .server_calls = 1, .calls = { { SZ_4G, PG } } } },
	{ .name = "check_write_begin_regrab", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 2 * PG + 100, .len = 200, .folios = SMALL_ONLY,
	  .server = { .cwb_regrab = 1 },
	  .expect = { .server_calls = 1, .cwb_calls = 2 } },
	{ .name = "check_write_begin_error", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 2 * PG + 100, .len = 200, .folios = SMALL_ONLY,
	  .server = { .cwb_error = -EIO },
	  .expect = { .error = -EIO, .server_calls = NK_NONE, .cwb_calls = 1,
		      .bad = { 2 * PG, 1 } } },
	{ .name = "read_error", .size = SZ_64K, .op = NK_OP_WRITE,
	  .pos = 2 * PG + 100, .len = 200, .folios = SMALL_ONLY,
	  .server = { .faults = { { 1, NK_FAULT_ERROR, -EIO } } },
	  .expect = { .error = -EIO, .server_calls = 1, .bad = { 2 * PG, 1 } } },
};

NK_TABLE_PARAMS(write_begin);

/* netfs_cache: reads through the fake cache and copy-to-cache */
static const struct nk_scenario cache_scenarios[] = {
	/* 7. reading from the cache */
	{ .name = "all_cached", .size = SZ_1M, .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .cache = { .on = true, .held = { { 0, SZ_1M } } },
	  .expect = { .server_calls = NK_NONE, .cache_reads = 1,
		      .cache_writes = NK_NONE } },
	{ .name = "mixed", .size = SZ_1M, .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .cache = { .on = true, .held = { { SZ_16K, SZ_16K }, { (SZ_32K + SZ_16K), SZ_16K } } },
	  .expect = { .server_calls = 2, .cache_reads = 2, .cache_writes = 2,
		      .calls = { { 0, SZ_16K }, { SZ_32K, SZ_16K } },
		      .writes = { { 0, SZ_16K }, { SZ_32K, SZ_16K } },
		      .cached = { 0, SZ_64K } } },
	{ .name = "cache_read_fails", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .cache = { .on = true, .held = { { 0, SZ_1M } },
		     .faults = { { 1, NK_FAULT_ERROR, -EIO } } },
	  .expect = { .server_calls = 1, .cache_reads = 1,
		      .calls = { { 0, SZ_64K } } } },
	/* upstream bugs F2 and (softirq) F3: kunit/known-upstream-failures */
	{ .name = "stale_cache", .size = SZ_1M, .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .cache = { .on = true, .held = { { 0, SZ_1M } }, .stale = true },
	  .expect = { .server_calls = 1, .calls = { { 0, SZ_64K } } } },
	{ .name = "no_cache_support", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .server = { .rsize = SZ_16K },
	  .cache = { .absent = true, .held = { { 0, SZ_1M } } },
	  .expect = { .server_calls = 4, .cache_reads = NK_NONE, .slices = true } },
	{ .name = "cache_declined", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .server = { .rsize = SZ_16K },
	  .cache = { .held = { { 0, SZ_1M } } },
	  .expect = { .server_calls = 4, .cache_reads = NK_NONE, .slices = true } },
	/* upstream bug F1: kunit/known-upstream-failures */
	{ .name = "short_cache_read", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .cache = { .on = true, .held = { { 0, SZ_1M } },
		     .faults = { { 1, NK_FAULT_SHORT, 5000 } } },
	  .expect = { .server_calls = NK_NONE, .cache_reads = 2 } },
	{ .name = "kernel_read_from_cache", .size = SZ_1M, .op = NK_OP_READ,
	  .len = SZ_256K, .cache = { .on = true, .held = { { 0, SZ_1M } } },
	  .expect = { .server_calls = NK_NONE, .cache_writes = NK_NONE } },

	/* 8. copy to the cache */
	{ .name = "granules_amalgamated", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .cache = { .on = true, .granule = SZ_16K },
	  .expect = { .server_calls = 4, .cache_writes = 1,
		      .writes = { { 0, SZ_64K } }, .cached = { 0, SZ_64K } } },
	{ .name = "large_folio_split", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .server = { .rsize = SZ_8K }, .cache = { .on = true },
	  .expect = { .server_calls = 8, .cache_writes = 1,
		      .writes = { { 0, SZ_64K } }, .cached = { 0, SZ_64K } } },
	{ .name = "copy_to_eof", .size = 10000, .op = NK_OP_READAHEAD,
	  .len = SZ_16K, .cache = { .on = true },
	  .expect = { .server_calls = 1, .calls = { { 0, 10000 } },
		      .writes = { { 0, 3 * PG } }, .cache_writes = 1,
		      .cached = { 0, 3 * PG } } },
	{ .name = "failed_request_not_copied", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .server = { .rsize = SZ_16K,
				     .faults = { { 2, NK_FAULT_ERROR, -EIO } } },
	  .cache = { .on = true },
	  .expect = { .server_calls = 4, .cache_writes = NK_NONE,
		      .bad = { SZ_16K, SZ_16K } } },
	{ .name = "read_only_cache", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .cache = { .on = true, .no_copy = true },
	  .expect = { .server_calls = 1, .cache_writes = NK_NONE } },
	{ .name = "second_read_from_cache", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .twice = true, .cache = { .on = true },
	  .expect = { .server_calls = NK_NONE, .cache_reads = 1,
		      .cache_writes = NK_NONE } },

	/* 3. expand_readahead by the cache */
	{ .name = "cache_expand_start", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .pos = SZ_16K, .len = SZ_16K,
	  .cache = { .on = true, .granule = SZ_64K, .expand_how = NK_EXPAND_START },
	  .expect = { .request = { 0, SZ_32K }, .calls = { { 0, SZ_32K } } } },
	{ .name = "cache_expand_end", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .pos = SZ_16K, .len = SZ_16K,
	  .cache = { .on = true, .granule = SZ_64K, .expand_how = NK_EXPAND_END },
	  .expect = { .request = { SZ_16K, (SZ_32K + SZ_16K) },
		      .calls = { { SZ_16K, (SZ_32K + SZ_16K) } } } },
	{ .name = "cache_expand_both", .size = SZ_1M, .op = NK_OP_READAHEAD,
	  .pos = SZ_16K, .len = SZ_16K,
	  .cache = { .on = true, .granule = SZ_64K, .expand_how = NK_EXPAND_BOTH },
	  .expect = { .request = { 0, SZ_64K }, .calls = { { 0, SZ_64K } },
		      .writes = { { 0, SZ_64K } } } },
};

NK_TABLE_PARAMS(cache);

static struct kunit_case netfs_readahead_cases[] = {
	KUNIT_CASE_PARAM(readahead_run, readahead_gen_params),
	{}
};

static struct kunit_suite netfs_readahead_suite = {
	.name = "netfs_readahead",
	.suite_init = nk_suite_init,
	.suite_exit = nk_suite_exit,
	.test_cases = netfs_readahead_cases,
};

static struct kunit_case netfs_read_folio_cases[] = {
	KUNIT_CASE_PARAM(read_folio_run, read_folio_gen_params),
	{}
};

static struct kunit_suite netfs_read_folio_suite = {
	.name = "netfs_read_folio",
	.suite_init = nk_suite_init,
	.suite_exit = nk_suite_exit,
	.test_cases = netfs_read_folio_cases,
};

static struct kunit_case netfs_write_begin_cases[] = {
	KUNIT_CASE_PARAM(write_begin_run, write_begin_gen_params),
	{}
};

static struct kunit_suite netfs_write_begin_suite = {
	.name = "netfs_write_begin",
	.suite_init = nk_suite_init,
	.suite_exit = nk_suite_exit,
	.test_cases = netfs_write_begin_cases,
};

static struct kunit_case netfs_cache_cases[] = {
	KUNIT_CASE_PARAM(cache_run, cache_gen_params),
	{}
};

static struct kunit_suite netfs_cache_suite = {
	.name = "netfs_cache",
	.suite_init = nk_suite_init,
	.suite_exit = nk_suite_exit,
	.test_cases = netfs_cache_cases,
};

/* 11 and 12: concurrency, and bookkeeping over many requests */
static void many_requests(struct kunit *test)
{
	nk_case_many_requests(test);
}

static void two_readers(struct kunit *test)
{
	nk_case_two_readers(test);
}

static void readahead_vs_read_folio(struct kunit *test)
{
	nk_case_readahead_vs_read_folio(test);
}

static void many_inodes(struct kunit *test)
{
	nk_case_many_inodes(test);
}

static struct kunit_case netfs_concurrency_cases[] = {
	KUNIT_CASE(many_requests),
	KUNIT_CASE(two_readers),
	KUNIT_CASE(readahead_vs_read_folio),
	KUNIT_CASE(many_inodes),
	{}
};

static struct kunit_suite netfs_concurrency_suite = {
	.name = "netfs_concurrency",
	.suite_init = nk_suite_init,
	.suite_exit = nk_suite_exit,
	.test_cases = netfs_concurrency_cases,
};

kunit_test_suites(&netfs_readahead_suite, &netfs_read_folio_suite,
		  &netfs_write_begin_suite, &netfs_cache_suite,
		  &netfs_concurrency_suite);

MODULE_DESCRIPTION("KUnit suites for the netfs read helpers");
MODULE_LICENSE("GPL");
