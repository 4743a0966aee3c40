/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * iov_iter_xarray KUnit suite, private: the fixture (xarray_fixture.c)
 * and what the case files (xarray_copy_kunit.c, xarray_iterate_kunit.c)
 * and the suite (iov_iter_xarray_kunit.c) share.
 */
#ifndef _IOV_ITER_XARRAY_FIXTURE_H
#define _IOV_ITER_XARRAY_FIXTURE_H

#include <kunit/test.h>
#include <linux/types.h>
#include <linux/uio.h>
#include <linux/xarray.h>

/* Every layout covers the same number of bytes. */
#define IXA_PAGES	1024
#define IXA_BYTES	((size_t)IXA_PAGES * PAGE_SIZE)
/* The pattern buffer runs on past the end so a copy may ask for more. */
#define PAT_GUARD	PAGE_SIZE
/* An index above 4 GiB of file position, aligned for an order-9 folio */
#define HIGH_INDEX	((5ULL << 30) >> PAGE_SHIFT)

struct folio_run {
	unsigned int order;
	unsigned int count;
	bool hole;		/* leave these indices empty */
};

struct ixa_layout {
	const char *name;
	u64 base;			/* index of the first folio */
	struct folio_run runs[12];	/* ends at the first run with count 0 */
};

/* Order-2 folios with one missing at pages 32-35 */
#define HOLE_OFF	(32 * PAGE_SIZE)
#define HOLE_LEN	(4 * PAGE_SIZE)

struct iter_param {
	const struct ixa_layout *layout;
	bool bvec;		/* ITER_BVEC over the same folios */
};

struct ixa_range {
	size_t start;		/* from the layout's first byte */
	size_t len;
};

/* The ranges every case runs over, and the steps of advance and revert */
extern const struct ixa_range ixa_ranges[];
extern const size_t ixa_nr_ranges;
#define IXA_RANGES_END (ixa_ranges + ixa_nr_ranges)
extern const size_t ixa_steps[];
extern const size_t ixa_nr_steps;

/* Ranges of the hole layout, and how much of each a copy gets */
struct ixa_hole_range {
	struct ixa_range r;
	size_t copied;
};

extern const struct ixa_hole_range ixa_hole_ranges[];
extern const size_t ixa_nr_hole_ranges;

struct ixa_fixture {
	struct kunit *test;
	const struct iter_param *param;
	struct xarray xa;
	loff_t base;		/* file position of the first byte */
	const u8 *pattern;	/* IXA_BYTES + PAT_GUARD bytes, from base */
	u8 *buf;		/* scratch, IXA_BYTES + PAT_GUARD bytes */
	struct bio_vec *bv;	/* bvecs for the bvec kind, one per folio */
	struct page **pages;	/* for get_pages */
};

struct folio *ixa_folio(struct ixa_fixture *fx, size_t off);
struct page *ixa_page(struct ixa_fixture *fx, size_t off);
u8 *ixa_map(struct ixa_fixture *fx, size_t off, size_t *chunk);
void ixa_fill(struct ixa_fixture *fx, bool pattern);
bool ixa_verify(struct ixa_fixture *fx, const struct ixa_range *r,
		bool pattern_inside);
bool ixa_buf_verify(struct ixa_fixture *fx, const struct ixa_range *r,
		    size_t off, size_t len);
void ixa_iter(struct ixa_fixture *fx, struct iov_iter *it, unsigned int dir,
	      const struct ixa_range *r);
bool ixa_check_state(struct ixa_fixture *fx, const struct iov_iter *it,
		     const struct ixa_range *r, size_t done);
bool ixa_check_ret(struct ixa_fixture *fx, const struct ixa_range *r,
		   const char *what, size_t got, size_t want);
int ixa_case_init(struct kunit *test);
void ixa_case_exit(struct kunit *test);
int ixa_suite_init(struct kunit_suite *suite);
void ixa_suite_exit(struct kunit_suite *suite);

/* xarray_copy_kunit.c */
void xarray_copy_to_iter(struct kunit *test);
void xarray_copy_page_to_iter(struct kunit *test);
void xarray_copy_from_iter(struct kunit *test);
void xarray_copy_from_iter_nocache(struct kunit *test);
void xarray_copy_page_from_iter(struct kunit *test);
void xarray_copy_page_from_iter_atomic(struct kunit *test);
void xarray_zero(struct kunit *test);
void xarray_csum_and_copy_to_iter(struct kunit *test);
void xarray_csum_and_copy_from_iter(struct kunit *test);
void xarray_csum_split(struct kunit *test);
void xarray_hole_copy(struct kunit *test);
void xarray_hole_ops(struct kunit *test);

/* xarray_iterate_kunit.c */
void xarray_advance(struct kunit *test);
void xarray_advance_past_end(struct kunit *test);
void xarray_revert(struct kunit *test);
void xarray_npages(struct kunit *test);
void xarray_get_pages2(struct kunit *test);
void xarray_get_pages_alloc2(struct kunit *test);
void xarray_get_pages_maxsize(struct kunit *test);
void xarray_dup_iter(struct kunit *test);
void xarray_alignment(struct kunit *test);
void xarray_save_state(struct kunit *test);
void xarray_hole_get_pages(struct kunit *test);

#endif /* _IOV_ITER_XARRAY_FIXTURE_H */
