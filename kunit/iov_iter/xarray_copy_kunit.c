// SPDX-License-Identifier: GPL-2.0-only
/*
 * iov_iter_xarray KUnit suite: the copies.
 *
 * copy_to_iter(), copy_from_iter() and their page, nocache and atomic
 * variants, iov_iter_zero() and the checksumming copies over every range
 * of the fixture, checked byte for byte over the whole layout (a stray
 * write anywhere shows) and for the iterator's state; and the same
 * operations against a hole in the xarray.
 */

#include <kunit/test.h>
#include <linux/bvec.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>
#include <net/checksum.h>

#include "xarray_fixture.h"

/*
 * A "to" operation copies @len bytes of pattern, from layout byte @off
 * (fx->pattern + @off), into the iterator; it returns the bytes copied.
 * A "from" operation copies @len bytes from the iterator into fx->buf.
 */
typedef size_t (*ixa_op_t)(struct ixa_fixture *fx, struct iov_iter *it,
			  size_t off, size_t len);

/* Run a "to" operation over every range; it may be asked for a page more. */
static void run_to_op(struct kunit *test, ixa_op_t op, const char *what)
{
	struct ixa_fixture *fx = test->priv;
	const struct ixa_range *r;

	for (r = ixa_ranges; r < IXA_RANGES_END; r++) {
		struct iov_iter it;

		ixa_fill(fx, false);
		ixa_iter(fx, &it, ITER_DEST, r);
		if (!ixa_check_ret(fx, r, what,
				   op(fx, &it, r->start, r->len + PAT_GUARD), r->len) ||
		    !ixa_check_state(fx, &it, r, r->len) || !ixa_verify(fx, r, true))
			return;
	}
}

/* Run a "from" operation over every range and check nothing more is written. */
static void run_from_op(struct kunit *test, ixa_op_t op, const char *what)
{
	struct ixa_fixture *fx = test->priv;
	const struct ixa_range *r;

	ixa_fill(fx, true);
	for (r = ixa_ranges; r < IXA_RANGES_END; r++) {
		struct iov_iter it;

		memset(fx->buf, 0, r->len + PAT_GUARD);
		ixa_iter(fx, &it, ITER_SOURCE, r);
		if (!ixa_check_ret(fx, r, what, op(fx, &it, 0, r->len + PAT_GUARD), r->len) ||
		    !ixa_check_state(fx, &it, r, r->len) ||
		    !ixa_buf_verify(fx, r, r->start, r->len))
			return;
		if (memchr_inv(fx->buf + r->len, 0, PAT_GUARD)) {
			KUNIT_FAIL(test, "range [%zu, +%zu): %s wrote past the end",
				   r->start, r->len, what);
			return;
		}
	}
}

static size_t op_copy_to_iter(struct ixa_fixture *fx, struct iov_iter *it,
			      size_t off, size_t len)
{
	return copy_to_iter(fx->pattern + off, len, it);
}

static size_t op_copy_from_iter(struct ixa_fixture *fx, struct iov_iter *it,
				size_t off, size_t len)
{
	return copy_from_iter(fx->buf + off, len, it);
}

static size_t op_copy_from_iter_nocache(struct ixa_fixture *fx, struct iov_iter *it,
					size_t off, size_t len)
{
	return _copy_from_iter_nocache(fx->buf + off, len, it);
}

static size_t op_zero(struct ixa_fixture *fx, struct iov_iter *it,
		      size_t off, size_t len)
{
	return iov_iter_zero(len, it);
}

/*
 * The page-based copies take the vmalloc'ed buffer one page (or less) at a
 * time, with piece sizes that do not line up with the iterator's pages.
 */
static size_t piece_len(size_t done, size_t addr, size_t left)
{
	size_t n = PAGE_SIZE - offset_in_page(addr);

	if (done % 3 == 1 && n > 100)
		n = 100;
	return min(n, left);
}

static size_t op_copy_page_to_iter(struct ixa_fixture *fx, struct iov_iter *it,
				   size_t off, size_t len)
{
	size_t done = 0;

	while (done < len) {
		const u8 *src = fx->pattern + off + done;
		size_t n = piece_len(done, (unsigned long)src, len - done);
		size_t got = copy_page_to_iter(vmalloc_to_page(src),
					       offset_in_page(src), n, it);

		done += got;
		if (got < n)
			break;
	}
	return done;
}

static size_t page_from_iter(struct ixa_fixture *fx, struct iov_iter *it,
			     size_t len, bool atomic)
{
	size_t done = 0;

	while (done < len) {
		u8 *dst = fx->buf + done;
		size_t n = piece_len(done, (unsigned long)dst, len - done);
		struct page *page = vmalloc_to_page(dst);
		size_t got;

		if (atomic)
			got = copy_page_from_iter_atomic(page, offset_in_page(dst), n, it);
		else
			got = copy_page_from_iter(page, offset_in_page(dst), n, it);
		done += got;
		if (got < n)
			break;
	}
	return done;
}

