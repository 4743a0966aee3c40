// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs_read_folio: the suite of netfs_read_folio(): one folio,
 * synchronously, no expansion.
 *
 * Each entry is one scenario (struct nk_scenario in netfs_kunit.h): the
 * file, the operation, the fake server's and the fake cache's scripts, and
 * what must be seen afterwards.  After each run the harness checks the
 * page cache byte for byte, the folio states, the calls the fakes saw and
 * the request bookkeeping.  Adding a regression case is adding one entry.
 */

#include <linux/sizes.h>

#include "netfs_kunit.h"

static const struct nk_scenario read_folio_scenarios[] = {
	{ .name = "middle", .size = SZ_64K, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K,
	  .expect = { .server_calls = 1, .slices = true } },
	{ .name = "not_expanded", .size = SZ_64K, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K,
	  .server = { .expand = SZ_64K, .expand_how = NK_EXPAND_BOTH },
	  .expect = { .server_calls = 1, .slices = true } },
	{ .name = "eof_folio", .size = 5000, .op = NK_OP_READ_FOLIO, .pos = PG,
	  .expect = { .server_calls = 1, .slices = true } },
	{ .name = "beyond_eof", .size = 5000, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_64K,
	  .expect = { .server_calls = 0 } },
	{ .name = "rsize_1000", .size = SZ_64K, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K, .server = { .rsize = 1000 },
	  .expect = { .server_calls = NK_ANY, .slices = true } },
	{ .name = "beyond_4gib", .size = SZ_4G + SZ_1G, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_4G + SZ_16K, .expect = { .server_calls = 1,
					     .slices = true } },
	{ .name = "error", .size = SZ_64K, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K,
	  .server = { .faults = { NK_ERROR(1, -EIO) } },
	  .expect = { .error = -EIO, .server_calls = 1,
		      .bad = NK_RANGE(SZ_16K, 1) } },
	{ .name = "no_progress_twice", .size = SZ_64K, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K,
	  .server = { .faults = { NK_ZERO(1), NK_ZERO(2) } },
	  .expect = { .error = -ENODATA, .server_calls = 2,
		      .bad = NK_RANGE(SZ_16K, 1) } },
	{ .name = "no_progress_not_in_row", .size = SZ_64K,
	  .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K,
	  .server = { .faults = { NK_ZERO(1), NK_SHORT(2, 1000), NK_ZERO(3) } },
	  .expect = { .server_calls = 4 } },
	/* a slice that cannot be prepared fails the read (upstream bug F4) */
	{ .name = "clamp_length_fails", .size = SZ_64K, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K, .server = { .clamp_fail = 1 },
	  .expect = { .error = -EIO, .server_calls = 0,
		      .bad = NK_RANGE(SZ_16K, 1) } },
	/* its slice held back for a while: it returns only once that is read */
	{ .name = "waits_for_its_slice", .size = SZ_64K, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K, .server = { .hold = 1 },
	  .expect = { .server_calls = 1, .slices = true } },
	{ .name = "init_request_error", .size = SZ_64K, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K, .server = { .init_error = -ENOMEM },
	  .expect = { .error = -ENOMEM, .server_calls = 0,
		      .bad = NK_RANGE(SZ_16K, 1) } },
	{ .name = "begin_cache_enomem", .size = SZ_64K, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K, .cache = { .begin_error = -ENOMEM },
	  .expect = { .error = -ENOMEM, .server_calls = 0,
		      .bad = NK_RANGE(SZ_16K, 1) } },
	{ .name = "begin_cache_eintr", .size = SZ_64K, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K, .cache = { .begin_error = -EINTR },
	  .expect = { .error = -EINTR, .server_calls = 0,
		      .bad = NK_RANGE(SZ_16K, 1) } },
	{ .name = "begin_cache_erestartsys", .size = SZ_64K,
	  .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K, .cache = { .begin_error = -ERESTARTSYS },
	  .expect = { .error = -ERESTARTSYS, .server_calls = 0,
		      .bad = NK_RANGE(SZ_16K, 1) } },
	{ .name = "begin_cache_enobufs", .size = SZ_64K, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K, .cache = { .begin_error = -ENOBUFS },
	  .expect = { .server_calls = 1, .slices = true } },
	{ .name = "from_cache", .size = SZ_64K, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K, .cache = { .on = true,
				    .held = { NK_RANGE(0, SZ_64K) } },
	  .expect = { .server_calls = 0, .cache_reads = 1,
		      .cache_writes = 0 } },
	{ .name = "to_cache", .size = SZ_64K, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_16K,
	  .cache = { .on = true },
	  .expect = { .cache_reads = NK_ANY, .server_calls = 1,
		      .cache_writes = 1,
		      .cached = NK_RANGE(SZ_16K, PG) } },
	{ .name = "read_cache_folio", .size = SZ_64K, .op = NK_OP_CACHE_FOLIO,
	  .pos = 2 * PG, .folios = SMALL_ONLY,
	  .expect = { .server_calls = 1, .calls = { NK_CALL(2 * PG, PG) } } },
	{ .name = "read_cache_folio_error", .size = SZ_64K,
	  .op = NK_OP_CACHE_FOLIO,
	  .pos = 2 * PG, .folios = SMALL_ONLY,
	  .server = { .faults = { NK_ERROR(1, -EIO) } },
	  .expect = { .server_calls = NK_ANY, .error = -EIO,
		      .bad = NK_RANGE(2 * PG, 1) } },
};

NK_TABLE_SUITE(read_folio, "netfs_read_folio");
