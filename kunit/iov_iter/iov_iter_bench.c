// SPDX-License-Identifier: GPL-2.0-only
/*
 * Throughput of ITER_XARRAY copies, for `make bench` (not part of the test
 * run: it asserts nothing about speed, it measures it).
 *
 * Copies 64 MiB to and from an ITER_XARRAY over order-0 and over order-9
 * folios; the same bytes with plain memcpy() folio by folio (what a caller
 * without an iterator would do); and 64 MiB with one memcpy() between two
 * vmalloc buffers, the ceiling.  Each figure is the best of several passes,
 * printed as
 *   "bench: <what> order-<n>: <MiB/s> MiB/s"
 * for tools/bench to collect.
 */

#include <kunit/test.h>
#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>

#include "ixa_kunit.h"

#define BENCH_BYTES	SZ_64M
#define BENCH_PASSES	5

struct bench {
	struct xarray xa;
	u8 *buf;
	u8 *flat;		/* second buffer for the flat memcpy() */
};

static void bench_free(struct bench *b)
{
	ixa_put_folios(&b->xa);
	vfree(b->buf);
	vfree(b->flat);
}

static int bench_fill(struct kunit *test, struct bench *b, unsigned int order)
{
	pgoff_t index;

	xa_init(&b->xa);
	b->buf = vzalloc(BENCH_BYTES);
	b->flat = vzalloc(BENCH_BYTES);
	if (!b->buf || !b->flat)
		return -ENOMEM;
	for (index = 0; index < BENCH_BYTES / PAGE_SIZE; index += 1UL << order) {
		struct folio *folio = folio_alloc(GFP_KERNEL | __GFP_ZERO, order);
		int err;

		if (!folio)
			return -ENOMEM;
		err = ixa_store_folio(&b->xa, index, folio);
		if (err) {
			folio_put(folio);
			return err;
		}
	}
	return 0;
}

enum bench_op { TO_ITER, FROM_ITER, MEMCPY_FOLIOS, MEMCPY_FLAT };

static u64 bench_pass(struct bench *b, enum bench_op op)
{
	struct iov_iter it;
	struct folio *folio;
	unsigned long index;
	size_t done = 0;
	u64 t0 = ktime_get_ns();

	switch (op) {
	case TO_ITER:
		iov_iter_xarray(&it, ITER_DEST, &b->xa, 0, BENCH_BYTES);
		done = copy_to_iter(b->buf, BENCH_BYTES, &it);
		break;
	case FROM_ITER:
		iov_iter_xarray(&it, ITER_SOURCE, &b->xa, 0, BENCH_BYTES);
		done = copy_from_iter(b->buf, BENCH_BYTES, &it);
		break;
	case MEMCPY_FLAT:
		memcpy(b->flat, b->buf, BENCH_BYTES);
		done = BENCH_BYTES;
		break;
	case MEMCPY_FOLIOS:
		xa_for_each(&b->xa, index, folio) {
			void *p = kmap_local_folio(folio, 0);

			/* no HIGHMEM on x86_64: the folio is contiguous */
			memcpy(p, b->buf + done, folio_size(folio));
			kunmap_local(p);
			done += folio_size(folio);
		}
		break;
	}
	if (done != BENCH_BYTES)
		return 0;
	return ktime_get_ns() - t0;
}

static void bench_order(struct kunit *test, unsigned int order)
{
	static const char * const names[] = {
		"copy_to_iter", "copy_from_iter", "memcpy_folios", "memcpy_flat",
	};
	struct bench b = {};
	enum bench_op op;

	if (bench_fill(test, &b, order)) {
		bench_free(&b);
		KUNIT_FAIL(test, "out of memory");
		return;
	}
	for (op = TO_ITER; op <= MEMCPY_FLAT; op++) {
		u64 best = U64_MAX, ns;
		unsigned int pass;

		for (pass = 0; pass < BENCH_PASSES; pass++) {
			ns = bench_pass(&b, op);
			KUNIT_EXPECT_NE_MSG(test, ns, 0, "%s copied short", names[op]);
			if (ns && ns < best)
				best = ns;
		}
		if (best != U64_MAX)
			kunit_info(test, "bench: %s order-%u: %llu MiB/s\n", names[op], order,
				   div64_u64((u64)BENCH_BYTES * NSEC_PER_SEC, best * SZ_1M));
	}
	bench_free(&b);
}

static void bench_order0(struct kunit *test)
{
	bench_order(test, 0);
}

static void bench_order9(struct kunit *test)
{
	bench_order(test, 9);
}

static struct kunit_case iov_iter_bench_cases[] = {
	KUNIT_CASE(bench_order0),
	KUNIT_CASE(bench_order9),
	{}
};

static struct kunit_suite iov_iter_bench_suite = {
	.name = "iov_iter_bench",
	.test_cases = iov_iter_bench_cases,
};

kunit_test_suite(iov_iter_bench_suite);

MODULE_DESCRIPTION("ITER_XARRAY throughput, for make bench");
MODULE_LICENSE("GPL");
