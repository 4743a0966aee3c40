// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite for ITER_XARRAY iov_iters.
 *
 * Every case builds an xarray of folios the way the page cache holds them
 * (one multi-index entry per large folio), runs one iov_iter operation over
 * a table of byte ranges and checks the result byte for byte against a
 * position-dependent pattern, plus the iterator's state afterwards.  The
 * expected bytes are read back through xa_load() and kmap_local_folio(), not
 * through an iterator, so the check does not depend on the code under test.
 *
 * Each case also runs over an ITER_BVEC iterator describing the same bytes of
 * the same folios and is held to the same expectations: a differential check
 * that ITER_XARRAY behaves like the iterator type everybody else uses.
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

#include "xa_kunit.h"

/* Every layout covers the same number of bytes. */
#define XA_PAGES	1024
#define XA_BYTES	((size_t)XA_PAGES * PAGE_SIZE)
/* The pattern buffer runs on past the end so a copy may ask for more. */
#define PAT_GUARD	PAGE_SIZE
/* An index above 4 GiB of file position, aligned for an order-9 folio */
#define HIGH_INDEX	((5ULL << 30) >> PAGE_SHIFT)

struct folio_run {
	unsigned int order;
	unsigned int count;
	bool hole;		/* leave these indices empty */
};

struct xa_layout {
	const char *name;
	u64 base;			/* index of the first folio */
	struct folio_run runs[12];	/* ends at the first run with count 0 */
};

static const struct xa_layout xa_layouts[] = {
	{ "order-0", 0, { { 0, XA_PAGES } } },
	{ "order-2", 0, { { 2, XA_PAGES / 4 } } },
	{ "order-9", 0, { { 9, XA_PAGES / 512 } } },
	/* 4 + 4 + 8 + ... + 512 = 1024 pages, each folio naturally aligned */
	{ "mixed", 0, { { 0, 4 }, { 2, 1 }, { 3, 1 }, { 4, 1 }, { 5, 1 },
			{ 6, 1 }, { 7, 1 }, { 8, 1 }, { 9, 1 } } },
	/* positions beyond 4 GiB: 64-bit position arithmetic */
	{ "order-0-at-5G", HIGH_INDEX, { { 0, XA_PAGES } } },
	{ "order-9-at-5G", HIGH_INDEX, { { 9, XA_PAGES / 512 } } },
};

/* Order-2 folios with one missing at pages 32-35 */
#define HOLE_OFF	(32 * PAGE_SIZE)
#define HOLE_LEN	(4 * PAGE_SIZE)
static const struct xa_layout hole_layout = {
	"order-2-hole", 0, { { 2, 8 }, { 2, 1, true }, { 2, XA_PAGES / 4 - 9 } },
};

struct iter_param {
	const struct xa_layout *layout;
	bool bvec;		/* ITER_BVEC over the same folios */
};

static const struct iter_param iter_params[] = {
	{ &xa_layouts[0], false }, { &xa_layouts[0], true },
	{ &xa_layouts[1], false }, { &xa_layouts[1], true },
	{ &xa_layouts[2], false }, { &xa_layouts[2], true },
	{ &xa_layouts[3], false }, { &xa_layouts[3], true },
	{ &xa_layouts[4], false }, { &xa_layouts[4], true },
	{ &xa_layouts[5], false }, { &xa_layouts[5], true },
};

static const struct iter_param xarray_params[] = {
	{ &xa_layouts[0] }, { &xa_layouts[1] }, { &xa_layouts[2] },
	{ &xa_layouts[3] }, { &xa_layouts[4] }, { &xa_layouts[5] },
};

static const struct iter_param hole_params[] = {
	{ &hole_layout },
};

static void iter_param_desc(const struct iter_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s",
		 p->bvec ? "bvec" : "xarray", p->layout->name);
}

KUNIT_ARRAY_PARAM(iter, iter_params, iter_param_desc);
KUNIT_ARRAY_PARAM(xarray, xarray_params, iter_param_desc);
KUNIT_ARRAY_PARAM(hole, hole_params, iter_param_desc);

struct xa_range {
	size_t start;		/* from the layout's first byte */
	size_t len;
};

/*
 * Empty ranges, single bytes, ranges ending on and one byte either side of
 * page and folio boundaries (order 2: 16 KiB, order 9: 2 MiB), ranges across
 * many folios and the whole buffer.
 */
static const struct xa_range xa_ranges[] = {
	{ 0, 0 },
	{ 0, 1 },
	{ 1, 1 },
	{ PAGE_SIZE - 1, 1 },
	{ PAGE_SIZE - 1, 2 },
	{ PAGE_SIZE, PAGE_SIZE },
	{ PAGE_SIZE + 1, PAGE_SIZE - 2 },
	{ 3, PAGE_SIZE - 3 },
	{ 0, 4 * PAGE_SIZE },
	{ 4 * PAGE_SIZE - 1, 2 },
	{ 4 * PAGE_SIZE + 5, 0 },
	{ 5 * PAGE_SIZE + 7, 3 * PAGE_SIZE },
	{ 12345, SZ_1M },
	{ SZ_2M - 1, 1 },
	{ SZ_2M - 1, 2 },
	{ SZ_2M - PAGE_SIZE - 3, PAGE_SIZE + 7 },
	{ SZ_1M + 3, SZ_2M },
	{ 3, 3 * SZ_1M + 5 },
	{ 0, XA_BYTES },
	{ XA_BYTES - 1, 1 },
	{ XA_BYTES, 0 },
};

#define XA_RANGES_END (xa_ranges + ARRAY_SIZE(xa_ranges))