static size_t op_copy_page_from_iter(struct ixa_fixture *fx, struct iov_iter *it,
				     size_t off, size_t len)
{
	return page_from_iter(fx, it, len, false);
}

static size_t op_copy_page_from_iter_atomic(struct ixa_fixture *fx, struct iov_iter *it,
					    size_t off, size_t len)
{
	return page_from_iter(fx, it, len, true);
}

/* A case of one copy operation over every range, run by run_to_op or run_from_op */
#define IXA_COPY_CASE(name, run)					\
	void xarray_##name(struct kunit *test)				\
	{								\
		run(test, op_##name, #name);				\
	}

/* copy_to_iter() fills exactly the iterator's range; asking for more is clamped. */
IXA_COPY_CASE(copy_to_iter, run_to_op);
IXA_COPY_CASE(copy_page_to_iter, run_to_op);
/* copy_from_iter() reads exactly the iterator's range. */
IXA_COPY_CASE(copy_from_iter, run_from_op);
IXA_COPY_CASE(copy_from_iter_nocache, run_from_op);
IXA_COPY_CASE(copy_page_from_iter, run_from_op);
IXA_COPY_CASE(copy_page_from_iter_atomic, run_from_op);

/* iov_iter_zero() clears exactly the iterator's range. */
void xarray_zero(struct kunit *test)
{
	struct ixa_fixture *fx = test->priv;
	const struct ixa_range *r;

	for (r = ixa_ranges; r < IXA_RANGES_END; r++) {
		struct iov_iter it;

		ixa_fill(fx, true);
		ixa_iter(fx, &it, ITER_DEST, r);
		if (!ixa_check_ret(fx, r, "iov_iter_zero",
				   op_zero(fx, &it, 0, r->len + PAT_GUARD), r->len) ||
		    !ixa_check_state(fx, &it, r, r->len) || !ixa_verify(fx, r, false))
			return;
	}
}

/*
 * Two Internet checksums of the same bytes are the same number in ones'
 * complement, where 0x0000 and 0xffff are both zero: x86's copying
 * checksum starts from ~0 and csum_partial() from 0, so an all-zero sum
 * folds to one in one and to the other in the other.
 */
static bool csum_same(__wsum a, __wsum b)
{
	u16 x = ~(__force u16)csum_fold(a), y = ~(__force u16)csum_fold(b);

	return x % 0xffff == y % 0xffff;
}

/* The checksums equal csum_partial() over the same bytes. */
void xarray_csum_and_copy_to_iter(struct kunit *test)
{
	struct ixa_fixture *fx = test->priv;
	const struct ixa_range *r;

	for (r = ixa_ranges; r < IXA_RANGES_END; r++) {
		struct csum_state cs = { .csum = 0, .off = 0 };
		__wsum want = csum_partial(fx->pattern + r->start, r->len, 0);
		struct iov_iter it;
		size_t n;

		ixa_fill(fx, false);
		ixa_iter(fx, &it, ITER_DEST, r);
		n = csum_and_copy_to_iter(fx->pattern + r->start, r->len + PAT_GUARD, &cs, &it);
		if (!ixa_check_ret(fx, r, "csum_and_copy_to_iter", n, r->len) ||
		    !ixa_check_state(fx, &it, r, r->len) || !ixa_verify(fx, r, true))
			return;
		KUNIT_EXPECT_TRUE_MSG(test, csum_same(cs.csum, want),
				      "range [%zu, +%zu): checksum %#x, expected %#x",
				      r->start, r->len, (__force u16)csum_fold(cs.csum),
				      (__force u16)csum_fold(want));
		KUNIT_EXPECT_EQ_MSG(test, cs.off, r->len, "range [%zu, +%zu)", r->start, r->len);
	}
}

void xarray_csum_and_copy_from_iter(struct kunit *test)
{
	struct ixa_fixture *fx = test->priv;
	const struct ixa_range *r;

	ixa_fill(fx, true);
	for (r = ixa_ranges; r < IXA_RANGES_END; r++) {
		__wsum want = csum_partial(fx->pattern + r->start, r->len, 0);
		struct iov_iter it;
		__wsum sum = 0;
		size_t n;

		memset(fx->buf, 0, r->len);
		ixa_iter(fx, &it, ITER_SOURCE, r);
		n = csum_and_copy_from_iter(fx->buf, r->len + PAT_GUARD, &sum, &it);
		if (!ixa_check_ret(fx, r, "csum_and_copy_from_iter", n, r->len) ||
		    !ixa_check_state(fx, &it, r, r->len) ||
		    !ixa_buf_verify(fx, r, r->start, r->len))
			return;
		KUNIT_EXPECT_TRUE_MSG(test, csum_same(sum, want),
				      "range [%zu, +%zu): checksum %#x, expected %#x",
				      r->start, r->len, (__force u16)csum_fold(sum),
				      (__force u16)csum_fold(want));
	}
}

/*
 * A checksumming copy split into two calls at an odd offset gives the sum of
 * one call: csum_state carries the offset, so the second part's bytes are
 * summed in the right lanes.
 */
void xarray_csum_split(struct kunit *test)
{
	struct ixa_fixture *fx = test->priv;
	const struct ixa_range *r;

	for (r = ixa_ranges; r < IXA_RANGES_END; r++) {
		struct csum_state cs = { .csum = 0, .off = 0 };
		__wsum want = csum_partial(fx->pattern + r->start, r->len, 0);
		size_t split = (r->len / 2) | 1, n;
		struct iov_iter it;

		if (r->len < 2)
			continue;
		ixa_fill(fx, false);
		ixa_iter(fx, &it, ITER_DEST, r);
		n = csum_and_copy_to_iter(fx->pattern + r->start, split, &cs, &it);
		n += csum_and_copy_to_iter(fx->pattern + r->start + split,
					   r->len - split, &cs, &it);
		if (!ixa_check_ret(fx, r, "two csum_and_copy_to_iter", n, r->len) ||
		    !ixa_check_state(fx, &it, r, r->len) || !ixa_verify(fx, r, true))
			return;
		KUNIT_EXPECT_TRUE_MSG(test, csum_same(cs.csum, want),
				      "range [%zu, +%zu) split at %zu: checksum %#x, expected %#x",
				      r->start, r->len, split, (__force u16)csum_fold(cs.csum),
				      (__force u16)csum_fold(want));
		KUNIT_EXPECT_EQ_MSG(test, cs.off, r->len, "range [%zu, +%zu)", r->start, r->len);
	}
}

void xarray_hole_copy(struct kunit *test)
{
	struct ixa_fixture *fx = test->priv;
	unsigned int k;

	for (k = 0; k < ixa_nr_hole_ranges; k++) {
		const struct ixa_range *r = &ixa_hole_ranges[k].r;
		struct ixa_range done = { r->start, ixa_hole_ranges[k].copied };
		struct iov_iter it;

		ixa_fill(fx, false);
		ixa_iter(fx, &it, ITER_DEST, r);
		if (!ixa_check_ret(fx, r, "copy_to_iter",
				   op_copy_to_iter(fx, &it, r->start, r->len), done.len) ||
		    !ixa_check_state(fx, &it, r, done.len) || !ixa_verify(fx, &done, true))
			return;

		ixa_fill(fx, true);
		ixa_iter(fx, &it, ITER_SOURCE, r);
		if (!ixa_check_ret(fx, r, "copy_from_iter",
				   op_copy_from_iter(fx, &it, 0, r->len), done.len) ||
		    !ixa_check_state(fx, &it, r, done.len) ||
		    !ixa_buf_verify(fx, r, r->start, done.len))
			return;
	}
}

static size_t op_csum_to_iter(struct ixa_fixture *fx, struct iov_iter *it,
			      size_t off, size_t len)
{
	struct csum_state cs = { .csum = 0, .off = 0 };

	return csum_and_copy_to_iter(fx->pattern + off, len, &cs, it);
}

static size_t op_csum_from_iter(struct ixa_fixture *fx, struct iov_iter *it,
				size_t off, size_t len)
{
	__wsum sum = 0;

	return csum_and_copy_from_iter(fx->buf + off, len, &sum, it);
}

/* The other copies stop at a hole the same way; iov_iter_zero() too. */
void xarray_hole_ops(struct kunit *test)
{
	static const struct {
		ixa_op_t op;
		const char *what;
		unsigned int dir;
		bool zero;
	} ops[] = {
		{ op_copy_page_to_iter, "copy_page_to_iter", ITER_DEST },
		{ op_csum_to_iter, "csum_and_copy_to_iter", ITER_DEST },
		{ op_zero, "iov_iter_zero", ITER_DEST, true },
		{ op_copy_page_from_iter, "copy_page_from_iter", ITER_SOURCE },
		{ op_csum_from_iter, "csum_and_copy_from_iter", ITER_SOURCE },
	};
	struct ixa_fixture *fx = test->priv;
	unsigned int k, o;

	for (o = 0; o < ARRAY_SIZE(ops); o++) {
		for (k = 0; k < ixa_nr_hole_ranges; k++) {
			const struct ixa_range *r = &ixa_hole_ranges[k].r;
			struct ixa_range done = { r->start, ixa_hole_ranges[k].copied };
			bool to = ops[o].dir == ITER_DEST;
			struct iov_iter it;

			ixa_fill(fx, !to || ops[o].zero);
			memset(fx->buf, 0, r->len);
			ixa_iter(fx, &it, ops[o].dir, r);
			if (!ixa_check_ret(fx, r, ops[o].what,
					   ops[o].op(fx, &it, to ? r->start : 0, r->len),
					   done.len) ||
			    !ixa_check_state(fx, &it, r, done.len))
				return;
			if (to && !ixa_verify(fx, &done, !ops[o].zero))
				return;
			if (!to && !ixa_buf_verify(fx, r, r->start, done.len))
				return;
		}
	}
}
