// SPDX-License-Identifier: GPL-2.0-only
/*
 * iov_iter_xarray KUnit suite: moving the iterator and taking its pages.
 *
 * iov_iter_advance() and iov_iter_revert() in steps, iov_iter_npages(),
 * iov_iter_get_pages2() and _alloc2() (the pages, their references, the
 * offset of the first, maxsize and maxpages), dup_iter(), alignment and
 * saved state, and page extraction at a hole.
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

#include "xarray_fixture.h"

/*
 * Step through each range by each step size: forward from the start with
 * iov_iter_advance(), up to half the range, or back from the end with
 * iov_iter_revert() after copying all of it.  The iterator's state follows
 * each step, and copying the rest yields exactly the bytes after the
 * position reached.  (Reverting past the start of an ITER_XARRAY is a BUG()
 * in 6.1 and is not exercised.)
 */
static void ixa_step_through(struct kunit *test, bool back)
{
	struct ixa_fixture *fx = test->priv;
	const struct ixa_range *r;
	unsigned int s;

	ixa_fill(fx, true);
	for (r = ixa_ranges; r < IXA_RANGES_END; r++) {
		for (s = 0; s < ixa_nr_steps; s++) {
			size_t step = ixa_steps[s], pos = back ? r->len : 0, n;
			struct iov_iter it;
			unsigned int k;

			ixa_iter(fx, &it, ITER_SOURCE, r);
			if (back) {
				n = copy_from_iter(fx->buf, r->len, &it);
				if (!ixa_check_ret(fx, r, "copy_from_iter", n, r->len))
					return;
			}
			/* at most 64 steps */
			for (k = 0; k < 64; k++) {
				if (back ? step > pos : pos + step > r->len / 2)
					break;
				if (back)
					iov_iter_revert(&it, step);
				else
					iov_iter_advance(&it, step);
				pos = back ? pos - step : pos + step;
				if (!ixa_check_state(fx, &it, r, pos))
					return;
			}
			n = copy_from_iter(fx->buf, r->len, &it);
			if (!ixa_check_ret(fx, r, back ? "copy_from_iter after revert" :
					   "copy_from_iter after advance", n,
					   r->len - pos) ||
			    !ixa_check_state(fx, &it, r, r->len) ||
			    !ixa_buf_verify(fx, r, r->start + pos, n))
				return;
		}
	}
}

void xarray_advance(struct kunit *test)
{
	ixa_step_through(test, false);
}

void xarray_revert(struct kunit *test)
{
	ixa_step_through(test, true);
}

/* Advancing past the end stops at the end. */
void xarray_advance_past_end(struct kunit *test)
{
	struct ixa_fixture *fx = test->priv;
	const struct ixa_range *r;

	for (r = ixa_ranges; r < IXA_RANGES_END; r++) {
		struct iov_iter it;

		ixa_iter(fx, &it, ITER_SOURCE, r);
		iov_iter_advance(&it, r->len + 1);
		if (!ixa_check_state(fx, &it, r, r->len))
			return;
		KUNIT_EXPECT_EQ(test, copy_from_iter(fx->buf, 1, &it), 0);
	}
}

