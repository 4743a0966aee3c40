// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs KUnit harness: the fake cache.
 *
 * It owns the netfs_cache_ops that begin_cache_operation (fake_server.c)
 * installs, and the cache's store: a per-inode xarray of page-sized
 * buffers indexed by file page, where NK_HOLE marks a page that the cache
 * reports as held but holds as a hole (nk_cache.hole).  struct nk_cache scripts it: what it holds
 * before the scenario, its granule, whether it is stale, whether it asks
 * for copies, and faults in its reads.  Its I/O completes through
 * nk_complete() (io.c), in the scenario's context like the server's; a
 * write takes its data when it completes.  The store is locked against
 * softirqs (XA_FLAGS_LOCK_BH, xa_store_bh()): writes complete there.
 *
 * Its calls are recorded under the request's debug_id, which it finds in
 * cache_priv2 (its own per-request pointer, set when the cache is
 * installed).
 */

#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "harness.h"

bool nk_held(struct nk_inode *ni, loff_t pos)
{
	return xa_load(&ni->store, pos >> PAGE_SHIFT);
}

static unsigned int nk_cres_rreq(struct netfs_cache_resources *cres)
{
	struct nk_rreq *r = cres->cache_priv2;

	return r->debug_id;
}

static void nk_end_operation(struct netfs_cache_resources *cres)
{
	struct nk_inode *ni = cres->cache_priv;
	struct nk_rreq *r = cres->cache_priv2;

	might_sleep();	/* cachefiles puts its file and its object here */
	atomic_inc(&r->nr_ended);
	atomic_inc(&ni->env->n.ended);
}

/*
 * Copy count bytes of iter into the store at file position pos, page by
 * page, allocating the pages it needs (a hole becomes data).
 * Return: the number of bytes copied.
 */
static size_t nk_store_write(struct nk_inode *ni, loff_t pos, size_t count,
			     struct iov_iter *iter)
{
	/* a write completes in the scenario's context */
	gfp_t gfp = in_task() ? GFP_NOFS : GFP_ATOMIC;
	size_t done = 0;

	while (done < count) {
		loff_t p = pos + done;
		pgoff_t index = p >> PAGE_SHIFT;
		size_t off = offset_in_page(p);
		size_t run = min_t(size_t, count - done, PAGE_SIZE - off);
		u8 *page = xa_load(&ni->store, index);

		if (!page || xa_is_value(page)) {
			u8 *new = kzalloc(PAGE_SIZE, gfp);
			void *old = new ? xa_cmpxchg_bh(&ni->store, index, page,
							new, gfp) : NULL;

			if (!new)
				break;
			/* another completion may have stored it meanwhile */
			if (old != page) {
				kfree(new);
				new = xa_is_err(old) || xa_is_value(old) ? NULL : old;
			}
			page = new;
			if (!page)
				break;
		}
		if (copy_from_iter(page + off, run, iter) != run)
			break;
		done += run;
	}
	return done;
}

/*
 * Read count bytes at file position pos from the store into iter, the way
 * cachefiles reads a sparse backing file: a page held as a hole (NK_HOLE)
 * reads as zeroes with NETFS_READ_HOLE_CLEAR; without, the read stops
 * short there, and with NETFS_READ_HOLE_FAIL it fails with -ENODATA if it
 * read nothing before.  A page the cache does not hold at all reads as
 * zeroes with NETFS_READ_HOLE_CLEAR and fails the read otherwise.
 * Return: the bytes read, or -ENODATA.
 */
static ssize_t nk_store_read(struct nk_inode *ni, loff_t pos, size_t count,
			     struct iov_iter *iter,
			     enum netfs_read_from_hole read_hole)
{
	size_t done = 0;

