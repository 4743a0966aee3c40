// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs_crypt: the read path of inodes whose content is encrypted (struct
 * netfs_crypto_ops): each class of the other suites' scenarios with the
 * file encrypted, at crypto block sizes of 512 bytes, 4KiB, 16KiB and
 * 64KiB, so with blocks smaller than, as large as and larger than folios.
 *
 * On top of the checks of every scenario (the page cache holds the
 * plaintext byte for byte, the folio states, the calls, the requests
 * freed), the harness checks that every byte the fake cache holds is the
 * server's ciphertext, that the decrypt hook is only given whole blocks in
 * process context, and that no folio is uptodate and unlocked before its
 * block is decrypted (crypt.c).  A corrupted block fails exactly the
 * folios it covers.  Each scenario runs at each block size, as
 * "crypt_<size>_<scenario>/<folios>/<context>"; on a library without
 * content encryption they are skipped.
 */

#include <linux/sizes.h>

#include "harness.h"

/* EOF inside a block of every size */
#define CSIZE		(3 * SZ_64K + 1234)

static const struct nk_scenario crypt_scenarios[] = {
	/* readahead of a window, and kernel_read() to EOF */
	{ .name = "readahead", .size = CSIZE, .op = NK_OP_READAHEAD,
	  .pos = SZ_64K, .len = SZ_64K, .expect = { NK_ANY_CALLS } },
	{ .name = "read_to_eof", .size = CSIZE, .op = NK_OP_READ, .len = CSIZE,
	  .expect = { NK_ANY_CALLS } },
	{ .name = "small_file", .size = 100, .op = NK_OP_READ, .len = SZ_4K,
	  .expect = { NK_ANY_CALLS } },
	/* slices smaller than a block, and not a divisor of one */
	{ .name = "rsize_1536", .size = CSIZE, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .server = { .rsize = 1536 },
	  .expect = { NK_ANY_CALLS } },
	{ .name = "short_reads", .size = CSIZE, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .server = { .step = 3000 },
	  .expect = { NK_ANY_CALLS } },
	{ .name = "expanded", .size = CSIZE, .op = NK_OP_READAHEAD,
	  .pos = SZ_16K + SZ_4K, .len = SZ_4K,
	  .server = { .expand = SZ_32K, .expand_how = NK_EXPAND_BOTH },
	  .expect = { NK_ANY_CALLS } },
	/* a failed download fails the folios of the blocks it covers */
	{ .name = "error", .size = CSIZE, .op = NK_OP_READAHEAD, .len = SZ_64K,
	  .server = { .rsize = SZ_16K, .faults = { NK_ERROR(2, -EIO) } },
	  .expect = { NK_ANY_CALLS, .bad = NK_RANGE(SZ_16K, SZ_16K) } },
	/* the server's file ends short: the rest reads as zeroes */
	{ .name = "clear_tail", .size = CSIZE, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .server = { .rsize = SZ_16K, .resize_at = 1, .resize_to = 40000,
		      .clear_tail = true },
	  .expect = { NK_ANY_CALLS } },
	/* read_folio and write_begin of one folio inside a block */
	{ .name = "read_folio", .size = CSIZE, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_64K + SZ_16K, .expect = { NK_ANY_CALLS } },
	{ .name = "read_folio_eof", .size = CSIZE, .op = NK_OP_READ_FOLIO,
	  .pos = 3 * SZ_64K, .expect = { NK_ANY_CALLS } },
	{ .name = "write_begin", .size = CSIZE, .op = NK_OP_WRITE,
	  .pos = SZ_16K + 100, .len = 200, .folios = SMALL_ONLY,
	  .expect = { NK_ANY_CALLS } },
	/* the cache: read from it, copied to it, failing, stale */
	{ .name = "cache_held", .size = CSIZE, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .cache = { .on = true, .held = { NK_RANGE(0, CSIZE) } },
	  .expect = { .server_calls = 0, .cache_reads = NK_ANY,
		      .cache_writes = NK_ANY, .cwb_calls = NK_ANY } },
	{ .name = "cache_copy", .size = CSIZE, .op = NK_OP_READ, .len = CSIZE,
	  .cache = { .on = true },
	  .expect = { NK_ANY_CALLS, .cached = NK_RANGE(0, 3 * SZ_64K) } },
	{ .name = "cache_fails", .size = CSIZE, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .server = { .rsize = SZ_16K },
	  .cache = { .on = true, .held = { NK_RANGE(0, CSIZE) },
		     .faults = { NK_ERROR(1, -EIO) } },
	  .expect = { NK_ANY_CALLS } },
	{ .name = "cache_stale", .size = CSIZE, .op = NK_OP_READAHEAD,
	  .len = SZ_64K,
	  .cache = { .on = true, .held = { NK_RANGE(0, CSIZE) },
		     .stale = true },
	  .expect = { NK_ANY_CALLS } },
	/* a block that does not authenticate fails exactly its folios */
	{ .name = "corrupt", .size = CSIZE, .op = NK_OP_READAHEAD,
	  .len = SZ_64K, .corrupt = NK_RANGE(40000, 1),
	  .expect = { NK_ANY_CALLS, .bad = NK_RANGE(40000, 1) } },
	{ .name = "corrupt_read_folio", .size = CSIZE, .op = NK_OP_READ_FOLIO,
	  .pos = SZ_64K, .corrupt = NK_RANGE(SZ_64K + 100, 1),
	  .expect = { NK_ANY_CALLS, .error = -EBADMSG,
		      .bad = NK_RANGE(SZ_64K + 100, 1) } },
};