/* Step sizes for advance and revert */
static const size_t xa_steps[] = {
	1, 3, PAGE_SIZE - 1, PAGE_SIZE, PAGE_SIZE + 1, 5000, SZ_16K + 1, SZ_2M - 1,
};

struct xa_fixture {
	struct kunit *test;
	const struct iter_param *param;
	struct xarray xa;
	loff_t base;		/* file position of the first byte */
	const u8 *pattern;	/* XA_BYTES + PAT_GUARD bytes, from base */
	u8 *buf;		/* scratch, XA_BYTES + PAT_GUARD bytes */
	struct bio_vec *bv;	/* bvecs for the bvec kind, one per folio */
	struct page **pages;	/* for get_pages */
};

static u8 *pattern_low, *pattern_high;

static u8 pattern_byte(u64 pos)
{
	u32 x = (u32)pos ^ (u32)(pos >> 32);

	x *= 0x9e3779b1;
	return x >> 24;
}

static struct folio *xa_folio(struct xa_fixture *fx, size_t off)
{
	return xa_load(&fx->xa, (fx->base + off) >> PAGE_SHIFT);
}

/* The page that holds byte @off of the layout */
static struct page *xa_page(struct xa_fixture *fx, size_t off)
{
	struct folio *folio = xa_folio(fx, off);

	return folio_page(folio, ((fx->base + off) >> PAGE_SHIFT) - folio->index);
}

/*
 * Map the page of the xarray that holds byte @off; *@chunk is set to the
 * bytes from @off to the end of that page.  Unmap with kunmap_local().
 * Returns NULL where the layout has a hole.
 */
static u8 *xa_map(struct xa_fixture *fx, size_t off, size_t *chunk)
{
	struct folio *folio = xa_folio(fx, off);

	*chunk = PAGE_SIZE - offset_in_page(fx->base + off);
	if (!folio)
		return NULL;	/* a hole: nothing to fill or check */
	return kmap_local_folio(folio, offset_in_folio(folio, fx->base + off));
}

/* Fill the whole xarray with the pattern, or with zeroes. */
static void xa_fill(struct xa_fixture *fx, bool pattern)
{
	size_t off, chunk;
	u8 *p;

	for (off = 0; off < XA_BYTES; off += chunk) {
		p = xa_map(fx, off, &chunk);
		if (!p)
			continue;
		if (pattern)
			memcpy(p, fx->pattern + off, chunk);
		else
			memset(p, 0, chunk);
		kunmap_local(p);
	}
}

static size_t first_diff(const u8 *a, const u8 *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (a[i] != b[i])
			break;
	return i;
}

/*
 * Check the xarray: bytes in [r->start, +r->len) hold the pattern when
 * @pattern_inside, zero otherwise; bytes outside hold the opposite.  Reports
 * the first bad offset only.
 */
static bool xa_verify(struct xa_fixture *fx, const struct xa_range *r,
		      bool pattern_inside)
{
	static const u8 zeroes[PAGE_SIZE];
	size_t off, chunk, end = r->start + r->len;
	u8 *p;

	for (off = 0; off < XA_BYTES; off += chunk) {
		size_t k = 0;

		p = xa_map(fx, off, &chunk);
		if (!p)
			continue;
		while (k < chunk) {
			size_t at = off + k, n, bad;
			bool inside = at >= r->start && at < end;
			const u8 *want;

			/* the run of bytes that share one expectation */
			if (inside)
				n = min(chunk - k, end - at);
			else if (at < r->start)
				n = min(chunk - k, r->start - at);
			else
				n = chunk - k;
			if (inside == pattern_inside) {
				want = fx->pattern + at;
				bad = memcmp(p + k, want, n) ? first_diff(p + k, want, n) : n;
			} else {
				u8 *nz = memchr_inv(p + k, 0, n);	/* word at a time */

				want = zeroes;
				bad = nz ? nz - (p + k) : n;
			}
			if (bad < n) {
				KUNIT_FAIL(fx->test,
					   "range [%zu, +%zu): byte %zu of the folios is %#x, expected %#x",
					   r->start, r->len, at + bad, p[k + bad], want[bad]);
				kunmap_local(p);
				return false;
			}
			k += n;
		}
		kunmap_local(p);
	}
	return true;
}

/* Check @len bytes of fx->buf against the pattern from byte @off. */
static bool buf_verify(struct xa_fixture *fx, const struct xa_range *r,
		       size_t off, size_t len)
{
	size_t bad;

	if (!memcmp(fx->buf, fx->pattern + off, len))
		return true;
	bad = first_diff(fx->buf, fx->pattern + off, len);
	KUNIT_FAIL(fx->test,
		   "range [%zu, +%zu): buffer byte %zu (layout byte %zu) is %#x, expected %#x",
		   r->start, r->len, bad, off + bad, fx->buf[bad], fx->pattern[off + bad]);
	return false;
}

/*
 * Set up @it over [r->start, +r->len): an ITER_XARRAY, or for the bvec kind
 * an ITER_BVEC with one segment per folio piece.
 */
static void xa_iter(struct xa_fixture *fx, struct iov_iter *it,
		    unsigned int dir, const struct xa_range *r)
{
	size_t off = r->start, end = r->start + r->len;
	unsigned int n = 0;

	if (!fx->param->bvec) {
		iov_iter_xarray(it, dir, &fx->xa, fx->base + r->start, r->len);
		return;
	}
	while (off < end) {
		struct folio *folio = xa_folio(fx, off);
		size_t in = offset_in_folio(folio, fx->base + off);
		size_t len = min(folio_size(folio) - in, end - off);

		fx->bv[n].bv_page = folio_page(folio, 0);
		fx->bv[n].bv_offset = in;
		fx->bv[n].bv_len = len;
		n++;
		off += len;
	}
	iov_iter_bvec(it, dir, fx->bv, n, r->len);
}