	while (done < count) {
		loff_t p = pos + done;
		size_t off = offset_in_page(p);
		size_t run = min_t(size_t, count - done, PAGE_SIZE - off);
		u8 *page = xa_load(&ni->store, p >> PAGE_SHIFT);
		size_t copied;

		if (page && !xa_is_value(page)) {
			copied = copy_to_iter(page + off, run, iter);
		} else if (read_hole == NETFS_READ_HOLE_CLEAR) {
			copied = iov_iter_zero(run, iter);
		} else {
			if (!page || (read_hole == NETFS_READ_HOLE_FAIL && !done))
				return -ENODATA;
			break;
		}
		if (copied != run)
			return -ENODATA;
		done += run;
	}
	return done;
}

/* Folios being copied to the cache must carry PG_fscache until it ends. */
static bool nk_count_unmarked(struct folio *folio, void *arg)
{
	struct nk_env *env = arg;

	if (!folio_test_fscache(folio))
		atomic_inc(&env->n.unmarked);
	return true;
}

/*
 * A cache write completing: copy its data into the store.  The folios
 * must still carry PG_fscache (counted as at issue): the helper may end
 * it only when the write has completed.
 *
 * Return: the bytes written, or -ENOBUFS if the store could not take them.
 */
static ssize_t nk_cache_take(struct nk_inode *ni, loff_t pos,
			     struct iov_iter *iter)
{
	size_t count = iov_iter_count(iter);

	/* an encrypted file's are not: the write reads a buffer of its own */
	if (!ni->env->sc->crypt)
		nk_walk_folios(ni->netfs.inode.i_mapping, pos, pos + count,
			       nk_count_unmarked, ni->env);
	return nk_store_write(ni, pos, count, iter) < count ? -ENOBUFS : count;
}

static void nk_cache_io_complete(struct nk_io *io, bool was_async)
{
	if (io->store && io->result >= 0)
		io->result = nk_cache_take(io->store, io->pos, &io->iter);
	io->term(io->term_priv, io->result, was_async);
}

/*
 * Complete a cache read or write with result (bytes or an error); a write
 * (store not NULL) copies iter into the store at pos.  A write takes its
 * data from the page cache when it completes, as a real cache's
 * asynchronous write does, not when it is issued: a folio that the helper
 * let go before then (no PG_fscache wait) is copied as it is by then.  The
 * iterator is copied; the pages it names stay in the page cache while they
 * carry PG_fscache.
 */
static int nk_complete_cache_io(struct nk_env *env, unsigned int call,
				netfs_io_terminated_t term, void *priv,
				ssize_t result, struct nk_inode *store,
				loff_t pos, const struct iov_iter *iter)
{
	struct nk_io how = {
		.complete = nk_cache_io_complete,
		.result = result,
		.term = term,
		.term_priv = priv,
		.store = store,
		.pos = pos,
	};

	if (iter)
		how.iter = *iter;
	return nk_complete(env, call, &how);
}

static int nk_cache_read(struct netfs_cache_resources *cres, loff_t start_pos,
			 struct iov_iter *iter,
			 enum netfs_read_from_hole read_hole,
			 netfs_io_terminated_t term_func, void *term_func_priv)
{
	struct nk_inode *ni = cres->cache_priv;
	struct nk_env *env = ni->env;
	size_t count = iov_iter_count(iter);
	const struct nk_fault *f;
	unsigned int call;
	ssize_t result;
	loff_t p;

	call = nk_record(env, NK_CALL_CACHE_READ, nk_cres_rreq(cres), start_pos,
			 count, 0, read_hole);
	if (env->sc->crypt)
		nk_note_buffer(env, iter, count);
	/* prepare_read sent only what the cache holds this way */
	for (p = start_pos; read_hole != NETFS_READ_HOLE_CLEAR &&
	     p < start_pos + count; p = round_down(p, PAGE_SIZE) + PAGE_SIZE)
		if (!nk_held(ni, p)) {
			atomic_inc(&env->n.hole_reads);
			break;
		}

	f = nk_find_fault(env->sc->cache.faults, call);
	if (f && f->kind == NK_FAULT_SHORT)
		count = min_t(size_t, count, f->value);
	if (f && f->kind == NK_FAULT_ZERO)
		count = 0;
	/* The cache reads file position start_pos into the start of iter. */
	result = nk_store_read(ni, start_pos, count, iter, read_hole);
	if (f && f->kind == NK_FAULT_ERROR)
		result = f->value;
	return nk_complete_cache_io(env, call, term_func, term_func_priv, result,
				    NULL, 0, NULL);
}