static const struct nk_table crypt_table = {
	.scenarios = crypt_scenarios,
	.count = ARRAY_SIZE(crypt_scenarios),
};

static const size_t crypt_sizes[] = { 512, SZ_4K, SZ_16K, SZ_64K };
static const char * const crypt_size_names[] = { "512", "4k", "16k", "64k" };

/* A case: the block size, above nk_gen_params()'s own number */
#define CRYPT_SIZE_SHIFT	24

/*
 * Every scenario at each block size, as nk_gen_params() makes it for every
 * folio size and context: "crypt_<size>_<scenario>/<folios>/<context>".
 */
static const void *crypt_gen_params(const void *prev, char *desc)
{
	unsigned long p = (unsigned long)prev, size = p >> CRYPT_SIZE_SHIFT;
	const void *n = (const void *)(p & (BIT(CRYPT_SIZE_SHIFT) - 1));
	char what[KUNIT_PARAM_DESC_SIZE];

	for (; size < ARRAY_SIZE(crypt_sizes); size++, n = NULL) {
		n = nk_gen_params(&crypt_table, n, what);
		if (n) {
			snprintf(desc, KUNIT_PARAM_DESC_SIZE, "crypt_%s_%s",
				 crypt_size_names[size], what);
			return (const void *)(size << CRYPT_SIZE_SHIFT |
					      (unsigned long)n);
		}
	}
	return NULL;
}

static void crypt_run(struct kunit *test)
{
	unsigned long p = (unsigned long)test->param_value;
	struct nk_scenario *sc = kunit_kmalloc(test, sizeof(*sc), GFP_KERNEL);
	enum nk_folios folios;
	enum nk_ctx ctx;

	KUNIT_ASSERT_NOT_NULL(test, sc);
	*sc = *nk_param_scenario(&crypt_table,
				 p & (BIT(CRYPT_SIZE_SHIFT) - 1), &ctx, &folios);
	sc->crypt = crypt_sizes[p >> CRYPT_SIZE_SHIFT];
	nk_run(test, sc, ctx, folios);
}

static struct kunit_case crypt_cases[] = {
	KUNIT_CASE_PARAM(crypt_run, crypt_gen_params),
	{}
};

static struct kunit_suite crypt_suite = {
	.name = "netfs_crypt",
	.suite_init = nk_suite_init,
	.suite_exit = nk_suite_exit,
	.test_cases = crypt_cases,
};

kunit_test_suites(&crypt_suite);
