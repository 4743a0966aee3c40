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
 */

#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sizes.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>

/* Every layout covers the same number of bytes, starting at file offset 0. */
#define XA_PAGES	1024
#define XA_BYTES	((size_t)XA_PAGES * PAGE_SIZE)
/* The pattern buffer runs on past the end so a copy may ask for more. */
#define PAT_GUARD	PAGE_SIZE

struct folio_run {
	unsigned int order;
	unsigned int count;
};

struct xa_layout {
	const char *name;
	struct folio_run runs[12];	/* ends at the first run with count 0 */
};

static const struct xa_layout xa_layouts[] = {
	{ "order-0", { { 0, XA_PAGES } } },
	{ "order-2", { { 2, XA_PAGES / 4 } } },
	{ "order-9", { { 9, XA_PAGES / 512 } } },
	/* 4 + 4 + 8 + ... + 512 = 1024 pages, each folio naturally aligned */
	{ "mixed", { { 0, 4 }, { 2, 1 }, { 3, 1 }, { 4, 1 }, { 5, 1 },
		     { 6, 1 }, { 7, 1 }, { 8, 1 }, { 9, 1 } } },
};

static void xa_layout_desc(const struct xa_layout *l, char *desc)
{
	strscpy(desc, l->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(xa_layout, xa_layouts, xa_layout_desc);

struct xa_range {
	size_t start;
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
	{ 12345, SZ_1M },
	{ SZ_2M - 1, 1 },
	{ SZ_2M - 1, 2 },
	{ SZ_2M - PAGE_SIZE - 3, PAGE_SIZE + 7 },
	{ 3, 3 * SZ_1M + 5 },
	{ 0, XA_BYTES },
	{ XA_BYTES - 1, 1 },
	{ XA_BYTES, 0 },
};

struct xa_fixture {
	struct xarray xa;
	u8 *pattern;		/* XA_BYTES + PAT_GUARD bytes */
	u8 *buf;		/* scratch, XA_BYTES + PAT_GUARD bytes */
	unsigned int nr_folios;
};

static u8 pattern_byte(size_t pos)
{
	u32 x = (u32)pos ^ (u32)((u64)pos >> 32);

	x *= 0x9e3779b1;
	return x >> 24;
}

static int xa_put_folio(struct xarray *xa, pgoff_t index, struct folio *folio)
{
	XA_STATE_ORDER(xas, xa, index, folio_order(folio));

	do {
		xas_lock(&xas);
		xas_store(&xas, folio);
		xas_unlock(&xas);
	} while (xas_nomem(&xas, GFP_KERNEL));
	return xas_error(&xas);
}

static void xa_fixture_free(struct xa_fixture *fx)
{
	struct folio *folio;
	unsigned long index;

	xa_for_each(&fx->xa, index, folio)
		folio_put(folio);
	xa_destroy(&fx->xa);
	vfree(fx->pattern);
	vfree(fx->buf);
}

/* Build the xarray for @l, all bytes zero. */
static struct xa_fixture *xa_fixture_new(struct kunit *test,
					 const struct xa_layout *l)
{
	struct xa_fixture *fx = test->priv;
	const struct folio_run *run;
	pgoff_t index = 0;
	size_t i;

	if (!IS_ENABLED(CONFIG_XARRAY_MULTI) && strcmp(l->name, "order-0"))
		kunit_skip(test, "large folios need CONFIG_XARRAY_MULTI");

	for (i = 0; i < XA_BYTES + PAT_GUARD; i++)
		fx->pattern[i] = pattern_byte(i);

	for (run = l->runs; run->count; run++) {
		unsigned int n;

		for (n = 0; n < run->count; n++) {
			struct folio *folio;

			folio = folio_alloc(GFP_KERNEL | __GFP_ZERO, run->order);
			KUNIT_ASSERT_NOT_NULL(test, folio);
			folio->index = index;
			if (xa_put_folio(&fx->xa, index, folio)) {
				folio_put(folio);
				KUNIT_ASSERT_FAILURE(test, "xarray store at %lu failed", index);
			}
			fx->nr_folios++;
			index += folio_nr_pages(folio);
		}
	}
	KUNIT_ASSERT_EQ(test, index, (pgoff_t)XA_PAGES);
	return fx;
}

/*
 * Map the page of the xarray that holds file position @pos; *@chunk is set to
 * the bytes from @pos to the end of that page.  Unmap with kunmap_local().
 */
static u8 *xa_map(struct xa_fixture *fx, size_t pos, size_t *chunk)
{
	struct folio *folio = xa_load(&fx->xa, pos >> PAGE_SHIFT);

	*chunk = PAGE_SIZE - offset_in_page(pos);
	return kmap_local_folio(folio, offset_in_folio(folio, pos));
}

/* Fill the whole xarray with the pattern, or with zeroes. */
static void xa_fill(struct xa_fixture *fx, bool pattern)
{
	size_t pos, chunk;
	u8 *p;

	for (pos = 0; pos < XA_BYTES; pos += chunk) {
		p = xa_map(fx, pos, &chunk);
		if (pattern)
			memcpy(p, fx->pattern + pos, chunk);
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
 * Check the xarray: bytes in [start, start + len) hold the pattern when
 * @pattern_inside, zero otherwise; bytes outside hold the opposite.  Reports
 * the first bad offset only.
 */
static bool xa_verify(struct kunit *test, struct xa_fixture *fx,
		      size_t start, size_t len, bool pattern_inside)
{
	static const u8 zeroes[PAGE_SIZE];
	size_t pos, chunk, end = start + len;
	u8 *p;

	for (pos = 0; pos < XA_BYTES; pos += chunk) {
		size_t k = 0;

		p = xa_map(fx, pos, &chunk);

		while (k < chunk) {
			size_t at = pos + k, n, bad;
			bool inside = at >= start && at < end;
			const u8 *want;

			/* the run of bytes that share one expectation */
			if (inside)
				n = min(chunk - k, end - at);
			else if (at < start)
				n = min(chunk - k, start - at);
			else
				n = chunk - k;
			want = inside == pattern_inside ? fx->pattern + at : zeroes;
			if (memcmp(p + k, want, n)) {
				bad = first_diff(p + k, want, n);
				KUNIT_FAIL(test,
					   "range [%zu, +%zu): xarray byte %zu is %#x, expected %#x",
					   start, len, at + bad, p[k + bad], want[bad]);
				kunmap_local(p);
				return false;
			}
			k += n;
		}
		kunmap_local(p);
	}
	return true;
}

/* Check @len bytes of @buf against the pattern at file position @start. */
static bool buf_verify(struct kunit *test, struct xa_fixture *fx,
		       const u8 *buf, size_t start, size_t len,
		       const struct xa_range *r)
{
	size_t bad;

	if (!memcmp(buf, fx->pattern + start, len))
		return true;
	bad = first_diff(buf, fx->pattern + start, len);
	KUNIT_FAIL(test, "range [%zu, +%zu): buffer byte %zu (file pos %zu) is %#x, expected %#x",
		   r->start, r->len, bad, start + bad, buf[bad],
		   fx->pattern[start + bad]);
	return false;
}

static bool check_state(struct kunit *test, const struct iov_iter *it,
			const struct xa_range *r, size_t done)
{
	if (iov_iter_count(it) == r->len - done && it->iov_offset == done)
		return true;
	KUNIT_FAIL(test,
		   "range [%zu, +%zu): after %zu bytes count=%zu iov_offset=%zu, want %zu, %zu",
		   r->start, r->len, done, iov_iter_count(it), it->iov_offset,
		   r->len - done, done);
	return false;
}

#define XA_RANGES_END (xa_ranges + ARRAY_SIZE(xa_ranges))

/* copy_to_iter() fills exactly the iterator's range; asking for more is clamped. */
static void xarray_copy_to_iter(struct kunit *test)
{
	struct xa_fixture *fx = xa_fixture_new(test, test->param_value);
	const struct xa_range *r;

	for (r = xa_ranges; r < XA_RANGES_END; r++) {
		struct iov_iter it;
		size_t n;

		xa_fill(fx, false);
		iov_iter_xarray(&it, ITER_DEST, &fx->xa, r->start, r->len);
		/* ask for one page more than the iterator holds */
		n = copy_to_iter(fx->pattern + r->start, r->len + PAT_GUARD, &it);
		KUNIT_EXPECT_EQ_MSG(test, n, r->len, "range [%zu, +%zu)", r->start, r->len);
		if (n != r->len || !check_state(test, &it, r, r->len) ||
		    !xa_verify(test, fx, r->start, r->len, true))
			return;
	}
}

/* copy_from_iter() reads exactly the iterator's range. */
static void xarray_copy_from_iter(struct kunit *test)
{
	struct xa_fixture *fx = xa_fixture_new(test, test->param_value);
	const struct xa_range *r;

	xa_fill(fx, true);
	for (r = xa_ranges; r < XA_RANGES_END; r++) {
		struct iov_iter it;
		size_t n;

		memset(fx->buf, 0, r->len + PAT_GUARD);
		iov_iter_xarray(&it, ITER_SOURCE, &fx->xa, r->start, r->len);
		n = copy_from_iter(fx->buf, r->len + PAT_GUARD, &it);
		KUNIT_EXPECT_EQ_MSG(test, n, r->len, "range [%zu, +%zu)", r->start, r->len);
		if (n != r->len || !check_state(test, &it, r, r->len) ||
		    !buf_verify(test, fx, fx->buf, r->start, r->len, r))
			return;
		/* nothing written past what the iterator held */
		KUNIT_EXPECT_NULL_MSG(test, memchr_inv(fx->buf + r->len, 0, PAT_GUARD),
				      "range [%zu, +%zu): bytes written past the end",
				      r->start, r->len);
	}
}

/* iov_iter_advance() moves to the right byte: copying the rest gives the tail. */
static void xarray_advance(struct kunit *test)
{
	struct xa_fixture *fx = xa_fixture_new(test, test->param_value);
	const struct xa_range *r;

	xa_fill(fx, true);
	for (r = xa_ranges; r < XA_RANGES_END; r++) {
		size_t skip = r->len / 2 + (r->len & 1);
		struct iov_iter it;
		size_t n;

		iov_iter_xarray(&it, ITER_SOURCE, &fx->xa, r->start, r->len);
		iov_iter_advance(&it, skip);
		if (!check_state(test, &it, r, skip))
			return;
		n = copy_from_iter(fx->buf, r->len, &it);
		KUNIT_EXPECT_EQ_MSG(test, n, r->len - skip, "range [%zu, +%zu)", r->start, r->len);
		if (n != r->len - skip || !check_state(test, &it, r, r->len) ||
		    !buf_verify(test, fx, fx->buf, r->start + skip, n, r))
			return;
	}
}

/* iov_iter_revert() after a copy steps back: the reverted bytes come again. */
static void xarray_revert(struct kunit *test)
{
	struct xa_fixture *fx = xa_fixture_new(test, test->param_value);
	const struct xa_range *r;

	xa_fill(fx, true);
	for (r = xa_ranges; r < XA_RANGES_END; r++) {
		size_t back = r->len / 3;
		struct iov_iter it;
		size_t n;

		iov_iter_xarray(&it, ITER_SOURCE, &fx->xa, r->start, r->len);
		n = copy_from_iter(fx->buf, r->len, &it);
		KUNIT_ASSERT_EQ(test, n, r->len);
		iov_iter_revert(&it, back);
		if (!check_state(test, &it, r, r->len - back))
			return;
		n = copy_from_iter(fx->buf, r->len, &it);
		KUNIT_EXPECT_EQ_MSG(test, n, back, "range [%zu, +%zu)", r->start, r->len);
		if (n != back || !buf_verify(test, fx, fx->buf, r->start + r->len - back, n, r))
			return;
	}
}

/* iov_iter_zero() clears exactly the iterator's range. */
static void xarray_zero(struct kunit *test)
{
	struct xa_fixture *fx = xa_fixture_new(test, test->param_value);
	const struct xa_range *r;

	for (r = xa_ranges; r < XA_RANGES_END; r++) {
		struct iov_iter it;
		size_t n;

		xa_fill(fx, true);
		iov_iter_xarray(&it, ITER_DEST, &fx->xa, r->start, r->len);
		n = iov_iter_zero(r->len + PAT_GUARD, &it);
		KUNIT_EXPECT_EQ_MSG(test, n, r->len, "range [%zu, +%zu)", r->start, r->len);
		if (n != r->len || !check_state(test, &it, r, r->len) ||
		    !xa_verify(test, fx, r->start, r->len, false))
			return;
	}
}

/* iov_iter_npages() counts every page the range touches. */
static void xarray_npages(struct kunit *test)
{
	struct xa_fixture *fx = xa_fixture_new(test, test->param_value);
	const struct xa_range *r;

	for (r = xa_ranges; r < XA_RANGES_END; r++) {
		struct iov_iter it;
		int want = r->len ?
			DIV_ROUND_UP(offset_in_page(r->start) + r->len, PAGE_SIZE) : 0;

		iov_iter_xarray(&it, ITER_SOURCE, &fx->xa, r->start, r->len);
		KUNIT_EXPECT_EQ_MSG(test, iov_iter_npages(&it, INT_MAX), want,
				    "range [%zu, +%zu)", r->start, r->len);
		KUNIT_EXPECT_EQ_MSG(test, iov_iter_npages(&it, 1), min(want, 1),
				    "range [%zu, +%zu), maxpages 1", r->start, r->len);
	}
}

static int xarray_init(struct kunit *test)
{
	struct xa_fixture *fx;

	fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	if (!fx)
		return -ENOMEM;
	xa_init(&fx->xa);
	fx->pattern = vmalloc(XA_BYTES + PAT_GUARD);
	fx->buf = vmalloc(XA_BYTES + PAT_GUARD);
	test->priv = fx;
	if (!fx->pattern || !fx->buf) {
		xa_fixture_free(fx);
		return -ENOMEM;
	}
	return 0;
}

static void xarray_exit(struct kunit *test)
{
	xa_fixture_free(test->priv);
}

static struct kunit_case iov_iter_xarray_cases[] = {
	KUNIT_CASE_PARAM(xarray_copy_to_iter, xa_layout_gen_params),
	KUNIT_CASE_PARAM(xarray_copy_from_iter, xa_layout_gen_params),
	KUNIT_CASE_PARAM(xarray_advance, xa_layout_gen_params),
	KUNIT_CASE_PARAM(xarray_revert, xa_layout_gen_params),
	KUNIT_CASE_PARAM(xarray_zero, xa_layout_gen_params),
	KUNIT_CASE_PARAM(xarray_npages, xa_layout_gen_params),
	{}
};

static struct kunit_suite iov_iter_xarray_suite = {
	.name = "iov_iter_xarray",
	.init = xarray_init,
	.exit = xarray_exit,
	.test_cases = iov_iter_xarray_cases,
};

kunit_test_suite(iov_iter_xarray_suite);

MODULE_DESCRIPTION("KUnit suite for ITER_XARRAY iov_iters");
MODULE_LICENSE("GPL");