/*
 * The position of an iterator within its range.  For ITER_XARRAY iov_offset
 * counts from the start of the range; ITER_BVEC only promises the count.
 */
static bool check_state(struct xa_fixture *fx, const struct iov_iter *it,
			const struct xa_range *r, size_t done)
{
	bool ok = iov_iter_count(it) == r->len - done;

	if (!fx->param->bvec)
		ok = ok && it->iov_offset == done;
	if (ok)
		return true;
	KUNIT_FAIL(fx->test,
		   "range [%zu, +%zu): after %zu bytes count=%zu iov_offset=%zu, want %zu, %zu",
		   r->start, r->len, done, iov_iter_count(it), it->iov_offset,
		   r->len - done, done);
	return false;
}

static bool check_ret(struct xa_fixture *fx, const struct xa_range *r,
		      const char *what, size_t got, size_t want)
{
	if (got == want)
		return true;
	KUNIT_FAIL(fx->test, "range [%zu, +%zu): %s returned %zu, expected %zu",
		   r->start, r->len, what, got, want);
	return false;
}

/*
 * A "to" operation copies @len bytes of pattern, from layout byte @off
 * (fx->pattern + @off), into the iterator; it returns the bytes copied.
 * A "from" operation copies @len bytes from the iterator into fx->buf.
 */
typedef size_t (*xa_op_t)(struct xa_fixture *fx, struct iov_iter *it,
			  size_t off, size_t len);

/* Run a "to" operation over every range; it may be asked for a page more. */
static void run_to_op(struct kunit *test, xa_op_t op, const char *what)
{
	struct xa_fixture *fx = test->priv;
	const struct xa_range *r;

	for (r = xa_ranges; r < XA_RANGES_END; r++) {
		struct iov_iter it;

		xa_fill(fx, false);
		xa_iter(fx, &it, ITER_DEST, r);
		if (!check_ret(fx, r, what, op(fx, &it, r->start, r->len + PAT_GUARD), r->len) ||
		    !check_state(fx, &it, r, r->len) || !xa_verify(fx, r, true))
			return;
	}
}

/* Run a "from" operation over every range and check nothing more is written. */
static void run_from_op(struct kunit *test, xa_op_t op, const char *what)
{
	struct xa_fixture *fx = test->priv;
	const struct xa_range *r;

	xa_fill(fx, true);
	for (r = xa_ranges; r < XA_RANGES_END; r++) {
		struct iov_iter it;

		memset(fx->buf, 0, r->len + PAT_GUARD);
		xa_iter(fx, &it, ITER_SOURCE, r);
		if (!check_ret(fx, r, what, op(fx, &it, 0, r->len + PAT_GUARD), r->len) ||
		    !check_state(fx, &it, r, r->len) || !buf_verify(fx, r, r->start, r->len))
			return;
		if (memchr_inv(fx->buf + r->len, 0, PAT_GUARD)) {
			KUNIT_FAIL(test, "range [%zu, +%zu): %s wrote past the end",
				   r->start, r->len, what);
			return;
		}
	}
}

static size_t op_copy_to_iter(struct xa_fixture *fx, struct iov_iter *it,
			      size_t off, size_t len)
{
	return copy_to_iter(fx->pattern + off, len, it);
}

static size_t op_copy_from_iter(struct xa_fixture *fx, struct iov_iter *it,
				size_t off, size_t len)
{
	return copy_from_iter(fx->buf + off, len, it);
}

static size_t op_copy_from_iter_nocache(struct xa_fixture *fx, struct iov_iter *it,
					size_t off, size_t len)
{
	return _copy_from_iter_nocache(fx->buf + off, len, it);
}