/* iov_iter_npages() counts every page the range touches, capped at maxpages. */
void xarray_npages(struct kunit *test)
{
	struct ixa_fixture *fx = test->priv;
	const struct ixa_range *r;

	for (r = ixa_ranges; r < IXA_RANGES_END; r++) {
		struct iov_iter it;
		int want = r->len ?
			DIV_ROUND_UP(offset_in_page(r->start) + r->len, PAGE_SIZE) : 0;

		ixa_iter(fx, &it, ITER_SOURCE, r);
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
static bool check_pages(struct ixa_fixture *fx, const struct ixa_range *r,
			size_t done, struct page **pages, ssize_t n, size_t first)
{
	size_t k, at = 0;

	for (k = 0; at < n; k++) {
		size_t off = r->start + done + at;
		size_t in = k ? 0 : first;
		struct page *want = ixa_page(fx, off);

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
static long folio_refs(struct ixa_fixture *fx)
{
	struct folio *folio;
	unsigned long index;
	long refs = 0;

	xa_for_each(&fx->xa, index, folio)
		refs += folio_ref_count(folio);
	return refs;
}

static void get_pages_range(struct ixa_fixture *fx, const struct ixa_range *r,
			    unsigned int maxpages, bool alloc)
{
	long refs = folio_refs(fx);
	unsigned int calls = 0;
	size_t done = 0;
	struct iov_iter it;

	ixa_iter(fx, &it, ITER_SOURCE, r);
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
		if (!ixa_check_state(fx, &it, r, done))
			return;
	}
	KUNIT_EXPECT_EQ(fx->test, folio_refs(fx), refs);
	/* an exhausted iterator gives nothing */
	KUNIT_EXPECT_EQ(fx->test,
			iov_iter_get_pages2(&it, fx->pages, PAGE_SIZE, 1, &done), 0);
}

void xarray_get_pages2(struct kunit *test)
{
	struct ixa_fixture *fx = test->priv;
	static const unsigned int maxpages[] = { 1, 3, 64, IXA_PAGES + 1 };
	const struct ixa_range *r;
	unsigned int m;

	for (r = ixa_ranges; r < IXA_RANGES_END; r++)
		for (m = 0; m < ARRAY_SIZE(maxpages); m++)
			get_pages_range(fx, r, maxpages[m], false);
}

void xarray_get_pages_alloc2(struct kunit *test)
{
	struct ixa_fixture *fx = test->priv;
	const struct ixa_range *r;

	for (r = ixa_ranges; r < IXA_RANGES_END; r++)
		get_pages_range(fx, r, 0, true);
}

/*
 * A maxsize below the count that ends inside a page: exactly maxsize bytes
 * are handed out, the last page partly, and the iterator advances by that.
 */
void xarray_get_pages_maxsize(struct kunit *test)
{
	struct ixa_fixture *fx = test->priv;
	const struct ixa_range *r;
	unsigned int alloc;

	for (r = ixa_ranges; r < IXA_RANGES_END; r++) {
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

			ixa_iter(fx, &it, ITER_SOURCE, r);
			if (alloc)
				n = iov_iter_get_pages_alloc2(&it, &pages, max, &first);
			else
				n = iov_iter_get_pages2(&it, pages, max, IXA_PAGES + 1, &first);
			if (!ixa_check_ret(fx, r, alloc ? "get_pages_alloc2 to maxsize" :
				       "get_pages2 to maxsize", n, max) ||
			    !ixa_check_state(fx, &it, r, max) ||
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
void xarray_dup_iter(struct kunit *test)
{
	struct ixa_fixture *fx = test->priv;
	const struct ixa_range *r;

	ixa_fill(fx, true);
	for (r = ixa_ranges; r < IXA_RANGES_END; r++) {
		size_t half = r->len / 2, n;
		struct iov_iter it, dup;
		const void *copy;

		ixa_iter(fx, &it, ITER_SOURCE, r);
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
		if (!ixa_check_ret(fx, r, "copy_from_iter on the duplicate", n, r->len - half) ||
		    !ixa_buf_verify(fx, r, r->start + half, n))
			return;
	}
}

/*
 * Alignment as ITER_XARRAY defines it: one segment from the current position
 * for count bytes.  Checked for non-empty ranges only (for an empty one 6.1
 * returns the position, other types 0).
 */
void xarray_alignment(struct kunit *test)
{
	static const unsigned long masks[] = { 0, 1, 3, 511, PAGE_SIZE - 1 };
	struct ixa_fixture *fx = test->priv;
	const struct ixa_range *r;
	unsigned int a, l;

	for (r = ixa_ranges; r < IXA_RANGES_END; r++) {
		u64 pos = fx->base + r->start;
		struct iov_iter it;

		if (!r->len)
			continue;
		ixa_iter(fx, &it, ITER_SOURCE, r);
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
void xarray_save_state(struct kunit *test)
{
	struct ixa_fixture *fx = test->priv;
	const struct ixa_range *r;

	for (r = ixa_ranges; r < IXA_RANGES_END; r++) {
		struct iov_iter_state state;
		struct iov_iter it;

		ixa_iter(fx, &it, ITER_SOURCE, r);
		iov_iter_advance(&it, r->len / 3);
		iov_iter_save_state(&it, &state);
		KUNIT_EXPECT_EQ(test, state.count, r->len - r->len / 3);
		KUNIT_EXPECT_EQ(test, state.iov_offset, (size_t)(r->len / 3));
		KUNIT_EXPECT_EQ(test, state.nr_segs, it.nr_segs);
	}
}

/* iov_iter_get_pages2() stops at a hole too. */
void xarray_hole_get_pages(struct kunit *test)
{
	struct ixa_fixture *fx = test->priv;
	unsigned int k;

	for (k = 0; k < ixa_nr_hole_ranges; k++) {
		const struct ixa_range *r = &ixa_hole_ranges[k].r;
		size_t want = ixa_hole_ranges[k].copied, first, npages;
		struct iov_iter it;
		ssize_t n;

		ixa_iter(fx, &it, ITER_SOURCE, r);
		n = iov_iter_get_pages2(&it, fx->pages, r->len, IXA_PAGES, &first);
		npages = n > 0 ? DIV_ROUND_UP(first + n, PAGE_SIZE) : 0;
		if (!ixa_check_ret(fx, r, "iov_iter_get_pages2", n, want) ||
		    !ixa_check_state(fx, &it, r, want) ||
		    !check_pages(fx, r, 0, fx->pages, n, first))
			return;
		while (npages)
			put_page(fx->pages[--npages]);
	}
}
