// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs KUnit harness: the fake server.
 *
 * It owns the netfs_request_ops of the test inodes.  Every call is
 * recorded, and its I/O completed, by io.c, in the scenario's context.
 *
 * The server's file is the pattern below nk_inode.content; struct
 * nk_server scripts what it does on top (rsize, short reads, faults,
 * a change of size, expansion, init_request and check_write_begin results,
 * and a call held back until the case releases it).  Past NK_CALL_LIMIT
 * calls it fails every read, so that a retry loop that never ends, ends.
 */

#include <linux/ktime.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "harness.h"

/* ---- netfs_request_ops ---- */

static int nk_init_request(struct netfs_io_request *rreq, struct file *file)
{
	struct nk_env *env = NK_I(rreq->inode)->env;
	struct nk_rreq *r;
	unsigned long flags;

	if (env->sc->server.init_error)
		return env->sc->server.init_error;
	r = kzalloc(sizeof(*r), GFP_NOFS);
	if (!r)
		return -ENOMEM;
	r->debug_id = rreq->debug_id;
	r->origin = rreq->origin;
	r->i_size = rreq->i_size;
	rreq->netfs_priv = r;
	spin_lock_irqsave(&env->lock, flags);
	list_add_tail(&r->link, &env->rreqs);
	spin_unlock_irqrestore(&env->lock, flags);
	atomic_inc(&env->n.init);
	return 0;
}

static void nk_free_request(struct netfs_io_request *rreq)
{
	struct nk_env *env = NK_I(rreq->inode)->env;
	struct nk_rreq *r = rreq->netfs_priv;

	might_sleep();	/* a real netfs may put a key or a session here */
	r->start = rreq->start;
	r->end = rreq->start + rreq->len;
	atomic_inc(&r->nr_free);
	atomic_inc(&env->n.free);
}

static int nk_begin_cache_operation(struct netfs_io_request *rreq)
{
	struct nk_env *env = NK_I(rreq->inode)->env;
	const struct nk_cache *cs = &env->sc->cache;

	if (cs->begin_error)
		return cs->begin_error;
	if (!cs->on)
		return 0;
	rreq->cache_resources.ops = &nk_cache_ops;
	rreq->cache_resources.cache_priv = NK_I(rreq->inode);
	/* the cache's own per-request pointer: its calls name the request */
	rreq->cache_resources.cache_priv2 = rreq->netfs_priv;
	((struct nk_rreq *)rreq->netfs_priv)->cache_began = true;
	atomic_inc(&env->n.began);
	return 0;
}

static void nk_expand_readahead(struct netfs_io_request *rreq)
{
	const struct nk_server *ss = &NK_I(rreq->inode)->env->sc->server;

	nk_expand(&rreq->start, &rreq->len, ss->expand, ss->expand_how);
}

static bool nk_clamp_length(struct netfs_io_subrequest *subreq)
{
	struct nk_env *env = NK_I(subreq->rreq->inode)->env;
	const struct nk_server *ss = &env->sc->server;

	if (ss->clamp_fail && atomic_inc_return(&env->n.clamps) == ss->clamp_fail)
		return false;
	if (ss->rsize)
		subreq->len = min(subreq->len, ss->rsize);
	return true;
}

