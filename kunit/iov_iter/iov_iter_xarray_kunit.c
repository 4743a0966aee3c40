// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite for ITER_XARRAY iov_iters: the layouts, the parameters and
 * the suite.
 *
 * Every case builds an xarray of folios the way the page cache holds them
 * (one multi-index entry per large folio), runs one iov_iter operation over
 * a table of byte ranges and checks the result byte for byte against a
 * position-dependent pattern, plus the iterator's state afterwards
 * (xarray_fixture.c; the cases are in xarray_copy_kunit.c and
 * xarray_iterate_kunit.c).
 *
 * Each case also runs over an ITER_BVEC iterator describing the same bytes of
 * the same folios and is held to the same expectations: a differential check
 * that ITER_XARRAY behaves like the iterator type everybody else uses.
 */

#include <kunit/test.h>
#include <linux/module.h>

#include "xarray_fixture.h"

static const struct ixa_layout ixa_layouts[] = {
	{ "order-0", 0, { { 0, IXA_PAGES } } },
	{ "order-2", 0, { { 2, IXA_PAGES / 4 } } },
	{ "order-9", 0, { { 9, IXA_PAGES / 512 } } },
	/* 4 + 4 + 8 + ... + 512 = 1024 pages, each folio naturally aligned */
	{ "mixed", 0, { { 0, 4 }, { 2, 1 }, { 3, 1 }, { 4, 1 }, { 5, 1 },
			{ 6, 1 }, { 7, 1 }, { 8, 1 }, { 9, 1 } } },
	/* positions beyond 4 GiB: 64-bit position arithmetic */
	{ "order-0-at-5G", HIGH_INDEX, { { 0, IXA_PAGES } } },
	{ "order-9-at-5G", HIGH_INDEX, { { 9, IXA_PAGES / 512 } } },
};

/* Order-2 folios with one missing at pages 32-35 (HOLE_OFF, HOLE_LEN) */
static const struct ixa_layout hole_layout = {
	"order-2-hole", 0, { { 2, 8 }, { 2, 1, true }, { 2, IXA_PAGES / 4 - 9 } },
};

static const struct iter_param iter_params[] = {
	{ &ixa_layouts[0], false }, { &ixa_layouts[0], true },
	{ &ixa_layouts[1], false }, { &ixa_layouts[1], true },
	{ &ixa_layouts[2], false }, { &ixa_layouts[2], true },
	{ &ixa_layouts[3], false }, { &ixa_layouts[3], true },
	{ &ixa_layouts[4], false }, { &ixa_layouts[4], true },
	{ &ixa_layouts[5], false }, { &ixa_layouts[5], true },
};

static const struct iter_param xarray_params[] = {
	{ &ixa_layouts[0] }, { &ixa_layouts[1] }, { &ixa_layouts[2] },
	{ &ixa_layouts[3] }, { &ixa_layouts[4] }, { &ixa_layouts[5] },
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
	.suite_init = ixa_suite_init,
	.suite_exit = ixa_suite_exit,
	.init = ixa_case_init,
	.exit = ixa_case_exit,
	.test_cases = iov_iter_xarray_cases,
};

kunit_test_suite(iov_iter_xarray_suite);

MODULE_DESCRIPTION("KUnit suite for ITER_XARRAY iov_iters");
MODULE_LICENSE("GPL");
