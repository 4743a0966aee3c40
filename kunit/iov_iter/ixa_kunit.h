/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the iov_iter KUnit suites: xarrays of folios laid out
 * the way the page cache lays out i_pages.
 */
#ifndef _IOV_ITER_IXA_KUNIT_H
#define _IOV_ITER_IXA_KUNIT_H

#include <linux/mm.h>
#include <linux/xarray.h>

/* Store @folio at @index, one multi-index entry for a large folio. */
static inline int ixa_store_folio(struct xarray *xa, pgoff_t index,
				  struct folio *folio)
{
	XA_STATE_ORDER(xas, xa, index, folio_order(folio));

	folio->index = index;
	do {
		xas_lock(&xas);
		xas_store(&xas, folio);
		xas_unlock(&xas);
	} while (xas_nomem(&xas, GFP_KERNEL));
	return xas_error(&xas);
}

/* Drop the reference on every folio of @xa and empty it. */
static inline void ixa_put_folios(struct xarray *xa)
{
	struct folio *folio;
	unsigned long index;

	xa_for_each(xa, index, folio)
		folio_put(folio);
	xa_destroy(xa);
}

#endif /* _IOV_ITER_IXA_KUNIT_H */