/* Copy the file's content into the page cache: the server's reply arriving. */
static void nk_server_complete(struct nk_io *io, bool was_async)
{
	struct netfs_io_subrequest *subreq = io->subreq;
	struct nk_inode *ni = NK_I(subreq->rreq->inode);
	struct iov_iter iter;
	size_t done = 0;

	if (io->result > 0 && io->data) {
		/* encrypted: into the library's buffer, not the page cache */
#ifdef CONFIG_NETFS_CONTENT_CRYPTO
		netfs_subreq_iter(subreq, &iter);
		nk_note_buffer(ni->env, &iter, io->result);
		done = copy_to_iter(io->data, io->result, &iter);
#endif
		if (done < io->result) {
			atomic_inc(&ni->env->n.violations);
			io->result = -EFAULT;
		}
	} else if (io->result > 0) {
		iov_iter_xarray(&iter, ITER_DEST, &subreq->rreq->mapping->i_pages,
				io->pos, io->result);
		while (done < io->result) {
			const u8 *src;
			size_t run = nk_content_run(ni, io->pos + done,
						    io->result - done, &src);

			if ((src ? copy_to_iter(src, run, &iter) :
			     iov_iter_zero(run, &iter)) != run)
				break;
			done += run;
		}
		if (done < io->result) {
			atomic_inc(&ni->env->n.violations);
			io->result = -EFAULT;
		}
	}
	kvfree(io->data);
	if (io->held)
		WRITE_ONCE(ni->env->released, true);
	/* a server that misreports: more than it was asked for, and read */
	if (io->result >= 0)
		io->result += io->over;
	if (ni->env->prof.on) {
		u64 t = ktime_get_ns();

		netfs_subreq_terminated(subreq, io->result, was_async);
		ni->env->prof.terminated += ktime_get_ns() - t;
		return;
	}
	netfs_subreq_terminated(subreq, io->result, was_async);
}

/* How many bytes the n-th issue_read of [pos, pos + avail) transfers */
static ssize_t nk_server_result(struct nk_inode *ni, unsigned int n,
				struct netfs_io_subrequest *subreq,
				loff_t pos, size_t avail)
{
	const struct nk_server *ss = &ni->env->sc->server;
	const struct nk_fault *f = nk_find_fault(ss->faults, n);
	loff_t end;
	ssize_t bytes;

	if (ss->resize_at && n == ss->resize_at) {
		nk_set_content(ni, ss->resize_to);
		i_size_write(&ni->netfs.inode, ss->resize_to);
		netfs_resize_file(&ni->netfs, ss->resize_to);
		/* and the cache, as with fscache_resize_cookie() */
		nk_cache_resize(ni, ss->resize_to);
	}
	if (f && f->kind == NK_FAULT_CLEAR_TAIL)
		/* the server's file ends here, and the client does not know */
		nk_set_content(ni, min_t(loff_t, ni->content, pos + f->value));

	end = nk_stored_end(ni);
	bytes = pos < end ? min_t(loff_t, avail, end - pos) : 0;
	if (ss->step)
		bytes = min_t(size_t, bytes, ss->step);
	if (f && f->kind == NK_FAULT_ERROR)
		bytes = f->value;
	if (f && f->kind == NK_FAULT_SHORT)
		bytes = min_t(ssize_t, bytes, f->value);
	if (f && f->kind == NK_FAULT_ZERO)
		bytes = 0;
	if (ni->env->in_pre && ni->env->sc->pre_failed)
		bytes = -EIO;
	if (bytes >= 0 && bytes < avail && pos + bytes >= end &&
	    (ss->clear_tail || (f && f->kind == NK_FAULT_CLEAR_TAIL)))
		set_bit(NETFS_SREQ_CLEAR_TAIL, &subreq->flags);
	if (READ_ONCE(ni->env->overflow))
		bytes = -EIO;	/* past NK_CALL_LIMIT: see nk_record() */
	return bytes;
}

static void nk_issue_read(struct netfs_io_subrequest *subreq)
{
	struct netfs_io_request *rreq = subreq->rreq;
	struct nk_inode *ni = NK_I(rreq->inode);
	struct nk_env *env = ni->env;
	struct nk_rreq *r = rreq->netfs_priv;
	const struct nk_fault *f;
	u64 t = env->prof.on ? ktime_get_ns() : 0;
	struct nk_io how = {
		.complete = nk_server_complete,
		.subreq = subreq,
		.pos = subreq->start + subreq->transferred,
	};
	unsigned int n;

	might_sleep();	/* a real netfs allocates and sends a message */
	n = nk_record(env, NK_CALL_ISSUE, rreq->debug_id, subreq->start,
		      subreq->len, subreq->transferred, 0);
	if (atomic_read(&r->nr_done) || atomic_read(&r->nr_free))
		atomic_inc(&env->n.violations);
	how.result = nk_server_result(ni, n, subreq, how.pos,
				      subreq->len - subreq->transferred);
	f = nk_find_fault(env->sc->server.faults, n);
	/* more than it was asked for: a short read that claims more is a lie
	 * no helper could see through
	 */
	if (f && f->kind == NK_FAULT_OVER &&
	    how.result == subreq->len - subreq->transferred)
		how.over = f->value;
	/* an encrypted file's ciphertext is made now, where it may sleep */
	if (env->sc->crypt && how.result > 0) {
		how.data = kvmalloc(how.result, GFP_KERNEL);
		if (!how.data || nk_stored(ni, how.pos, how.data, how.result, true))
			how.result = -ENOMEM;
	}
	nk_complete(env, n, &how);
	if (env->prof.on)
		env->prof.issue += ktime_get_ns() - t;
}