static int nk_cache_write(struct netfs_cache_resources *cres, loff_t start_pos,
			  struct iov_iter *iter, netfs_io_terminated_t term_func,
			  void *term_func_priv)
{
	struct nk_inode *ni = cres->cache_priv;
	struct nk_env *env = ni->env;
	size_t count = iov_iter_count(iter);
	unsigned int call;

	might_sleep();	/* cachefiles starts a kiocb write */
	call = nk_record(env, NK_CALL_CACHE_WRITE, nk_cres_rreq(cres), start_pos,
			 count, 0, 0);
	if (!env->sc->crypt)
		nk_walk_folios(ni->netfs.inode.i_mapping, start_pos,
			       start_pos + count, nk_count_unmarked, env);
	if (env->sc->cache.write_error)
		return nk_complete_cache_io(env, call, term_func, term_func_priv,
					    env->sc->cache.write_error, NULL, 0, NULL);
	return nk_complete_cache_io(env, call, term_func, term_func_priv, 0,
				    ni, start_pos, iter);
}

static void nk_cache_expand_readahead(struct netfs_cache_resources *cres,
				      loff_t *start, size_t *len, loff_t i_size)
{
	struct nk_inode *ni = cres->cache_priv;
	const struct nk_cache *cs = &ni->env->sc->cache;

	nk_expand(start, len, cs->granule, cs->expand_how);
}

/*
 * Read from the cache what it holds, download the rest (and ask for a
 * copy), zeroes beyond i_size; never across a granule or a change between
 * held and not held.
 */
static enum netfs_io_source nk_prepare_read(struct netfs_io_subrequest *subreq,
					    loff_t i_size)
{
	struct nk_inode *ni = subreq->rreq->cache_resources.cache_priv;
	const struct nk_cache *cs = &ni->env->sc->cache;
	loff_t start = subreq->start, end = start + subreq->len, p;
	bool held = nk_held(ni, start);

	/* a new slice: no flag of an earlier one (ONDEMAND...) may be left */
	if (subreq->flags)
		atomic_inc(&ni->env->n.dirty_slices);

	if (cs->prepare_read_invalid &&
	    atomic_inc_return(&ni->env->n.prepares) == cs->prepare_read_invalid)
		return NETFS_INVALID_READ;
	if (start >= i_size)
		return NETFS_FILL_WITH_ZEROES;
	if (cs->granule)
		end = min_t(loff_t, end, round_down(start, cs->granule) + cs->granule);
	for (p = round_down(start, PAGE_SIZE) + PAGE_SIZE; p < end; p += PAGE_SIZE)
		if (nk_held(ni, p) != held)
			break;
	subreq->len = min(end, p) - start;
	if (held)
		return NETFS_READ_FROM_CACHE;
	if (!cs->no_copy)
		__set_bit(NETFS_SREQ_COPY_TO_CACHE, &subreq->flags);
	return NETFS_DOWNLOAD_FROM_SERVER;
}

/* Whole pages, up to the page that holds i_size */
static int nk_prepare_write(struct netfs_cache_resources *cres, loff_t *start,
			    size_t *len, loff_t i_size, bool no_space_allocated_yet)
{
	struct nk_inode *ni = cres->cache_priv;
	loff_t s = round_down(*start, PAGE_SIZE);
	loff_t e = round_up(*start + *len, PAGE_SIZE);

	might_sleep();	/* cachefiles may allocate space in the backing file */
	if (ni->env->sc->cache.prepare_write_error)
		return ni->env->sc->cache.prepare_write_error;
	e = min_t(loff_t, e, round_up(i_size, PAGE_SIZE));
	if (e <= s)
		return -ENOBUFS;
	*start = s;
	*len = e - s;
	return 0;
}

