// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs KUnit harness: the fake server.
 *
 * It owns the netfs_request_ops of the test inodes, the record of every
 * call the fakes receive (server and cache), and the completion of their
 * I/O in the scenario's context: inline, from a workqueue or from a timer
 * (softirq), each call delayed by a different number of jiffies than its
 * neighbours so that asynchronous completions arrive out of order; or,
 * with server.mix, each call in a context and after a delay of its own.
 *
 * The server's file is the pattern below nk_inode.content; struct
 * nk_server scripts what it does on top (rsize, short reads, faults,
 * a change of size, expansion, init_request and check_write_begin results,
 * and a call held back until the case releases it).
 */

#include <linux/hash.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/uio.h>

#include "harness.h"

/**
 * nk_record - record one call a fake received
 * @env: the environment
 * @op: which call
 * @rreq: debug_id of its request (0: not known)
 * @start: its file position
 * @len: its length
 * @done: for issue_read, subreq->transferred
 * @read_hole: for a cache read, what it was asked to do with holes
 *
 * Return: the number of this call among calls of its kind, from 1.
 */
unsigned int nk_record(struct nk_env *env, enum nk_call_op op, unsigned int rreq,
		       loff_t start, size_t len, size_t done,
		       enum netfs_read_from_hole read_hole)
{
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&env->lock, flags);
	switch (op) {
	case NK_CALL_ISSUE:
		n = ++env->n.issue;
		break;
	case NK_CALL_CACHE_READ:
		n = ++env->n.cread;
		break;
	default:
		n = ++env->n.cwrite;
		break;
	}
	if (env->nr_calls < NK_MAX_CALLS) {
		struct nk_call *c = &env->calls[env->nr_calls++];

		c->op = op;
		c->rreq = rreq;
		c->start = start;
		c->len = len;
		c->done = done;
		c->read_hole = read_hole;
	}
	if (n > NK_CALL_LIMIT && !env->bench && !env->unlimited)
		env->overflow = true;
	spin_unlock_irqrestore(&env->lock, flags);
	return n;
}

/* The scripted fault for the n-th call of a kind, if any */
const struct nk_fault *nk_find_fault(const struct nk_fault *faults,
				     unsigned int n)
{
	int i;

	for (i = 0; i < NK_MAX_FAULTS; i++)
		if (faults[i].kind != NK_FAULT_NONE && faults[i].call == n)
			return &faults[i];
	return NULL;
}

/* ---- deferred completions ---- */

struct nk_io {
	struct delayed_work dwork;
	struct timer_list timer;
	struct nk_env *env;
	void (*complete)(struct nk_io *io, bool was_async);
	ssize_t result;
	struct netfs_io_subrequest *subreq;	/* server read */
	loff_t pos;				/* server read or cache write */
	netfs_io_terminated_t term;		/* cache read or write */
	void *term_priv;
	struct nk_inode *store;			/* cache write: copy iter at pos */
	struct iov_iter iter;
	bool held;				/* server.hold kept it back */
	size_t over;				/* reported beyond result */
};

static void nk_io_work(struct work_struct *work)
{
	struct nk_io *io = container_of(to_delayed_work(work), struct nk_io, dwork);
	struct nk_env *env = io->env;

	io->complete(io, false);
	kfree(io);
	atomic_dec(&env->n.inflight);
}

static void nk_io_timer(struct timer_list *t)
{
	struct nk_io *io = from_timer(io, t, timer);
	struct nk_env *env = io->env;

	io->complete(io, true);
	kfree(io);
	atomic_dec(&env->n.inflight);
}

/* Complete io in context ctx, after delay jiffies if deferred. */
static void nk_dispatch(struct nk_env *env, struct nk_io *io, enum nk_ctx ctx,
			unsigned long delay)
{
	switch (ctx) {
	case NK_CTX_INLINE:
		io->complete(io, false);
		kfree(io);
		break;
	case NK_CTX_WORKQUEUE:
		atomic_inc(&env->n.inflight);
		INIT_DELAYED_WORK(&io->dwork, nk_io_work);
		queue_delayed_work(env->wq, &io->dwork, delay);
		break;
	default:
		atomic_inc(&env->n.inflight);
		timer_setup(&io->timer, nk_io_timer, 0);
		mod_timer(&io->timer, jiffies + 1 + delay);
		break;
	}
}

/*
 * Complete the n-th call of a kind as *how describes, in the scenario's
 * context; the issue_read that server.hold names is kept back until
 * nk_release_held().  If there is no memory for that, it fails with
 * -ENOMEM at once, as a real transport's submission would.
 */
static int nk_complete(struct nk_env *env, unsigned int n,
		       const struct nk_io *how)
{
	struct nk_io *io = kmemdup(how, sizeof(*how), GFP_NOFS);

	if (!io) {
		struct nk_io failed = *how;

		failed.result = -ENOMEM;
		failed.complete(&failed, false);
		return -ENOMEM;
	}
	io->env = env;
	if (io->subreq && n == env->sc->server.hold) {
		io->held = true;
		atomic_inc(&env->n.inflight);
		env->held_range.start = io->subreq->start;
		env->held_range.len = io->subreq->len;
		/* held_range before held: see nk_check_progress() */
		smp_store_release(&env->held, io);
		/* held before release_ms: see nk_release_held_later() */
		smp_mb();
		if (READ_ONCE(env->release_ms))
			schedule_delayed_work(&env->release_work,
					      msecs_to_jiffies(env->release_ms));
		return 0;
	}
	if (env->sc->server.mix) {
		/* the call's own context and delay: any order, any context */
		u32 h = hash_32(env->sc->server.mix ^ (n << 1 | !io->subreq), 32);

		nk_dispatch(env, io, h % NK_NR_CTX, (h >> 8) % 3);
	} else if (io->subreq && env->sc->server.pace_ms) {
		nk_dispatch(env, io, env->ctx,
			    msecs_to_jiffies((io->subreq->debug_index + 1) *
					     env->sc->server.pace_ms));
	} else if (env->bench) {
		nk_dispatch(env, io, env->ctx, 0);	/* as soon as a worker can */
	} else {
		nk_dispatch(env, io, env->ctx, (3 - n % 3) % 3);
	}
	return 0;
}