static bool nk_is_still_valid(struct netfs_io_request *rreq)
{
	return !NK_I(rreq->inode)->stale;
}

static int nk_check_write_begin(struct file *file, loff_t pos, unsigned int len,
				struct folio **foliop, void **fsdata)
{
	struct nk_env *env = NK_I(file_inode(file))->env;
	unsigned int n = atomic_inc_return(&env->n.cwb);

	if (n <= env->sc->server.cwb_regrab ||
	    (env->sc->server.cwb_error && env->sc->server.cwb_drop)) {
		folio_unlock(*foliop);
		folio_put(*foliop);
		*foliop = NULL;
		if (n <= env->sc->server.cwb_regrab)
			return 0;
	}
	return env->sc->server.cwb_error;
}

/* Is any folio of [start, end) other than the caller's still locked? */
struct nk_locked_walk {
	struct folio *keep;
	bool locked;
};

static bool nk_find_locked(struct folio *folio, void *arg)
{
	struct nk_locked_walk *w = arg;

	if (folio != w->keep && folio_test_locked(folio))
		w->locked = true;
	return !w->locked;
}

/*
 * done comes once per request, after every folio the request read has
 * been unlocked (write_begin's folio stays locked for its caller).
 */
static void nk_done(struct netfs_io_request *rreq)
{
	struct nk_env *env = NK_I(rreq->inode)->env;
	struct nk_rreq *r = rreq->netfs_priv;
	struct nk_locked_walk w = {};

	atomic_inc(&r->nr_done);
	if (test_bit(NETFS_RREQ_NO_UNLOCK_FOLIO, &rreq->flags))
		w.keep = filemap_get_folio(rreq->mapping, rreq->no_unlock_folio);
	/*
	 * Not where others lock folios: other jobs, or kernel_read() itself,
	 * which may lock a folio the request has already unlocked (to
	 * read_folio one whose read failed) before done runs.
	 */
	if (!env->concurrent && env->sc->op != NK_OP_READ) {
		nk_walk_folios(rreq->mapping, rreq->start, rreq->start + rreq->len,
			       nk_find_locked, &w);
		if (w.locked)
			atomic_inc(&env->n.done_early);
	}
	if (w.keep)
		folio_put(w.keep);
}

const struct netfs_request_ops nk_netfs_ops = {
	.init_request		= nk_init_request,
	.free_request		= nk_free_request,
	.begin_cache_operation	= nk_begin_cache_operation,
	.expand_readahead	= nk_expand_readahead,
	.clamp_length		= nk_clamp_length,
	.issue_read		= nk_issue_read,
	.is_still_valid		= nk_is_still_valid,
	.check_write_begin	= nk_check_write_begin,
	.done			= nk_done,
#ifdef CONFIG_NETFS_CONTENT_CRYPTO
	.crypto			= &nk_crypto_ops,
#endif
};

/* The same without any cache support (nk_cache.absent) */
const struct netfs_request_ops nk_netfs_ops_nocache = {
	.init_request		= nk_init_request,
	.free_request		= nk_free_request,
	.expand_readahead	= nk_expand_readahead,
	.clamp_length		= nk_clamp_length,
	.issue_read		= nk_issue_read,
	.check_write_begin	= nk_check_write_begin,
	.done			= nk_done,
#ifdef CONFIG_NETFS_CONTENT_CRYPTO
	.crypto			= &nk_crypto_ops,
#endif
};