static int nk_query_occupancy(struct netfs_cache_resources *cres, loff_t start,
			      size_t len, size_t granularity, loff_t *data_start,
			      size_t *data_len)
{
	struct nk_inode *ni = cres->cache_priv;

	/* for a netfs's own use (fscache_query_occupancy()), not the helpers' */
	atomic_inc(&ni->env->n.occupancy);
	return -ENODATA;
}

const struct netfs_cache_ops nk_cache_ops = {
	.end_operation		= nk_end_operation,
	.read			= nk_cache_read,
	.write			= nk_cache_write,
	.expand_readahead	= nk_cache_expand_readahead,
	.prepare_read		= nk_prepare_read,
	.prepare_write		= nk_prepare_write,
	.query_occupancy	= nk_query_occupancy,
};

/**
 * nk_cache_resize - the file's size changed: so does what the cache holds
 * @ni: the file
 * @size: its new size
 *
 * What a netfs's setattr does with fscache_resize_cookie(): nothing past
 * @size is left, and the page that holds @size is cleared from there.
 */
void nk_cache_resize(struct nk_inode *ni, loff_t size)
{
	unsigned long index;
	u8 *page;

	xa_for_each_start(&ni->store, index, page, size >> PAGE_SHIFT) {
		if ((loff_t)index << PAGE_SHIFT >= size) {
			xa_erase_bh(&ni->store, index);
			if (!xa_is_value(page))
				kfree(page);
		} else if (!xa_is_value(page)) {
			memset(page + offset_in_page(size), 0,
			       PAGE_SIZE - offset_in_page(size));
		}
	}
}

/**
 * nk_cache_fill - make the cache hold part of a file before a scenario
 * @ni: the file
 * @start: from here
 * @len: this many bytes (whole pages)
 * @junk: hold data that differs from the file (a stale cache)
 *
 * Return: 0 or -ENOMEM.
 */
int nk_cache_fill(struct nk_inode *ni, loff_t start, loff_t len, bool junk)
{
	void *old;
	loff_t p;

	for (p = round_down(start, PAGE_SIZE); p < start + len; p += PAGE_SIZE) {
		u8 *page = kzalloc(PAGE_SIZE, GFP_KERNEL);

		if (!page)
			return -ENOMEM;
		if (junk)
			memcpy(page, nk_pattern(NK_ALT_ID + 1, p), PAGE_SIZE);
		else if (nk_stored(ni, p, page, PAGE_SIZE, false))
			memset(page, 0, PAGE_SIZE);
		old = xa_store_bh(&ni->store, p >> PAGE_SHIFT, page, GFP_KERNEL);
		if (xa_is_err(old)) {
			kfree(page);
			return xa_err(old);
		}
		if (!xa_is_value(old))
			kfree(old);
	}
	return 0;
}

/**
 * nk_cache_setup - make the cache hold what a scenario says, before it runs
 * @ni: the file
 * @cs: the cache's script: what it holds, stale or not, and its hole
 *
 * Return: 0 or -ENOMEM.
 */
int nk_cache_setup(struct nk_inode *ni, const struct nk_cache *cs)
{
	loff_t p;
	int i, err;

	for (i = 0; i < NK_MAX_RANGES && cs->held[i].len; i++) {
		err = nk_cache_fill(ni, cs->held[i].start, cs->held[i].len,
				    cs->stale);
		if (err)
			return err;
	}
	for (p = cs->hole.start; p < cs->hole.start + cs->hole.len; p += PAGE_SIZE) {
		void *old = xa_store_bh(&ni->store, p >> PAGE_SHIFT, NK_HOLE,
					GFP_KERNEL);

		if (xa_is_err(old))
			return xa_err(old);
		if (!xa_is_value(old))
			kfree(old);
	}
	ni->stale = cs->stale;
	return 0;
}