/**
 * nk_release_held - let the issue_read that server.hold kept back complete
 * @env: the environment
 *
 * It then completes in the scenario's context like any other call.
 * Nothing happens if no call is held.
 */
void nk_release_held(struct nk_env *env)
{
	struct nk_io *io = xchg(&env->held, NULL);

	if (!io)
		return;
	/* still in flight until the dispatch has counted it again */
	nk_dispatch(env, io, env->ctx, 0);
	atomic_dec(&env->n.inflight);
}

/* The delayed work of nk_release_held_later(), set up by nk_env_create() */
void nk_release_held_work(struct work_struct *work)
{
	nk_release_held(container_of(to_delayed_work(work), struct nk_env,
				     release_work));
}

/**
 * nk_release_held_later - release the held issue_read a while after it
 *	was held
 * @env: the environment
 * @ms: how long after
 *
 * For an operation that waits for the held call (read_folio,
 * write_begin, a truncation): the case runs it meanwhile, and whether it
 * returned before the held call completed shows in env->released.  The
 * time counts from when the call is held (or from now if it already is),
 * not from when the case asks, so that a slow guest that issues the call
 * late still sees it held for @ms.
 */
void nk_release_held_later(struct nk_env *env, unsigned int ms)
{
	WRITE_ONCE(env->release_ms, ms);
	/* release_ms before held: whichever side sees the other schedules */
	smp_mb();
	if (READ_ONCE(env->held))
		schedule_delayed_work(&env->release_work, msecs_to_jiffies(ms));
}

static void nk_cache_io_complete(struct nk_io *io, bool was_async)
{
	if (io->store && io->result >= 0)
		io->result = nk_cache_take(io->store, io->pos, &io->iter);
	io->term(io->term_priv, io->result, was_async);
}

/**
 * nk_complete_cache_io - complete a fake cache read or write
 * @env: the environment
 * @call: the number of the call among its kind
 * @term: the helper's termination function
 * @priv: its argument
 * @result: bytes transferred or an error
 * @store: for a write, the inode whose store takes the data; else NULL
 * @pos: where the write goes
 * @iter: what it writes
 *
 * A write takes its data from the page cache when it completes, as a real
 * cache's asynchronous write does, not when it is issued: a folio that the
 * helper let go before then (no PG_fscache wait) is copied as it is by
 * then.  The iterator is copied; the pages it names stay in the page
 * cache while they carry PG_fscache.
 *
 * Return: 0, or -ENOMEM if it had to fail the call at once.
 */
int nk_complete_cache_io(struct nk_env *env, unsigned int call,
			 netfs_io_terminated_t term, void *priv, ssize_t result,
			 struct nk_inode *store, loff_t pos,
			 const struct iov_iter *iter)
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

/* Round [*start, *start + *len) out to block at the ends how names. */
void nk_expand(loff_t *start, size_t *len, size_t block, unsigned int how)
{
	loff_t s = *start, e = *start + *len;

	if (!block)
		return;
	if (how & NK_EXPAND_START)
		s = round_down(s, block);
	if (how & NK_EXPAND_END)
		e = round_up(e, block);
	*start = s;
	*len = e - s;
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

	if (io->result > 0) {
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
	if (io->held)
		WRITE_ONCE(ni->env->released, true);
	/* a server that misreports: more than it was asked for, and read */
	if (io->result >= 0)
		io->result += io->over;
	netfs_subreq_terminated(subreq, io->result, was_async);
}

/* How many bytes the n-th issue_read of [pos, pos + avail) transfers */
static ssize_t nk_server_result(struct nk_inode *ni, unsigned int n,
				struct netfs_io_subrequest *subreq,
				loff_t pos, size_t avail)
{
	const struct nk_server *ss = &ni->env->sc->server;
	const struct nk_fault *f = nk_find_fault(ss->faults, n);
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

	bytes = pos < ni->content ? min_t(loff_t, avail, ni->content - pos) : 0;
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
	if (bytes >= 0 && bytes < avail && pos + bytes >= ni->content &&
	    (ss->clear_tail || (f && f->kind == NK_FAULT_CLEAR_TAIL)))
		set_bit(NETFS_SREQ_CLEAR_TAIL, &subreq->flags);
	if (n > NK_CALL_LIMIT && !ni->env->bench && !ni->env->unlimited)
		bytes = -EIO;	/* a retry loop that does not end */
	return bytes;
}

static void nk_issue_read(struct netfs_io_subrequest *subreq)
{
	struct netfs_io_request *rreq = subreq->rreq;
	struct nk_inode *ni = NK_I(rreq->inode);
	struct nk_env *env = ni->env;
	struct nk_rreq *r = rreq->netfs_priv;
	const struct nk_fault *f;
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
	nk_complete(env, n, &how);
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
};