static size_t op_zero(struct xa_fixture *fx, struct iov_iter *it,
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

static size_t op_copy_page_to_iter(struct xa_fixture *fx, struct iov_iter *it,
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

static size_t page_from_iter(struct xa_fixture *fx, struct iov_iter *it,
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

static size_t op_copy_page_from_iter(struct xa_fixture *fx, struct iov_iter *it,
				     size_t off, size_t len)
{
	return page_from_iter(fx, it, len, false);
}

static size_t op_copy_page_from_iter_atomic(struct xa_fixture *fx, struct iov_iter *it,
					    size_t off, size_t len)
{
	return page_from_iter(fx, it, len, true);
}

/* copy_to_iter() fills exactly the iterator's range; asking for more is clamped. */
static void xarray_copy_to_iter(struct kunit *test)
{
	run_to_op(test, op_copy_to_iter, "copy_to_iter");
}

static void xarray_copy_page_to_iter(struct kunit *test)
{
	run_to_op(test, op_copy_page_to_iter, "copy_page_to_iter");
}

/* copy_from_iter() reads exactly the iterator's range. */
static void xarray_copy_from_iter(struct kunit *test)
{
	run_from_op(test, op_copy_from_iter, "copy_from_iter");
}

static void xarray_copy_from_iter_nocache(struct kunit *test)
{
	run_from_op(test, op_copy_from_iter_nocache, "_copy_from_iter_nocache");
}

static void xarray_copy_page_from_iter(struct kunit *test)
{
	run_from_op(test, op_copy_page_from_iter, "copy_page_from_iter");
}

static void xarray_copy_page_from_iter_atomic(struct kunit *test)
{
	run_from_op(test, op_copy_page_from_iter_atomic, "copy_page_from_iter_atomic");
}

/* iov_iter_zero() clears exactly the iterator's range. */
static void xarray_zero(struct kunit *test)
{
	struct xa_fixture *fx = test->priv;
	const struct xa_range *r;

	for (r = xa_ranges; r < XA_RANGES_END; r++) {
		struct iov_iter it;

		xa_fill(fx, true);
		xa_iter(fx, &it, ITER_DEST, r);
		if (!check_ret(fx, r, "iov_iter_zero", op_zero(fx, &it, 0, r->len + PAT_GUARD),
			       r->len) ||
		    !check_state(fx, &it, r, r->len) || !xa_verify(fx, r, false))
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
static void xarray_csum_and_copy_to_iter(struct kunit *test)
{
	struct xa_fixture *fx = test->priv;
	const struct xa_range *r;

	for (r = xa_ranges; r < XA_RANGES_END; r++) {
		struct csum_state cs = { .csum = 0, .off = 0 };
		__wsum want = csum_partial(fx->pattern + r->start, r->len, 0);
		struct iov_iter it;
		size_t n;

		xa_fill(fx, false);
		xa_iter(fx, &it, ITER_DEST, r);
		n = csum_and_copy_to_iter(fx->pattern + r->start, r->len + PAT_GUARD, &cs, &it);
		if (!check_ret(fx, r, "csum_and_copy_to_iter", n, r->len) ||
		    !check_state(fx, &it, r, r->len) || !xa_verify(fx, r, true))
			return;
		KUNIT_EXPECT_TRUE_MSG(test, csum_same(cs.csum, want),
				      "range [%zu, +%zu): checksum %#x, expected %#x",
				      r->start, r->len, (__force u16)csum_fold(cs.csum),
				      (__force u16)csum_fold(want));
		KUNIT_EXPECT_EQ_MSG(test, cs.off, r->len, "range [%zu, +%zu)", r->start, r->len);
	}
}

static void xarray_csum_and_copy_from_iter(struct kunit *test)
{
	struct xa_fixture *fx = test->priv;
	const struct xa_range *r;

	xa_fill(fx, true);
	for (r = xa_ranges; r < XA_RANGES_END; r++) {
		__wsum want = csum_partial(fx->pattern + r->start, r->len, 0);
		struct iov_iter it;
		__wsum sum = 0;
		size_t n;

		memset(fx->buf, 0, r->len);
		xa_iter(fx, &it, ITER_SOURCE, r);
		n = csum_and_copy_from_iter(fx->buf, r->len + PAT_GUARD, &sum, &it);
		if (!check_ret(fx, r, "csum_and_copy_from_iter", n, r->len) ||
		    !check_state(fx, &it, r, r->len) || !buf_verify(fx, r, r->start, r->len))
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
static void xarray_csum_split(struct kunit *test)
{
	struct xa_fixture *fx = test->priv;
	const struct xa_range *r;

	for (r = xa_ranges; r < XA_RANGES_END; r++) {
		struct csum_state cs = { .csum = 0, .off = 0 };
		__wsum want = csum_partial(fx->pattern + r->start, r->len, 0);
		size_t split = (r->len / 2) | 1, n;
		struct iov_iter it;

		if (r->len < 2)
			continue;
		xa_fill(fx, false);
		xa_iter(fx, &it, ITER_DEST, r);
		n = csum_and_copy_to_iter(fx->pattern + r->start, split, &cs, &it);
		n += csum_and_copy_to_iter(fx->pattern + r->start + split,
					   r->len - split, &cs, &it);
		if (!check_ret(fx, r, "two csum_and_copy_to_iter", n, r->len) ||
		    !check_state(fx, &it, r, r->len) || !xa_verify(fx, r, true))
			return;
		KUNIT_EXPECT_TRUE_MSG(test, csum_same(cs.csum, want),
				      "range [%zu, +%zu) split at %zu: checksum %#x, expected %#x",
				      r->start, r->len, split, (__force u16)csum_fold(cs.csum),
				      (__force u16)csum_fold(want));
		KUNIT_EXPECT_EQ_MSG(test, cs.off, r->len, "range [%zu, +%zu)", r->start, r->len);
	}
}

/*
 * iov_iter_advance() in steps of each size, then copying the rest, gives the
 * tail of the range.
 */
static void xarray_advance(struct kunit *test)
{
	struct xa_fixture *fx = test->priv;
	const struct xa_range *r;
	unsigned int s;

	xa_fill(fx, true);
	for (r = xa_ranges; r < XA_RANGES_END; r++) {
		for (s = 0; s < ARRAY_SIZE(xa_steps); s++) {
			size_t step = xa_steps[s], done = 0, n;
			struct iov_iter it;
			unsigned int k;

			xa_iter(fx, &it, ITER_SOURCE, r);
			/* at most 64 steps, leaving at least half the range */
			for (k = 0; k < 64 && done + step <= r->len / 2; k++) {
				iov_iter_advance(&it, step);
				done += step;
				if (!check_state(fx, &it, r, done))
					return;
			}
			n = copy_from_iter(fx->buf, r->len, &it);
			if (!check_ret(fx, r, "copy_from_iter after advance", n, r->len - done) ||
			    !check_state(fx, &it, r, r->len) ||
			    !buf_verify(fx, r, r->start + done, n))
				return;
		}
	}
}

/* Advancing past the end stops at the end. */
static void xarray_advance_past_end(struct kunit *test)
{
	struct xa_fixture *fx = test->priv;
	const struct xa_range *r;

	for (r = xa_ranges; r < XA_RANGES_END; r++) {
		struct iov_iter it;

		xa_iter(fx, &it, ITER_SOURCE, r);
		iov_iter_advance(&it, r->len + 1);
		if (!check_state(fx, &it, r, r->len))
			return;
		KUNIT_EXPECT_EQ(test, copy_from_iter(fx->buf, 1, &it), 0);
	}
}

/*
 * iov_iter_revert() after a copy steps back: the iterator's state follows,
 * and copying again yields the reverted bytes.  (Reverting past the start of
 * an ITER_XARRAY is a BUG() in 6.1 and is not exercised.)
 */
static void xarray_revert(struct kunit *test)
{
	struct xa_fixture *fx = test->priv;
	const struct xa_range *r;
	unsigned int s;

	xa_fill(fx, true);
	for (r = xa_ranges; r < XA_RANGES_END; r++) {
		for (s = 0; s < ARRAY_SIZE(xa_steps); s++) {
			size_t step = xa_steps[s], back = 0, n;
			struct iov_iter it;
			unsigned int k;

			xa_iter(fx, &it, ITER_SOURCE, r);
			n = copy_from_iter(fx->buf, r->len, &it);
			if (!check_ret(fx, r, "copy_from_iter", n, r->len))
				return;
			for (k = 0; k < 64 && back + step <= r->len; k++) {
				iov_iter_revert(&it, step);
				back += step;
				if (!check_state(fx, &it, r, r->len - back))
					return;
			}
			n = copy_from_iter(fx->buf, r->len, &it);
			if (!check_ret(fx, r, "copy_from_iter after revert", n, back) ||
			    !buf_verify(fx, r, r->start + r->len - back, n))
				return;
		}
	}
}

/* iov_iter_npages() counts every page the range touches, capped at maxpages. */
static void xarray_npages(struct kunit *test)
{
	struct xa_fixture *fx = test->priv;
	const struct xa_range *r;

	for (r = xa_ranges; r < XA_RANGES_END; r++) {
		struct iov_iter it;
		int want = r->len ?
			DIV_ROUND_UP(offset_in_page(r->start) + r->len, PAGE_SIZE) : 0;

		xa_iter(fx, &it, ITER_SOURCE, r);
		KUNIT_EXPECT_EQ_MSG(test, iov_iter_npages(&it, INT_MAX), want,
				    "range [%zu, +%zu)", r->start, r->len);
		KUNIT_EXPECT_EQ_MSG(test, iov_iter_npages(&it, 1), min(want, 1),
				    "range [%zu, +%zu), maxpages 1", r->start, r->len);
		/* the same after moving into the range */
		iov_iter_advance(&it, r->len / 2);
		want = iov_iter_count(&it) ?
			DIV_ROUND_UP(offset_in_page(r->start + r->len / 2) + iov_iter_count(&it),
				     PAGE_SIZE) : 0;
		KUNIT_EXPECT_EQ_MSG(test, iov_iter_npages(&it, INT_MAX), want,
				    "range [%zu, +%zu) advanced by %zu", r->start, r->len,
				    r->len / 2);
	}
}

/*
 * iov_iter_get_pages2() hands out the pages that hold the range, in order,
 * with a reference on each, the offset of the first, and advances by what
 * it returned; iov_iter_get_pages_alloc2() the same in an array it allocates.
 * Checked for every byte: the returned page and offset are where that byte
 * of the layout lives.
 */
static bool check_pages(struct xa_fixture *fx, const struct xa_range *r,
			size_t done, struct page **pages, ssize_t n, size_t first)
{
	size_t k, at = 0;

	for (k = 0; at < n; k++) {
		size_t off = r->start + done + at;
		size_t in = k ? 0 : first;
		struct page *want = xa_page(fx, off);

		if (pages[k] != want || in != offset_in_page(fx->base + off)) {
			KUNIT_FAIL(fx->test,
				   "range [%zu, +%zu): page %zu (offset %zu) is not the page of byte %zu",
				   r->start, r->len, k, in, off);
			return false;
		}
		at += PAGE_SIZE - in;
	}
	return true;
}

/* Sum of the folio reference counts: each page handed out takes one. */
static long folio_refs(struct xa_fixture *fx)
{
	struct folio *folio;
	unsigned long index;
	long refs = 0;

	xa_for_each(&fx->xa, index, folio)
		refs += folio_ref_count(folio);
	return refs;
}

static void get_pages_range(struct xa_fixture *fx, const struct xa_range *r,
			    unsigned int maxpages, bool alloc)
{
	long refs = folio_refs(fx);
	unsigned int calls = 0;
	size_t done = 0;
	struct iov_iter it;

	xa_iter(fx, &it, ITER_SOURCE, r);
	while (done < r->len) {
		struct page **pages = fx->pages;
		size_t first = ~0UL, k, npages;
		ssize_t n;

		if (alloc)
			n = iov_iter_get_pages_alloc2(&it, &pages, r->len, &first);
		else
			n = iov_iter_get_pages2(&it, pages, r->len, maxpages, &first);
		if (n <= 0) {
			KUNIT_FAIL(fx->test, "range [%zu, +%zu): get_pages returned %zd after %zu",
				   r->start, r->len, n, done);
			return;
		}
		npages = DIV_ROUND_UP(first + n, PAGE_SIZE);
		if (!alloc && npages > maxpages) {
			KUNIT_FAIL(fx->test, "range [%zu, +%zu): %zu pages, maxpages %u",
				   r->start, r->len, npages, maxpages);
			return;
		}
		/* summing every folio's count is slow: check the first calls */
		if (calls++ < 4 && folio_refs(fx) != refs + npages) {
			KUNIT_FAIL(fx->test,
				   "range [%zu, +%zu): %ld references taken for %zu pages",
				   r->start, r->len, folio_refs(fx) - refs, npages);
			return;
		}
		if (!check_pages(fx, r, done, pages, n, first))
			return;
		for (k = 0; k < npages; k++)
			put_page(pages[k]);
		if (alloc)
			kvfree(pages);
		done += n;
		if (!check_state(fx, &it, r, done))
			return;
	}
	KUNIT_EXPECT_EQ(fx->test, folio_refs(fx), refs);
	/* an exhausted iterator gives nothing */
	KUNIT_EXPECT_EQ(fx->test,
			iov_iter_get_pages2(&it, fx->pages, PAGE_SIZE, 1, &done), 0);
}

static void xarray_get_pages2(struct kunit *test)
{
	struct xa_fixture *fx = test->priv;
	static const unsigned int maxpages[] = { 1, 3, 64, XA_PAGES + 1 };
	const struct xa_range *r;
	unsigned int m;

	for (r = xa_ranges; r < XA_RANGES_END; r++)
		for (m = 0; m < ARRAY_SIZE(maxpages); m++)
			get_pages_range(fx, r, maxpages[m], false);
}

static void xarray_get_pages_alloc2(struct kunit *test)
{
	struct xa_fixture *fx = test->priv;
	const struct xa_range *r;

	for (r = xa_ranges; r < XA_RANGES_END; r++)
		get_pages_range(fx, r, 0, true);
}

/*
 * A maxsize below the count that ends inside a page: exactly maxsize bytes
 * are handed out, the last page partly, and the iterator advances by that.
 */
static void xarray_get_pages_maxsize(struct kunit *test)
{
	struct xa_fixture *fx = test->priv;
	const struct xa_range *r;
	unsigned int alloc;

	for (r = xa_ranges; r < XA_RANGES_END; r++) {
		size_t max = r->len / 2;

		if (!((r->start + max) % PAGE_SIZE))
			max--;
		if (!max || max >= r->len)
			continue;
		for (alloc = 0; alloc < 2; alloc++) {
			struct page **pages = fx->pages;
			size_t first = ~0UL, npages;
			struct iov_iter it;
			ssize_t n;

			xa_iter(fx, &it, ITER_SOURCE, r);
			if (alloc)
				n = iov_iter_get_pages_alloc2(&it, &pages, max, &first);
			else
				n = iov_iter_get_pages2(&it, pages, max, XA_PAGES + 1, &first);
			if (!check_ret(fx, r, alloc ? "get_pages_alloc2 to maxsize" :
				       "get_pages2 to maxsize", n, max) ||
			    !check_state(fx, &it, r, max) ||
			    !check_pages(fx, r, 0, pages, n, first))
				return;
			for (npages = DIV_ROUND_UP(first + n, PAGE_SIZE); npages;)
				put_page(pages[--npages]);
			if (alloc)
				kvfree(pages);
		}
	}
}

/*
 * dup_iter() gives an independent iterator at the same place; ITER_XARRAY
 * has nothing to duplicate, so it returns NULL, ITER_BVEC a copy of its
 * segments.
 */
static void xarray_dup_iter(struct kunit *test)
{
	struct xa_fixture *fx = test->priv;
	const struct xa_range *r;

	xa_fill(fx, true);
	for (r = xa_ranges; r < XA_RANGES_END; r++) {
		size_t half = r->len / 2, n;
		struct iov_iter it, dup;
		const void *copy;

		xa_iter(fx, &it, ITER_SOURCE, r);
		iov_iter_advance(&it, half);
		copy = dup_iter(&dup, &it, GFP_KERNEL);
		if (fx->param->bvec)
			KUNIT_EXPECT_NOT_NULL(test, copy);
		else
			KUNIT_EXPECT_NULL(test, copy);
		/* use up the original; the duplicate is unaffected */
		KUNIT_EXPECT_EQ(test, copy_from_iter(fx->buf, r->len, &it), r->len - half);
		n = copy_from_iter(fx->buf, r->len, &dup);
		kfree(copy);
		if (!check_ret(fx, r, "copy_from_iter on the duplicate", n, r->len - half) ||
		    !buf_verify(fx, r, r->start + half, n))
			return;
	}
}

/*
 * Alignment as ITER_XARRAY defines it: one segment from the current position
 * for count bytes.  Checked for non-empty ranges only (for an empty one 6.1
 * returns the position, other types 0).
 */
static void xarray_alignment(struct kunit *test)
{
	static const unsigned long masks[] = { 0, 1, 3, 511, PAGE_SIZE - 1 };
	struct xa_fixture *fx = test->priv;
	const struct xa_range *r;
	unsigned int a, l;

	for (r = xa_ranges; r < XA_RANGES_END; r++) {
		u64 pos = fx->base + r->start;
		struct iov_iter it;

		if (!r->len)
			continue;
		xa_iter(fx, &it, ITER_SOURCE, r);
		KUNIT_EXPECT_EQ_MSG(test, iov_iter_alignment(&it) & (PAGE_SIZE - 1),
				    (unsigned long)((pos | r->len) & (PAGE_SIZE - 1)),
				    "range [%zu, +%zu)", r->start, r->len);
		KUNIT_EXPECT_EQ(test, iov_iter_single_seg_count(&it), r->len);
		for (a = 0; a < ARRAY_SIZE(masks); a++)
			for (l = 0; l < ARRAY_SIZE(masks); l++)
				KUNIT_EXPECT_EQ_MSG(test,
						    iov_iter_is_aligned(&it, masks[a], masks[l]),
						    !(pos & masks[a]) && !(r->len & masks[l]),
						    "range [%zu, +%zu) masks %#lx %#lx",
						    r->start, r->len, masks[a], masks[l]);
	}
}

/* iov_iter_save_state() records where the iterator is. */
static void xarray_save_state(struct kunit *test)
{
	struct xa_fixture *fx = test->priv;
	const struct xa_range *r;

	for (r = xa_ranges; r < XA_RANGES_END; r++) {
		struct iov_iter_state state;
		struct iov_iter it;

		xa_iter(fx, &it, ITER_SOURCE, r);
		iov_iter_advance(&it, r->len / 3);
		iov_iter_save_state(&it, &state);
		KUNIT_EXPECT_EQ(test, state.count, r->len - r->len / 3);
		KUNIT_EXPECT_EQ(test, state.iov_offset, (size_t)(r->len / 3));
		KUNIT_EXPECT_EQ(test, state.nr_segs, it.nr_segs);
	}
}

/*
 * A hole in the xarray ends the buffer: a copy that reaches it stops there
 * with a short count and touches nothing beyond it; one that starts in it
 * copies nothing.  (6.1 skips the hole and goes on in the next folio; see
 * docs/upstream-findings.md.)
 */
static const struct {
	struct xa_range r;
	size_t copied;
} hole_ranges[] = {
	{ { 0, 2 * HOLE_OFF }, HOLE_OFF },
	{ { HOLE_OFF - 1, 2 }, 1 },
	{ { HOLE_OFF - 5000, HOLE_LEN + 5000 }, 5000 },
	{ { HOLE_OFF - 7, 7 }, 7 },
	{ { HOLE_OFF, PAGE_SIZE }, 0 },
	{ { HOLE_OFF + HOLE_LEN - 1, 2 }, 0 },
};

static void xarray_hole_copy(struct kunit *test)
{
	struct xa_fixture *fx = test->priv;
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(hole_ranges); k++) {
		const struct xa_range *r = &hole_ranges[k].r;
		struct xa_range done = { r->start, hole_ranges[k].copied };
		struct iov_iter it;

		xa_fill(fx, false);
		xa_iter(fx, &it, ITER_DEST, r);
		if (!check_ret(fx, r, "copy_to_iter", op_copy_to_iter(fx, &it, r->start, r->len),
			       done.len) ||
		    !check_state(fx, &it, r, done.len) || !xa_verify(fx, &done, true))
			return;

		xa_fill(fx, true);
		xa_iter(fx, &it, ITER_SOURCE, r);
		if (!check_ret(fx, r, "copy_from_iter", op_copy_from_iter(fx, &it, 0, r->len),
			       done.len) ||
		    !check_state(fx, &it, r, done.len) ||
		    !buf_verify(fx, r, r->start, done.len))
			return;
	}
}

static size_t op_csum_to_iter(struct xa_fixture *fx, struct iov_iter *it,
			      size_t off, size_t len)
{
	struct csum_state cs = { .csum = 0, .off = 0 };

	return csum_and_copy_to_iter(fx->pattern + off, len, &cs, it);
}

static size_t op_csum_from_iter(struct xa_fixture *fx, struct iov_iter *it,
				size_t off, size_t len)
{
	__wsum sum = 0;

	return csum_and_copy_from_iter(fx->buf + off, len, &sum, it);
}

/* The other copies stop at a hole the same way; iov_iter_zero() too. */
static void xarray_hole_ops(struct kunit *test)
{
	static const struct {
		xa_op_t op;
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
	struct xa_fixture *fx = test->priv;
	unsigned int k, o;

	for (o = 0; o < ARRAY_SIZE(ops); o++) {
		for (k = 0; k < ARRAY_SIZE(hole_ranges); k++) {
			const struct xa_range *r = &hole_ranges[k].r;
			struct xa_range done = { r->start, hole_ranges[k].copied };
			bool to = ops[o].dir == ITER_DEST;
			struct iov_iter it;

			xa_fill(fx, !to || ops[o].zero);
			memset(fx->buf, 0, r->len);
			xa_iter(fx, &it, ops[o].dir, r);
			if (!check_ret(fx, r, ops[o].what,
				       ops[o].op(fx, &it, to ? r->start : 0, r->len),
				       done.len) ||
			    !check_state(fx, &it, r, done.len))
				return;
			if (to && !xa_verify(fx, &done, !ops[o].zero))
				return;
			if (!to && !buf_verify(fx, r, r->start, done.len))
				return;
		}
	}
}

/* iov_iter_get_pages2() stops at a hole too. */
static void xarray_hole_get_pages(struct kunit *test)
{
	struct xa_fixture *fx = test->priv;
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(hole_ranges); k++) {
		const struct xa_range *r = &hole_ranges[k].r;
		size_t want = hole_ranges[k].copied, first, npages;
		struct iov_iter it;
		ssize_t n;

		xa_iter(fx, &it, ITER_SOURCE, r);
		n = iov_iter_get_pages2(&it, fx->pages, r->len, XA_PAGES, &first);
		npages = n > 0 ? DIV_ROUND_UP(first + n, PAGE_SIZE) : 0;
		if (!check_ret(fx, r, "iov_iter_get_pages2", n, want) ||
		    !check_state(fx, &it, r, want) || !check_pages(fx, r, 0, fx->pages, n, first))
			return;
		while (npages)
			put_page(fx->pages[--npages]);
	}
}

static void xa_fixture_free(struct xa_fixture *fx)
{
	xa_kunit_put_folios(&fx->xa);
	vfree(fx->buf);
	kvfree(fx->bv);
	kvfree(fx->pages);
}

/* Build the xarray for the case's layout, all bytes zero. */
static int xarray_init(struct kunit *test)
{
	const struct iter_param *param = test->param_value;
	const struct folio_run *run;
	struct xa_fixture *fx;
	pgoff_t index;

	fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	if (!fx)
		return -ENOMEM;
	test->priv = fx;
	fx->test = test;
	fx->param = param;
	xa_init(&fx->xa);
	fx->base = (loff_t)param->layout->base << PAGE_SHIFT;
	fx->pattern = param->layout->base ? pattern_high : pattern_low;
	fx->buf = vmalloc(XA_BYTES + PAT_GUARD);
	fx->bv = kvcalloc(XA_PAGES, sizeof(*fx->bv), GFP_KERNEL);
	fx->pages = kvcalloc(XA_PAGES + 1, sizeof(*fx->pages), GFP_KERNEL);
	if (!fx->buf || !fx->bv || !fx->pages)
		goto nomem;

	index = param->layout->base;
	for (run = param->layout->runs; run->count; run++) {
		unsigned int n;

		if (run->hole) {
			index += run->count << run->order;
			continue;
		}
		for (n = 0; n < run->count; n++) {
			struct folio *folio;

			folio = folio_alloc(GFP_KERNEL | __GFP_ZERO, run->order);
			if (!folio)
				goto nomem;
			if (xa_kunit_store_folio(&fx->xa, index, folio)) {
				folio_put(folio);
				goto nomem;
			}
			index += folio_nr_pages(folio);
		}
	}
	return 0;

nomem:
	xa_fixture_free(fx);
	return -ENOMEM;
}

static void xarray_exit(struct kunit *test)
{
	xa_fixture_free(test->priv);
}

/* The pattern for layouts at 0 and at HIGH_INDEX, computed once. */
static u8 *make_pattern(loff_t base)
{
	u8 *p = vmalloc(XA_BYTES + PAT_GUARD);
	size_t i;

	if (p)
		for (i = 0; i < XA_BYTES + PAT_GUARD; i++)
			p[i] = pattern_byte(base + i);
	return p;
}

static int xarray_suite_init(struct kunit_suite *suite)
{
	pattern_low = make_pattern(0);
	pattern_high = make_pattern((loff_t)HIGH_INDEX << PAGE_SHIFT);
	if (!pattern_low || !pattern_high) {
		vfree(pattern_low);
		vfree(pattern_high);
		return -ENOMEM;
	}
	return 0;
}

static void xarray_suite_exit(struct kunit_suite *suite)
{
	vfree(pattern_low);
	vfree(pattern_high);
}

static struct kunit_case iov_iter_xarray_cases[] = {
	KUNIT_CASE_PARAM(xarray_copy_to_iter, iter_gen_params),
	KUNIT_CASE_PARAM(xarray_copy_page_to_iter, iter_gen_params),
	KUNIT_CASE_PARAM(xarray_copy_from_iter, iter_gen_params),
	KUNIT_CASE_PARAM(xarray_copy_from_iter_nocache, iter_gen_params),
	KUNIT_CASE_PARAM(xarray_copy_page_from_iter, iter_gen_params),
	KUNIT_CASE_PARAM(xarray_copy_page_from_iter_atomic, iter_gen_params),
	KUNIT_CASE_PARAM(xarray_zero, iter_gen_params),
	KUNIT_CASE_PARAM(xarray_csum_and_copy_to_iter, iter_gen_params),
	KUNIT_CASE_PARAM(xarray_csum_and_copy_from_iter, iter_gen_params),
	KUNIT_CASE_PARAM(xarray_csum_split, iter_gen_params),
	KUNIT_CASE_PARAM(xarray_advance, iter_gen_params),
	KUNIT_CASE_PARAM(xarray_advance_past_end, iter_gen_params),
	KUNIT_CASE_PARAM(xarray_revert, iter_gen_params),
	KUNIT_CASE_PARAM(xarray_npages, iter_gen_params),
	KUNIT_CASE_PARAM(xarray_get_pages2, iter_gen_params),
	KUNIT_CASE_PARAM(xarray_get_pages_alloc2, iter_gen_params),
	KUNIT_CASE_PARAM(xarray_get_pages_maxsize, xarray_gen_params),
	KUNIT_CASE_PARAM(xarray_dup_iter, iter_gen_params),
	KUNIT_CASE_PARAM(xarray_alignment, xarray_gen_params),
	KUNIT_CASE_PARAM(xarray_save_state, xarray_gen_params),
	KUNIT_CASE_PARAM(xarray_hole_copy, hole_gen_params),
	KUNIT_CASE_PARAM(xarray_hole_ops, hole_gen_params),
	KUNIT_CASE_PARAM(xarray_hole_get_pages, hole_gen_params),
	{}
};

static struct kunit_suite iov_iter_xarray_suite = {
	.name = "iov_iter_xarray",
	.suite_init = xarray_suite_init,
	.suite_exit = xarray_suite_exit,
	.init = xarray_init,
	.exit = xarray_exit,
	.test_cases = iov_iter_xarray_cases,
};

kunit_test_suite(iov_iter_xarray_suite);

MODULE_DESCRIPTION("KUnit suite for ITER_XARRAY iov_iters");
MODULE_LICENSE("GPL");
