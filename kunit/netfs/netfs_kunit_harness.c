// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs KUnit harness: test filesystem, fake server, fake cache, checks.
 *
 * The test filesystem is mounted with kern_mount(); each file is an inode
 * from new_inode() wrapped in a struct netfs_inode, with a struct file
 * from alloc_file_pseudo().  Its address_space_operations are the netfs
 * helpers, so reads go through the real VFS, VM and page cache.
 *
 * File content is a position-dependent pattern: the byte at position pos
 * of file id is nk_tile[(pos + id * NK_ID_STRIDE) % NK_PERIOD], with
 * NK_PERIOD prime and every tile byte non-zero, so that misplaced, stale,
 * missing or zeroed data is detected byte for byte.
 */

#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/netfs.h>
#include <linux/pagemap.h>
#include <linux/pagevec.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/timer.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "netfs_kunit.h"

#define NK_MAGIC	0x6e6b7566
#define NK_PERIOD	65521U		/* prime: misplacements of whole pages show */
#define NK_TILE_EXTRA	SZ_64K		/* a run up to this long is contiguous */
#define NK_ID_STRIDE	7919U
#define NK_ALT_ID	1000		/* content of writes and of stale caches */
#define NK_MAX_CALLS	1200		/* calls recorded */
#define NK_CALL_LIMIT	1100		/* calls served before failing them */
#define NK_MAX_FILES	8
/*
 * nk_quiesce() gives up after this long without progress (no counter it
 * watches changed), not after this long in all: a slow guest that is
 * still completing I/O is never cut short.
 */
#define NK_QUIESCE_MS	5000

static u8 nk_tile[NK_PERIOD + NK_TILE_EXTRA];

enum nk_call_op {
	NK_CALL_ISSUE,
	NK_CALL_CACHE_READ,
	NK_CALL_CACHE_WRITE,
};

struct nk_call {
	enum nk_call_op op;
	unsigned int rreq;
	loff_t start;
	size_t len;
	size_t done;
	int read_hole;
};

/* Per-request bookkeeping, kept until the end of the case */
struct nk_rreq {
	struct list_head link;
	unsigned int debug_id;
	enum netfs_io_origin origin;
	loff_t i_size;
	loff_t start, end;		/* at free_request */
	atomic_t nr_free;
	atomic_t nr_done;
	bool cache_began;
};

struct nk_env {
	struct kunit *test;
	const struct nk_scenario *sc;
	enum nk_ctx ctx;
	enum nk_folios folios;
	struct vfsmount *mnt;
	struct workqueue_struct *wq;
	struct file *files[NK_MAX_FILES];
	unsigned int nr_files;
	unsigned int next_id;
	bool broken;			/* leave everything: teardown could hang */

	spinlock_t lock;		/* protects rreqs and the call records */
	struct list_head rreqs;
	struct nk_call *calls;
	unsigned int nr_calls;
	unsigned int nr_issue, nr_cread, nr_cwrite;
	atomic_t nr_init, nr_free, nr_began, nr_ended, nr_cwb;
	atomic_t inflight;
	atomic_t violations;
	atomic_t unmarked;		/* copied to the cache without PG_fscache */
	bool overflow;
	unsigned int leftover;		/* folios ->readahead did not take */
	struct nk_range folio_range;	/* the folio NK_OP_READ_FOLIO made */
	bool have_stats;		/* netfs_stats_show() gives rr= and sr= */
	int stat_rreq, stat_sreq;	/* their values before the scenario */
};

struct nk_inode {
	struct netfs_inode netfs;
	struct nk_env *env;
	unsigned int id;
	loff_t content;			/* bytes below this hold the pattern */
	struct nk_range overlay;	/* bytes written by the test */
	struct xarray store;		/* the fake cache: page index -> page */
	bool stale;
};

static inline struct nk_inode *NK_I(struct inode *inode)
{
	return container_of(inode, struct nk_inode, netfs.inode);
}

/* A failed check */
static __printf(2, 3) void nk_fail(struct nk_env *env, const char *fmt, ...)
{
	char msg[160];
	va_list args;

	va_start(args, fmt);
	vsnprintf(msg, sizeof(msg), fmt, args);
	va_end(args);
	KUNIT_FAIL(env->test, "%s", msg);
}

#define nk_check(env, cond, fmt, ...)					\
	do {								\
		if (!(cond))						\
			nk_fail(env, fmt, ##__VA_ARGS__);		\
	} while (0)

/* ---- content ---- */

static void nk_init_tile(void)
{
	u32 x = 0x9e3779b9;
	unsigned int i;

	if (nk_tile[0])
		return;
	for (i = 0; i < NK_PERIOD; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		nk_tile[i] = 1 + x % 255;
	}
	memcpy(nk_tile + NK_PERIOD, nk_tile, NK_TILE_EXTRA);
}

static const u8 *nk_pattern(unsigned int id, loff_t pos)
{
	u32 rem;

	div_u64_rem(pos + (u64)id * NK_ID_STRIDE, NK_PERIOD, &rem);
	return nk_tile + rem;
}

/* The expected content of [pos, pos + n) of a file, into buf. */
static void nk_expected(struct nk_inode *ni, loff_t pos, u8 *buf, size_t n)
{
	loff_t ov_end = ni->overlay.start + ni->overlay.len;
	size_t i = 0;

	while (i < n) {
		loff_t p = pos + i;
		size_t run = min_t(size_t, n - i, NK_TILE_EXTRA);

		if (ni->overlay.len && p >= ni->overlay.start && p < ov_end) {
			run = min_t(loff_t, run, ov_end - p);
			memcpy(buf + i, nk_pattern(NK_ALT_ID, p), run);
		} else {
			if (ni->overlay.len && p < ni->overlay.start)
				run = min_t(loff_t, run, ni->overlay.start - p);
			if (p < ni->content) {
				run = min_t(loff_t, run, ni->content - p);
				memcpy(buf + i, nk_pattern(ni->id, p), run);
			} else {
				memset(buf + i, 0, run);
			}
		}
		i += run;
	}
}

/* Compare n bytes at pos with the expected content; report the first bad one. */
static bool nk_compare(struct nk_env *env, struct nk_inode *ni, const char *what,
		       loff_t pos, const u8 *data, size_t n, u8 *scratch)
{
	size_t i, chunk;

	for (i = 0; i < n; i += chunk) {
		size_t j;

		chunk = min_t(size_t, n - i, PAGE_SIZE);
		nk_expected(ni, pos + i, scratch, chunk);
		if (!memcmp(data + i, scratch, chunk))
			continue;
		for (j = 0; j < chunk; j++)
			if (data[i + j] != scratch[j])
				break;
		nk_check(env, false, "%s: byte %lld is %#x, expected %#x",
			 what, pos + i + j, data[i + j], scratch[j]);
		return false;
	}
	return true;
}

/* ---- call records ---- */

static struct nk_env *nk_env_of(struct inode *inode)
{
	return NK_I(inode)->env;
}

static unsigned int nk_record(struct nk_env *env, enum nk_call_op op,
			      unsigned int rreq, loff_t start, size_t len,
			      size_t done, int read_hole)
{
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&env->lock, flags);
	switch (op) {
	case NK_CALL_ISSUE:
		n = ++env->nr_issue;
		break;
	case NK_CALL_CACHE_READ:
		n = ++env->nr_cread;
		break;
	default:
		n = ++env->nr_cwrite;
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
	if (n > NK_CALL_LIMIT)
		env->overflow = true;
	spin_unlock_irqrestore(&env->lock, flags);
	return n;
}

static const struct nk_fault *nk_find_fault(const struct nk_fault *faults,
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
	struct netfs_io_subrequest *subreq;
	loff_t pos;
	ssize_t result;
	netfs_io_terminated_t term;
	void *term_priv;
};

static void nk_io_work(struct work_struct *work)
{
	struct nk_io *io = container_of(to_delayed_work(work), struct nk_io, dwork);
	struct nk_env *env = io->env;

	io->complete(io, false);
	kfree(io);
	atomic_dec(&env->inflight);
}

static void nk_io_timer(struct timer_list *t)
{
	struct nk_io *io = from_timer(io, t, timer);
	struct nk_env *env = io->env;

	io->complete(io, true);
	kfree(io);
	atomic_dec(&env->inflight);
}

/*
 * Complete io in the scenario's context.  The n-th call is delayed by a
 * different number of jiffies than its neighbours so that asynchronous
 * completions arrive out of order.
 */
static void nk_dispatch(struct nk_env *env, struct nk_io *io, unsigned int n)
{
	unsigned long delay = (3 - n % 3) % 3;

	io->env = env;
	switch (env->ctx) {
	case NK_CTX_INLINE:
		io->complete(io, false);
		kfree(io);
		break;
	case NK_CTX_WORKQUEUE:
		atomic_inc(&env->inflight);
		INIT_DELAYED_WORK(&io->dwork, nk_io_work);
		queue_delayed_work(env->wq, &io->dwork, delay);
		break;
	default:
		atomic_inc(&env->inflight);
		timer_setup(&io->timer, nk_io_timer, 0);
		mod_timer(&io->timer, jiffies + 1 + delay);
		break;
	}
}

/* ---- the fake server: netfs_request_ops ---- */

static int nk_init_request(struct netfs_io_request *rreq, struct file *file)
{
	struct nk_env *env = nk_env_of(rreq->inode);
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
	atomic_inc(&env->nr_init);
	return 0;
}

static void nk_free_request(struct netfs_io_request *rreq)
{
	struct nk_env *env = nk_env_of(rreq->inode);
	struct nk_rreq *r = rreq->netfs_priv;

	r->start = rreq->start;
	r->end = rreq->start + rreq->len;
	r->cache_began = !!rreq->cache_resources.ops;
	atomic_inc(&r->nr_free);
	atomic_inc(&env->nr_free);
}

static const struct netfs_cache_ops nk_cache_ops;

static int nk_begin_cache_operation(struct netfs_io_request *rreq)
{
	struct nk_env *env = nk_env_of(rreq->inode);
	const struct nk_cache *cs = &env->sc->cache;

	if (cs->begin_error)
		return cs->begin_error;
	if (!cs->on)
		return 0;
	rreq->cache_resources.ops = &nk_cache_ops;
	rreq->cache_resources.cache_priv = NK_I(rreq->inode);
	atomic_inc(&env->nr_began);
	return 0;
}

static void nk_expand(loff_t *start, size_t *len, size_t block,
		      unsigned int how)
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
	struct nk_env *env = nk_env_of(rreq->inode);

	nk_expand(&rreq->start, &rreq->len, env->sc->server.expand,
		  env->sc->server.expand_how);
}

static bool nk_clamp_length(struct netfs_io_subrequest *subreq)
{
	struct nk_env *env = nk_env_of(subreq->rreq->inode);

	if (env->sc->server.rsize)
		subreq->len = min(subreq->len, env->sc->server.rsize);
	return true;
}

/* Copy the pattern into the page cache: the server's reply arriving. */
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
			size_t run = min_t(size_t, io->result - done, NK_TILE_EXTRA);

			if (copy_to_iter(nk_pattern(ni->id, io->pos + done), run,
					 &iter) != run)
				break;
			done += run;
		}
		if (done < io->result) {
			atomic_inc(&ni->env->violations);
			io->result = -EFAULT;
		}
	}
	netfs_subreq_terminated(subreq, io->result, was_async);
}

static void nk_issue_read(struct netfs_io_subrequest *subreq)
{
	struct netfs_io_request *rreq = subreq->rreq;
	struct nk_inode *ni = NK_I(rreq->inode);
	struct nk_env *env = ni->env;
	const struct nk_server *ss = &env->sc->server;
	struct nk_rreq *r = rreq->netfs_priv;
	const struct nk_fault *f;
	loff_t pos = subreq->start + subreq->transferred;
	size_t avail = subreq->len - subreq->transferred;
	ssize_t n;
	struct nk_io *io;
	unsigned int call;

	call = nk_record(env, NK_CALL_ISSUE, rreq->debug_id, subreq->start,
			 subreq->len, subreq->transferred, 0);
	if (atomic_read(&r->nr_done) || atomic_read(&r->nr_free))
		atomic_inc(&env->violations);

	if (ss->resize_at && call == ss->resize_at) {
		ni->content = ss->resize_to;
		i_size_write(rreq->inode, ss->resize_to);
		netfs_resize_file(&ni->netfs, ss->resize_to);
	}

	n = pos < ni->content ? min_t(loff_t, avail, ni->content - pos) : 0;
	if (ss->step)
		n = min_t(size_t, n, ss->step);
	f = nk_find_fault(ss->faults, call);
	if (f) {
		switch (f->kind) {
		case NK_FAULT_ERROR:
			n = f->value;
			break;
		case NK_FAULT_SHORT:
			n = min_t(ssize_t, n, f->value);
			break;
		case NK_FAULT_ZERO:
			n = 0;
			break;
		case NK_FAULT_CLEAR_TAIL:
			n = min_t(ssize_t, n, f->value);
			set_bit(NETFS_SREQ_CLEAR_TAIL, &subreq->flags);
			break;
		default:
			break;
		}
	}
	if (ss->clear_tail && n >= 0 && n < avail && pos + n >= ni->content)
		set_bit(NETFS_SREQ_CLEAR_TAIL, &subreq->flags);
	if (call > NK_CALL_LIMIT)
		n = -EIO;	/* a retry loop that does not end */

	io = kzalloc(sizeof(*io), GFP_NOFS);
	if (!io) {
		netfs_subreq_terminated(subreq, -ENOMEM, false);
		return;
	}
	io->complete = nk_server_complete;
	io->subreq = subreq;
	io->pos = pos;
	io->result = n;
	nk_dispatch(env, io, call);
}

static bool nk_is_still_valid(struct netfs_io_request *rreq)
{
	return !NK_I(rreq->inode)->stale;
}

static int nk_check_write_begin(struct file *file, loff_t pos, unsigned int len,
				struct folio **foliop, void **fsdata)
{
	struct nk_env *env = nk_env_of(file_inode(file));
	unsigned int n = atomic_inc_return(&env->nr_cwb);

	if (n <= env->sc->server.cwb_regrab) {
		folio_unlock(*foliop);
		folio_put(*foliop);
		*foliop = NULL;
		return 0;
	}
	return env->sc->server.cwb_error;
}

static void nk_done(struct netfs_io_request *rreq)
{
	struct nk_rreq *r = rreq->netfs_priv;

	atomic_inc(&r->nr_done);
}

static const struct netfs_request_ops nk_netfs_ops = {
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
static const struct netfs_request_ops nk_netfs_ops_nocache = {
	.init_request		= nk_init_request,
	.free_request		= nk_free_request,
	.expand_readahead	= nk_expand_readahead,
	.clamp_length		= nk_clamp_length,
	.issue_read		= nk_issue_read,
	.check_write_begin	= nk_check_write_begin,
	.done			= nk_done,
};

/* ---- the fake cache: netfs_cache_ops ---- */

static bool nk_held(struct nk_inode *ni, loff_t pos)
{
	return xa_load(&ni->store, pos >> PAGE_SHIFT);
}

static void nk_end_operation(struct netfs_cache_resources *cres)
{
	struct nk_inode *ni = cres->cache_priv;

	atomic_inc(&ni->env->nr_ended);
}

static void nk_cache_complete(struct nk_io *io, bool was_async)
{
	io->term(io->term_priv, io->result, was_async);
}

static int nk_cache_read(struct netfs_cache_resources *cres, loff_t start_pos,
			 struct iov_iter *iter,
			 enum netfs_read_from_hole read_hole,
			 netfs_io_terminated_t term_func, void *term_func_priv)
{
	struct nk_inode *ni = cres->cache_priv;
	struct nk_env *env = ni->env;
	const struct nk_fault *f;
	size_t count = iov_iter_count(iter), done = 0;
	struct nk_io *io;
	unsigned int call;
	ssize_t result;

	call = nk_record(env, NK_CALL_CACHE_READ, 0, start_pos, count, 0,
			 read_hole);
	f = nk_find_fault(env->sc->cache.faults, call);
	if (f && f->kind == NK_FAULT_SHORT)
		count = min_t(size_t, count, f->value);
	if (f && f->kind == NK_FAULT_ZERO)
		count = 0;

	/* The cache reads file position start_pos into the start of iter. */
	while (done < count) {
		loff_t pos = start_pos + done;
		size_t off = offset_in_page(pos);
		size_t run = min_t(size_t, count - done, PAGE_SIZE - off);
		u8 *page = xa_load(&ni->store, pos >> PAGE_SHIFT);

		if (page) {
			if (copy_to_iter(page + off, run, iter) != run)
				break;
		} else if (read_hole == NETFS_READ_HOLE_CLEAR) {
			if (iov_iter_zero(run, iter) != run)
				break;
		} else {
			break;	/* a hole where the cache said it had data */
		}
		done += run;
	}
	result = done < count ? -ENODATA : done;
	if (f && f->kind == NK_FAULT_ERROR)
		result = f->value;

	io = kzalloc(sizeof(*io), GFP_NOFS);
	if (!io) {
		term_func(term_func_priv, -ENOMEM, false);
		return -ENOMEM;
	}
	io->complete = nk_cache_complete;
	io->result = result;
	io->term = term_func;
	io->term_priv = term_func_priv;
	nk_dispatch(env, io, call);
	return 0;
}

/* Folios being copied to the cache must carry PG_fscache until it ends. */
static void nk_check_fscache_marks(struct nk_inode *ni, loff_t start, size_t len)
{
	struct address_space *mapping = ni->netfs.inode.i_mapping;
	pgoff_t index = start >> PAGE_SHIFT;
	pgoff_t last = (start + len - 1) >> PAGE_SHIFT;

	while (len && index <= last) {
		struct folio *folio = filemap_get_folio(mapping, index);

		if (!folio) {
			index++;
			continue;
		}
		if (!folio_test_fscache(folio))
			atomic_inc(&ni->env->unmarked);
		index = folio_next_index(folio);
		folio_put(folio);
	}
}

static int nk_cache_write(struct netfs_cache_resources *cres, loff_t start_pos,
			  struct iov_iter *iter, netfs_io_terminated_t term_func,
			  void *term_func_priv)
{
	struct nk_inode *ni = cres->cache_priv;
	struct nk_env *env = ni->env;
	size_t count = iov_iter_count(iter), done = 0;
	struct nk_io *io;
	unsigned int call;
	ssize_t result;

	call = nk_record(env, NK_CALL_CACHE_WRITE, 0, start_pos, count, 0, 0);
	nk_check_fscache_marks(ni, start_pos, count);
	while (done < count) {
		loff_t pos = start_pos + done;
		size_t off = offset_in_page(pos);
		size_t run = min_t(size_t, count - done, PAGE_SIZE - off);
		u8 *page = xa_load(&ni->store, pos >> PAGE_SHIFT);

		if (!page) {
			page = kzalloc(PAGE_SIZE, GFP_NOFS);
			if (!page ||
			    xa_err(xa_store(&ni->store, pos >> PAGE_SHIFT, page,
					    GFP_NOFS))) {
				kfree(page);
				break;
			}
		}
		if (copy_from_iter(page + off, run, iter) != run)
			break;
		done += run;
	}
	result = done < count ? -ENOBUFS : done;

	io = kzalloc(sizeof(*io), GFP_NOFS);
	if (!io) {
		term_func(term_func_priv, -ENOMEM, false);
		return -ENOMEM;
	}
	io->complete = nk_cache_complete;
	io->result = result;
	io->term = term_func;
	io->term_priv = term_func_priv;
	nk_dispatch(env, io, call);
	return 0;
}

static void nk_cache_expand_readahead(struct netfs_cache_resources *cres,
				      loff_t *start, size_t *len, loff_t i_size)
{
	struct nk_inode *ni = cres->cache_priv;
	const struct nk_cache *cs = &ni->env->sc->cache;

	nk_expand(start, len, cs->granule, cs->expand_how);
}

static enum netfs_io_source nk_prepare_read(struct netfs_io_subrequest *subreq,
					    loff_t i_size)
{
	struct nk_inode *ni = subreq->rreq->cache_resources.cache_priv;
	const struct nk_cache *cs = &ni->env->sc->cache;
	loff_t start = subreq->start, end = start + subreq->len, p;
	bool held = nk_held(ni, start);

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

static int nk_prepare_write(struct netfs_cache_resources *cres, loff_t *start,
			    size_t *len, loff_t i_size, bool no_space_allocated_yet)
{
	loff_t s = round_down(*start, PAGE_SIZE);
	loff_t e = round_up(*start + *len, PAGE_SIZE);

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
	return -ENODATA;
}

static const struct netfs_cache_ops nk_cache_ops = {
	.end_operation		= nk_end_operation,
	.read			= nk_cache_read,
	.write			= nk_cache_write,
	.expand_readahead	= nk_cache_expand_readahead,
	.prepare_read		= nk_prepare_read,
	.prepare_write		= nk_prepare_write,
	.query_occupancy	= nk_query_occupancy,
};

/* Fill the fake cache with [start, start + len) of the file (or junk). */
static int nk_cache_fill(struct nk_inode *ni, loff_t start, loff_t len, bool junk)
{
	loff_t p;

	for (p = round_down(start, PAGE_SIZE); p < start + len; p += PAGE_SIZE) {
		u8 *page = kzalloc(PAGE_SIZE, GFP_KERNEL);

		if (!page)
			return -ENOMEM;
		if (junk)
			memcpy(page, nk_pattern(NK_ALT_ID + 1, p), PAGE_SIZE);
		else
			nk_expected(ni, p, page, PAGE_SIZE);
		kfree(xa_store(&ni->store, p >> PAGE_SHIFT, page, GFP_KERNEL));
	}
	return 0;
}

/* ---- the test filesystem ---- */

static struct inode *nk_alloc_inode(struct super_block *sb)
{
	struct nk_inode *ni = kzalloc(sizeof(*ni), GFP_KERNEL);

	if (!ni)
		return NULL;
	inode_init_once(&ni->netfs.inode);
	xa_init(&ni->store);
	return &ni->netfs.inode;
}

static void nk_free_inode(struct inode *inode)
{
	kfree(NK_I(inode));
}

static void nk_evict_inode(struct inode *inode)
{
	struct nk_inode *ni = NK_I(inode);
	unsigned long index;
	void *page;

	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	xa_for_each(&ni->store, index, page)
		kfree(page);
	xa_destroy(&ni->store);
}

static const struct super_operations nk_sops = {
	.alloc_inode	= nk_alloc_inode,
	.free_inode	= nk_free_inode,
	.evict_inode	= nk_evict_inode,
	.statfs		= simple_statfs,
};

static int nk_fill_super(struct super_block *sb, void *data, int silent)
{
	struct inode *root;
	int ret;

	sb->s_maxbytes = MAX_LFS_FILESIZE;
	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	sb->s_magic = NK_MAGIC;
	sb->s_op = &nk_sops;
	sb->s_time_gran = 1;
	/* A real bdi: with init_pseudo()'s no-op bdi there is no readahead. */
	ret = super_setup_bdi(sb);
	if (ret)
		return ret;
	root = new_inode(sb);
	if (!root)
		return -ENOMEM;
	root->i_ino = 1;
	root->i_mode = S_IFDIR | 0755;
	root->i_op = &simple_dir_inode_operations;
	root->i_fop = &simple_dir_operations;
	set_nlink(root, 2);
	sb->s_root = d_make_root(root);
	return sb->s_root ? 0 : -ENOMEM;
}

static struct dentry *nk_mount(struct file_system_type *fs_type, int flags,
			       const char *dev_name, void *data)
{
	return mount_nodev(fs_type, flags, data, nk_fill_super);
}

static struct file_system_type nk_fs_type = {
	.owner		= THIS_MODULE,
	.name		= "netfs_kunit",
	.mount		= nk_mount,
	.kill_sb	= kill_anon_super,
};

static int nk_write_begin(struct file *file, struct address_space *mapping,
			  loff_t pos, unsigned int len, struct page **pagep,
			  void **fsdata)
{
	struct folio *folio;
	int ret;

	ret = netfs_write_begin(netfs_inode(mapping->host), file, mapping, pos,
				len, &folio, fsdata);
	if (ret < 0)
		return ret;
	*pagep = folio_file_page(folio, pos >> PAGE_SHIFT);
	return 0;
}

static int nk_write_end(struct file *file, struct address_space *mapping,
			loff_t pos, unsigned int len, unsigned int copied,
			struct page *page, void *fsdata)
{
	struct folio *folio = page_folio(page);
	struct inode *inode = mapping->host;

	if (!folio_test_uptodate(folio)) {
		if (copied < len) {
			copied = 0;
			goto out;
		}
		folio_mark_uptodate(folio);
	}
	if (pos + copied > i_size_read(inode))
		i_size_write(inode, pos + copied);
out:
	folio_unlock(folio);
	folio_put(folio);
	return copied;
}

static void nk_invalidate_folio(struct folio *folio, size_t offset, size_t len)
{
	folio_wait_fscache(folio);
}

static bool nk_release_folio(struct folio *folio, gfp_t gfp)
{
	if (folio_test_fscache(folio)) {
		if (!gfpflags_allow_blocking(gfp) || !(gfp & __GFP_FS))
			return false;
		folio_wait_fscache(folio);
	}
	return true;
}

static const struct address_space_operations nk_aops = {
	.read_folio		= netfs_read_folio,
	.readahead		= netfs_readahead,
	.write_begin		= nk_write_begin,
	.write_end		= nk_write_end,
	.dirty_folio		= noop_dirty_folio,
	.invalidate_folio	= nk_invalidate_folio,
	.release_folio		= nk_release_folio,
};

static const struct file_operations nk_fops = {
	.llseek		= generic_file_llseek,
	.read_iter	= generic_file_read_iter,
	.write_iter	= generic_file_write_iter,
};

/* ---- environment ---- */

/*
 * The helper's live request and subrequest counts, read the way a user
 * reads them: the rr= and sr= fields that netfs_stats_show() prints.  They
 * rise when a (sub)request is allocated and fall when it is freed, so a
 * scenario that freed everything leaves them where they were.  Without
 * CONFIG_NETFS_STATS, or if the fields are missing, there is nothing to
 * compare and the harness relies on its own records.
 */
static bool nk_netfs_stats(int *rreq, int *sreq)
{
	char buf[256];
	struct seq_file m = { .buf = buf, .size = sizeof(buf) };
	const char *rr, *sr;

	if (!IS_ENABLED(CONFIG_NETFS_STATS))
		return false;
	netfs_stats_show(&m);
	buf[min(m.count, sizeof(buf) - 1)] = '\0';
	rr = strstr(buf, " rr=");
	sr = strstr(buf, " sr=");
	return rr && sr && sscanf(rr, " rr=%d", rreq) == 1 &&
		sscanf(sr, " sr=%d", sreq) == 1;
}

/*
 * Folios just added to the page cache sit in per-CPU LRU batches, each of
 * which holds a reference, until that CPU drains them.  The reference count
 * check needs them drained on every CPU, and lru_add_drain_all() is not
 * exported: run a work item on each online CPU that releases a one-folio
 * batch, since releasing a batch drains the local CPU's LRU batches first.
 */
static void nk_drain_lru_fn(struct work_struct *work)
{
	struct folio_batch fbatch;

	folio_batch_init(&fbatch);
	folio_batch_add(&fbatch, folio_alloc(GFP_KERNEL | __GFP_NOFAIL, 0));
	folio_batch_release(&fbatch);
}

static void nk_drain_lru(void)
{
	struct work_struct *works;
	int cpu;

	works = kcalloc(nr_cpu_ids, sizeof(*works), GFP_KERNEL | __GFP_NOFAIL);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		INIT_WORK(&works[cpu], nk_drain_lru_fn);
		queue_work_on(cpu, system_wq, &works[cpu]);
	}
	for_each_online_cpu(cpu)
		flush_work(&works[cpu]);
	cpus_read_unlock();
	kfree(works);
}

static struct nk_env *nk_env_create(struct kunit *test,
				    const struct nk_scenario *sc,
				    enum nk_ctx ctx, enum nk_folios folios)
{
	struct nk_env *env = kzalloc(sizeof(*env), GFP_KERNEL);

	if (!env)
		return NULL;
	env->calls = kvcalloc(NK_MAX_CALLS, sizeof(*env->calls), GFP_KERNEL);
	env->wq = alloc_workqueue("netfs_kunit", WQ_UNBOUND, 0);
	env->mnt = kern_mount(&nk_fs_type);
	if (!env->calls || !env->wq || IS_ERR(env->mnt)) {
		KUNIT_FAIL(test, "cannot set up: mount %ld",
			   PTR_ERR_OR_ZERO(env->mnt));
		if (!IS_ERR(env->mnt))
			kern_unmount(env->mnt);
		if (env->wq)
			destroy_workqueue(env->wq);
		kvfree(env->calls);
		kfree(env);
		return NULL;
	}
	env->test = test;
	env->sc = sc;
	env->ctx = ctx;
	env->folios = folios;
	spin_lock_init(&env->lock);
	INIT_LIST_HEAD(&env->rreqs);
	env->have_stats = nk_netfs_stats(&env->stat_rreq, &env->stat_sreq);
	return env;
}

static struct file *nk_new_file(struct nk_env *env, loff_t size)
{
	struct inode *inode = new_inode(env->mnt->mnt_sb);
	struct nk_inode *ni;
	struct file *file;

	if (!inode || env->nr_files >= NK_MAX_FILES) {
		iput(inode);
		return ERR_PTR(-ENOMEM);
	}
	ni = NK_I(inode);
	ni->env = env;
	ni->id = ++env->next_id;
	ni->content = size;
	inode->i_ino = get_next_ino();
	inode->i_mode = S_IFREG | 0644;
	inode->i_flags |= S_NOATIME | S_NOCMTIME;
	inode->i_mapping->a_ops = &nk_aops;
	i_size_write(inode, size);
	netfs_inode_init(&ni->netfs, env->sc->cache.absent ?
			 &nk_netfs_ops_nocache : &nk_netfs_ops);
	if (env->folios == NK_FOLIOS_LARGE)
		mapping_set_large_folios(inode->i_mapping);

	file = alloc_file_pseudo(inode, env->mnt, "netfs_kunit",
				 O_RDWR | O_LARGEFILE, &nk_fops);
	if (IS_ERR(file)) {
		iput(inode);
		return file;
	}
	/* alloc_file_pseudo() leaves ra_pages at 0: one-page readahead */
	file_ra_state_init(&file->f_ra, inode->i_mapping);
	env->files[env->nr_files++] = file;
	return file;
}

/*
 * Wait until every request was freed and every fake I/O completed, for as
 * long as something still changes.
 */
static bool nk_quiesce(struct nk_env *env)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(NK_QUIESCE_MS);
	int last[7] = { -1 };
	int now[7];

	for (;;) {
		bool idle;

		now[0] = atomic_read(&env->inflight);
		now[1] = atomic_read(&env->nr_free);
		now[2] = atomic_read(&env->nr_init);
		now[3] = atomic_read(&env->nr_ended);
		now[4] = atomic_read(&env->nr_began);
		now[5] = env->stat_rreq;
		now[6] = env->stat_sreq;
		if (env->have_stats)
			nk_netfs_stats(&now[5], &now[6]);
		idle = !now[0] && now[1] == now[2] && now[3] == now[4] &&
			now[5] == env->stat_rreq && now[6] == env->stat_sreq;
		if (idle)
			return true;
		if (memcmp(now, last, sizeof(now))) {
			memcpy(last, now, sizeof(now));
			deadline = jiffies + msecs_to_jiffies(NK_QUIESCE_MS);
		} else if (time_after(jiffies, deadline)) {
			break;
		}
		usleep_range(1000, 2000);
	}
	KUNIT_FAIL(env->test,
		   "not quiescent: no progress for %d ms: %d I/Os in flight, %d/%d requests freed, %d/%d cache operations ended, netfs stats rr=%d (was %d) sr=%d (was %d)",
		   NK_QUIESCE_MS, now[0], now[1], now[2], now[3], now[4],
		   now[5], env->stat_rreq, now[6], env->stat_sreq);
	return false;
}

/* Forget the calls and requests seen so far (between two runs). */
static void nk_reset_records(struct nk_env *env)
{
	struct nk_rreq *r, *tmp;

	list_for_each_entry_safe(r, tmp, &env->rreqs, link) {
		list_del(&r->link);
		kfree(r);
	}
	env->nr_calls = 0;
	env->nr_issue = 0;
	env->nr_cread = 0;
	env->nr_cwrite = 0;
	atomic_set(&env->nr_init, 0);
	atomic_set(&env->nr_free, 0);
	atomic_set(&env->nr_began, 0);
	atomic_set(&env->nr_ended, 0);
	atomic_set(&env->nr_cwb, 0);
}

static void nk_env_destroy(struct nk_env *env)
{
	struct kunit *test = env->test;
	unsigned int i;

	if (env->broken || !nk_quiesce(env)) {
		/* Tearing down could hang or free what is still in use. */
		KUNIT_FAIL(test, "leaving the test filesystem mounted");
		return;
	}
	for (i = 0; i < env->nr_files; i++)
		__fput_sync(env->files[i]);
	kern_unmount(env->mnt);
	destroy_workqueue(env->wq);
	nk_reset_records(env);
	kvfree(env->calls);
	kfree(env);
}

/* ---- checks ---- */

static void nk_check_bookkeeping(struct nk_env *env)
{
	struct nk_rreq *r;

	nk_check(env, atomic_read(&env->nr_free) == atomic_read(&env->nr_init),
		 "free_request ran %d times for %d requests",
		 atomic_read(&env->nr_free), atomic_read(&env->nr_init));
	nk_check(env, atomic_read(&env->nr_ended) == atomic_read(&env->nr_began),
		 "end_operation ran %d times for %d cache operations",
		 atomic_read(&env->nr_ended), atomic_read(&env->nr_began));
	list_for_each_entry(r, &env->rreqs, link) {
		nk_check(env, atomic_read(&r->nr_free) == 1,
			 "R=%x: free_request ran %d times", r->debug_id,
			 atomic_read(&r->nr_free));
		nk_check(env, atomic_read(&r->nr_done) <= 1,
			 "R=%x: done ran %d times", r->debug_id,
			 atomic_read(&r->nr_done));
	}
	nk_check(env, !atomic_read(&env->violations),
		 "%d calls into the fakes after their request ended or with a bad buffer",
		 atomic_read(&env->violations));
	nk_check(env, !atomic_read(&env->unmarked),
		 "%d folios written to the cache without PG_fscache",
		 atomic_read(&env->unmarked));
	nk_check(env, !env->overflow,
		 "more than %d calls: a retry loop does not end", NK_CALL_LIMIT);
}

static bool nk_in_range(const struct nk_range *r, loff_t start, loff_t end)
{
	return r->len && start < r->start + r->len && end > r->start;
}

/*
 * Walk the whole page cache of a file: no folio locked or marked PG_fscache,
 * uptodate unless it overlaps the expected bad range, content right when
 * uptodate.
 */
static void nk_check_page_cache(struct nk_env *env, struct file *file, u8 *scratch)
{
	struct address_space *mapping = file->f_mapping;
	struct nk_inode *ni = NK_I(file_inode(file));
	const struct nk_range *bad = &env->sc->expect.bad;
	struct folio_batch fbatch;
	pgoff_t index = 0;
	unsigned int i, reported = 0;

	nk_drain_lru();
	folio_batch_init(&fbatch);
	while (filemap_get_folios(mapping, &index, ULONG_MAX, &fbatch)) {
		for (i = 0; i < folio_batch_count(&fbatch); i++) {
			struct folio *folio = fbatch.folios[i];
			loff_t start = folio_pos(folio);
			loff_t end = start + folio_size(folio);
			bool want = !nk_in_range(bad, start, end);
			size_t off;

			if (reported > 4)
				break;
			if (folio_test_locked(folio) || folio_test_fscache(folio)) {
				nk_check(env, false, "folio %lld+%zu still %s",
					 start, folio_size(folio),
					 folio_test_locked(folio) ? "locked" : "PG_fscache");
				if (folio_test_locked(folio))
					env->broken = true;
				reported++;
				continue;
			}
			/* the page cache's references and our batch's */
			if (folio_ref_count(folio) != folio_nr_pages(folio) + 1) {
				nk_check(env, false,
					 "folio %lld+%zu has %d references, expected %ld",
					 start, folio_size(folio), folio_ref_count(folio),
					 folio_nr_pages(folio) + 1);
				reported++;
			}
			if (folio_test_uptodate(folio) != want) {
				nk_check(env, false, "folio %lld+%zu is %suptodate",
					 start, folio_size(folio), want ? "not " : "");
				reported++;
			}
			if (!folio_test_uptodate(folio))
				continue;
			for (off = 0; off < folio_size(folio); off += PAGE_SIZE) {
				u8 *addr = kmap_local_folio(folio, off);
				bool ok = nk_compare(env, ni, "page cache", start + off,
						     addr, PAGE_SIZE, scratch);

				kunmap_local(addr);
				if (!ok) {
					reported++;
					break;
				}
			}
		}
		folio_batch_release(&fbatch);
		cond_resched();
	}
}

/* What the fake cache holds must be the file's content. */
static void nk_check_cache_store(struct nk_env *env, struct file *file, u8 *scratch)
{
	struct nk_inode *ni = NK_I(file_inode(file));
	const struct nk_range *cached = &env->sc->expect.cached;
	unsigned long index;
	loff_t p;
	u8 *page;

	if (ni->stale)
		return;
	xa_for_each(&ni->store, index, page)
		if (!nk_compare(env, ni, "cache", (loff_t)index << PAGE_SHIFT,
				page, PAGE_SIZE, scratch))
			break;
	for (p = cached->start; p < cached->start + cached->len; p += PAGE_SIZE)
		nk_check(env, nk_held(ni, p), "cache does not hold %lld", p);
}

static void nk_check_calls(struct nk_env *env)
{
	const struct nk_expect *ex = &env->sc->expect;
	unsigned int i, n;

	if (ex->server_calls)
		nk_check(env, env->nr_issue == max(ex->server_calls, 0),
			 "%u issue_read calls, expected %d", env->nr_issue,
			 max(ex->server_calls, 0));
	if (ex->cache_reads)
		nk_check(env, env->nr_cread == max(ex->cache_reads, 0),
			 "%u cache reads, expected %d", env->nr_cread,
			 max(ex->cache_reads, 0));
	if (ex->cache_writes)
		nk_check(env, env->nr_cwrite == max(ex->cache_writes, 0),
			 "%u cache writes, expected %d", env->nr_cwrite,
			 max(ex->cache_writes, 0));

	for (i = 0, n = 0; i < env->nr_calls && n < NK_MAX_EXP && ex->calls[n].len; i++) {
		const struct nk_call *c = &env->calls[i];
		const struct nk_call_exp *e = &ex->calls[n];

		if (c->op != NK_CALL_ISSUE)
			continue;
		nk_check(env, c->start == e->start && c->len == e->len &&
			 c->done == e->done,
			 "issue_read call %u: {%lld, %zu, done %zu}, expected {%lld, %zu, done %zu}",
			 n + 1, c->start, c->len, c->done, e->start, e->len, e->done);
		n++;
	}
	if (n < NK_MAX_EXP && ex->calls[n].len)
		nk_check(env, false, "only %u issue_read calls, expected call %u at %lld",
			 n, n + 1, ex->calls[n].start);

	for (i = 0, n = 0; i < env->nr_calls && n < NK_MAX_EXP && ex->writes[n].len; i++) {
		const struct nk_call *c = &env->calls[i];
		const struct nk_range *e = &ex->writes[n];

		if (c->op != NK_CALL_CACHE_WRITE)
			continue;
		nk_check(env, c->start == e->start && c->len == e->len,
			 "cache write %u: {%lld, %zu}, expected {%lld, %lld}",
			 n + 1, c->start, c->len, e->start, e->len);
		n++;
	}
	if (n < NK_MAX_EXP && ex->writes[n].len)
		nk_check(env, false, "only %u cache writes, expected one at %lld",
			 n, ex->writes[n].start);
}

/*
 * For every request: the downloads it issued (first issue of each
 * subrequest) never go beyond the i_size it started with, and, with
 * ex->slices, are exactly its rsize slicing.
 */
static void nk_check_requests(struct nk_env *env)
{
	const struct nk_expect *ex = &env->sc->expect;
	size_t rsize = env->sc->server.rsize;
	unsigned int nr_req = 0;
	bool readpage = false;
	struct nk_rreq *r;
	unsigned int i;

	list_for_each_entry(r, &env->rreqs, link) {
		loff_t next = r->start;
		loff_t end = min(r->end, r->i_size);

		nr_req++;
		readpage |= r->origin == NETFS_READPAGE;
		for (i = 0; i < env->nr_calls; i++) {
			const struct nk_call *c = &env->calls[i];

			if (c->op != NK_CALL_ISSUE || c->rreq != r->debug_id)
				continue;
			nk_check(env, c->start + c->len <= r->i_size,
				 "R=%x: download {%lld, %zu} beyond i_size %lld",
				 r->debug_id, c->start, c->len, r->i_size);
			if (!ex->slices || c->done)
				continue;
			nk_check(env, c->start == next &&
				 c->len == min_t(loff_t, rsize ?: LLONG_MAX, end - next),
				 "R=%x: download {%lld, %zu}, expected slice at %lld of [%lld, %lld)",
				 r->debug_id, c->start, c->len, next, r->start, end);
			next = c->start + c->len;
		}
		if (ex->slices)
			nk_check(env, next >= end,
				 "R=%x: downloads stop at %lld, request [%lld, %lld)",
				 r->debug_id, next, r->start, end);
	}
	if (ex->request.len) {
		r = list_first_entry_or_null(&env->rreqs, struct nk_rreq, link);
		nk_check(env, nr_req == 1 && r->start == ex->request.start &&
			 r->end == ex->request.start + ex->request.len,
			 "%u requests, first [%lld, %lld), expected one [%lld, %lld)",
			 nr_req, r ? r->start : -1, r ? r->end : -1,
			 ex->request.start, ex->request.start + ex->request.len);
	}
	if (ex->readpage)
		nk_check(env, readpage, "no read_folio request was made");
}

/* read_folio: exactly one request, for exactly that folio, no expansion. */
static void nk_check_folio_request(struct nk_env *env)
{
	const struct nk_range *f = &env->folio_range;
	struct nk_rreq *r;
	unsigned int nr = 0;

	list_for_each_entry(r, &env->rreqs, link) {
		nr++;
		nk_check(env, r->origin == NETFS_READPAGE && r->start == f->start &&
			 r->end == f->start + f->len,
			 "R=%x: origin %d [%lld, %lld), expected read_folio [%lld, %lld)",
			 r->debug_id, r->origin, r->start, r->end, f->start,
			 f->start + f->len);
	}
	nk_check(env, nr == 1, "read_folio made %u requests", nr);
}

/* ---- operations ---- */

/* Build a readahead window of locked folios and hand it to ->readahead. */
static int nk_readahead_window(struct nk_env *env, struct file *file,
			       loff_t pos, size_t len)
{
	struct address_space *mapping = file->f_mapping;
	unsigned int order = env->folios == NK_FOLIOS_LARGE ? 2 : 0;
	pgoff_t index = pos >> PAGE_SHIFT;
	pgoff_t end = DIV_ROUND_UP(pos + len, PAGE_SIZE);
	gfp_t gfp = readahead_gfp_mask(mapping);
	unsigned int nofs, leftover = 0;
	struct folio *folio;
	pgoff_t i;
	int ret = 0;

	DEFINE_READAHEAD(ractl, file, &file->f_ra, mapping, index);

	nofs = memalloc_nofs_save();
	filemap_invalidate_lock_shared(mapping);
	for (i = index; i < end; i += folio_nr_pages(folio)) {
		unsigned int o = order;

		while (o && ((i & ((1UL << o) - 1)) || i + (1UL << o) > end))
			o--;
		folio = filemap_alloc_folio(gfp, o);
		if (!folio) {
			ret = -ENOMEM;
			break;
		}
		ret = filemap_add_folio(mapping, folio, i, gfp);
		if (ret < 0) {
			folio_put(folio);
			/* a concurrent reader got there first: stop the window */
			if (ret == -EEXIST)
				ret = 0;
			break;
		}
		ractl._nr_pages += folio_nr_pages(folio);
	}
	if (readahead_count(&ractl))
		mapping->a_ops->readahead(&ractl);
	/* What the helper did not take is dropped the way read_pages() does. */
	while ((folio = readahead_folio(&ractl))) {
		leftover++;
		/* still locked, as read_pages() removes it */
		folio_get(folio);
		generic_error_remove_page(mapping, &folio->page);
		folio_unlock(folio);
		folio_put(folio);
	}
	filemap_invalidate_unlock_shared(mapping);
	memalloc_nofs_restore(nofs);
	env->leftover += leftover;
	return ret;
}

/* Make a locked folio at pos (large if allowed) and call ->read_folio. */
static int nk_read_folio(struct nk_env *env, struct file *file, loff_t pos)
{
	struct address_space *mapping = file->f_mapping;
	unsigned int order = env->folios == NK_FOLIOS_LARGE ? 2 : 0;
	pgoff_t index = round_down(pos >> PAGE_SHIFT, 1UL << order);
	struct folio *folio;
	int ret;

	folio = filemap_alloc_folio(mapping_gfp_mask(mapping), order);
	if (!folio)
		return -ENOMEM;
	ret = filemap_add_folio(mapping, folio, index, mapping_gfp_mask(mapping));
	if (ret < 0) {
		folio_put(folio);
		return ret;
	}
	env->folio_range.start = folio_pos(folio);
	env->folio_range.len = folio_size(folio);
	ret = mapping->a_ops->read_folio(file, folio);
	nk_check(env, !folio_test_locked(folio),
		 "read_folio returned %d with the folio still locked", ret);
	if (folio_test_locked(folio))
		env->broken = true;
	folio_put(folio);
	return ret;
}

static long nk_do_op(struct nk_env *env, struct file *file, u8 **bufp)
{
	const struct nk_scenario *sc = env->sc;
	struct nk_inode *ni = NK_I(file_inode(file));
	loff_t pos = sc->pos;
	struct folio *folio;
	long ret;

	switch (sc->op) {
	case NK_OP_READ:
		*bufp = kvmalloc(max_t(size_t, sc->len, 1), GFP_KERNEL);
		if (!*bufp)
			return -ENOMEM;
		return kernel_read(file, *bufp, sc->len, &pos);
	case NK_OP_READAHEAD:
		return nk_readahead_window(env, file, sc->pos, sc->len);
	case NK_OP_READ_FOLIO:
		return nk_read_folio(env, file, sc->pos);
	case NK_OP_CACHE_FOLIO:
		folio = read_cache_folio(file->f_mapping, sc->pos >> PAGE_SHIFT,
					 NULL, file);
		if (IS_ERR(folio))
			return PTR_ERR(folio);
		folio_put(folio);
		return 0;
	case NK_OP_WRITE:
		*bufp = kvmalloc(max_t(size_t, sc->len, 1), GFP_KERNEL);
		if (!*bufp)
			return -ENOMEM;
		memcpy(*bufp, nk_pattern(NK_ALT_ID, sc->pos), sc->len);
		ret = kernel_write(file, *bufp, sc->len, &pos);
		if (ret > 0) {
			ni->overlay.start = sc->pos;
			ni->overlay.len = ret;
		}
		return ret;
	}
	return -EINVAL;
}

/* Run one scenario in one mode. */
static void nk_run(struct kunit *test, const struct nk_scenario *sc,
		   enum nk_ctx ctx, enum nk_folios folios)
{
	const struct nk_expect *ex = &sc->expect;
	struct nk_env *env;
	struct nk_inode *ni;
	struct file *file;
	u8 *buf = NULL, *scratch;
	long ret, want;
	int i;

	scratch = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, scratch);
	env = nk_env_create(test, sc, ctx, folios);
	KUNIT_ASSERT_NOT_NULL(test, env);
	file = nk_new_file(env, sc->size);
	if (IS_ERR(file)) {
		KUNIT_FAIL(test, "cannot make the file: %ld", PTR_ERR(file));
		nk_env_destroy(env);
		return;
	}
	ni = NK_I(file_inode(file));
	for (i = 0; i < NK_MAX_RANGES && sc->cache.held[i].len; i++)
		KUNIT_EXPECT_EQ(test, 0, nk_cache_fill(ni, sc->cache.held[i].start,
						       sc->cache.held[i].len,
						       sc->cache.stale));
	ni->stale = sc->cache.stale;
	if (sc->pre.len) {
		enum nk_folios saved = env->folios;

		env->folios = NK_FOLIOS_SMALL;
		nk_readahead_window(env, file, sc->pre.start, sc->pre.len);
		env->folios = saved;
		if (!nk_quiesce(env)) {
			env->broken = true;
			goto out;
		}
		nk_reset_records(env);
	}

	if (sc->twice) {
		ret = nk_do_op(env, file, &buf);
		kvfree(buf);
		buf = NULL;
		if (!nk_quiesce(env)) {
			env->broken = true;
			goto out;
		}
		truncate_inode_pages(file->f_mapping, 0);
		nk_reset_records(env);
	}

	ret = nk_do_op(env, file, &buf);

	if (ex->error)
		want = ex->error;
	else if (sc->op == NK_OP_READ)
		want = ex->result ?: clamp_t(loff_t, sc->size - sc->pos, 0, sc->len);
	else if (sc->op == NK_OP_WRITE)
		want = sc->len;
	else
		want = 0;
	nk_check(env, ret == want, "%s returned %ld, expected %ld",
		 sc->op == NK_OP_READ ? "kernel_read" :
		 sc->op == NK_OP_WRITE ? "kernel_write" : "the operation", ret, want);
	if (sc->op == NK_OP_READ && ret > 0)
		nk_compare(env, ni, "kernel_read buffer", sc->pos, buf, ret, scratch);
	kvfree(buf);

	if (!nk_quiesce(env)) {
		env->broken = true;
		goto out;
	}
	nk_check_bookkeeping(env);
	nk_check_page_cache(env, file, scratch);
	nk_check_cache_store(env, file, scratch);
	nk_check_calls(env);
	nk_check_requests(env);
	if (sc->op == NK_OP_READ_FOLIO && !ex->error && !sc->cache.on)
		nk_check_folio_request(env);
	if (sc->server.cwb_regrab || ex->cwb_calls)
		nk_check(env, atomic_read(&env->nr_cwb) == ex->cwb_calls,
			 "check_write_begin called %d times, expected %u",
			 atomic_read(&env->nr_cwb), ex->cwb_calls);
out:
	nk_env_destroy(env);
}

/* ---- table-less cases: bookkeeping and concurrency ---- */

static const struct nk_scenario nk_plain = {
	.name = "plain",
	.size = SZ_4M,
	.server = { .rsize = SZ_16K },
};

/* Common end of the table-less cases: quiesce, check, tear down. */
static void nk_finish(struct nk_env *env, u8 *scratch)
{
	unsigned int i;

	if (nk_quiesce(env)) {
		nk_check_bookkeeping(env);
		for (i = 0; i < env->nr_files; i++) {
			nk_check_page_cache(env, env->files[i], scratch);
			nk_check_cache_store(env, env->files[i], scratch);
		}
		nk_check_requests(env);
	} else {
		env->broken = true;
	}
	nk_env_destroy(env);
}

/**
 * nk_case_many_requests - 1000 one-page readahead requests
 * @test: the test case
 *
 * Every request is initialised and freed exactly once, makes exactly one
 * download, and nothing is left behind (the statistics balance).
 */
void nk_case_many_requests(struct kunit *test)
{
	u8 *scratch = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct nk_env *env;
	struct file *file;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, scratch);
	env = nk_env_create(test, &nk_plain, NK_CTX_INLINE, NK_FOLIOS_SMALL);
	KUNIT_ASSERT_NOT_NULL(test, env);
	file = nk_new_file(env, nk_plain.size);
	if (!IS_ERR(file)) {
		for (i = 0; i < 1000; i++)
			nk_readahead_window(env, file, (loff_t)i * PAGE_SIZE, PAGE_SIZE);
	} else {
		KUNIT_FAIL(test, "cannot make the file");
	}
	if (nk_quiesce(env)) {
		KUNIT_EXPECT_EQ(test, atomic_read(&env->nr_init), 1000);
		KUNIT_EXPECT_EQ(test, env->nr_issue, 1000U);
	}
	nk_finish(env, scratch);
}

struct nk_thread {
	struct completion done;
	struct nk_env *env;
	struct file *file;
	loff_t pos;
	size_t len;
	int what;		/* 0: kernel_read, 1: readahead, 2: read_cache_folio */
	long ret;
	u8 *buf;
};

static int nk_thread_fn(void *data)
{
	struct nk_thread *t = data;
	struct folio *folio;
	loff_t pos = t->pos;

	switch (t->what) {
	case 0:
		t->ret = kernel_read(t->file, t->buf, t->len, &pos);
		break;
	case 1:
		t->ret = nk_readahead_window(t->env, t->file, t->pos, t->len);
		break;
	default:
		folio = read_cache_folio(t->file->f_mapping, t->pos >> PAGE_SHIFT,
					 NULL, t->file);
		t->ret = PTR_ERR_OR_ZERO(folio);
		if (!IS_ERR(folio))
			folio_put(folio);
		break;
	}
	complete(&t->done);
	return 0;
}

/* Run the jobs in kernel threads at once and wait for all of them. */
static void nk_run_threads(struct kunit *test, struct nk_thread *t, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct task_struct *task;

		init_completion(&t[i].done);
		task = kthread_run(nk_thread_fn, &t[i], "netfs_kunit%d", i);
		if (IS_ERR(task)) {
			KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(task));
			nk_thread_fn(&t[i]);
		}
	}
	for (i = 0; i < n; i++)
		wait_for_completion(&t[i].done);
}

/*
 * Concurrency cases run with completions from a workqueue and large
 * folios, the combination with the most interleaving.
 */
static struct nk_env *nk_concurrent_env(struct kunit *test, int nr_files,
					struct file **files)
{
	struct nk_env *env;
	int i;

	env = nk_env_create(test, &nk_plain, NK_CTX_WORKQUEUE, NK_FOLIOS_LARGE);
	if (!env)
		return NULL;
	for (i = 0; i < nr_files; i++) {
		files[i] = nk_new_file(env, SZ_1M);
		if (IS_ERR(files[i])) {
			KUNIT_FAIL(test, "cannot make file %d", i);
			nk_env_destroy(env);
			return NULL;
		}
	}
	return env;
}

/**
 * nk_case_two_readers - two kernel_read()s of the same range at once
 * @test: the test case
 */
void nk_case_two_readers(struct kunit *test)
{
	u8 *scratch = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct nk_thread t[2] = {};
	struct nk_env *env;
	struct file *file;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, scratch);
	env = nk_concurrent_env(test, 1, &file);
	KUNIT_ASSERT_NOT_NULL(test, env);
	for (i = 0; i < 2; i++) {
		t[i].file = file;
		t[i].env = env;
		t[i].len = SZ_512K;
		t[i].buf = kunit_kzalloc(test, SZ_512K, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, t[i].buf);
	}
	nk_run_threads(test, t, 2);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, t[i].ret, (long)SZ_512K);
		nk_compare(env, NK_I(file_inode(file)), "reader", 0, t[i].buf,
			   SZ_512K, scratch);
	}
	nk_finish(env, scratch);
}

/**
 * nk_case_readahead_vs_read_folio - read_folio of a folio in a readahead window
 * @test: the test case
 *
 * One thread reads ahead 256 KiB while another reads one page in the middle
 * of that window through read_cache_folio(): both succeed, every folio ends
 * up uptodate with the right data, and each folio is read exactly once.
 */
void nk_case_readahead_vs_read_folio(struct kunit *test)
{
	u8 *scratch = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct nk_thread t[2] = {};
	struct nk_env *env;
	struct file *file;
	unsigned int i;
	loff_t covered = 0;

	KUNIT_ASSERT_NOT_NULL(test, scratch);
	env = nk_concurrent_env(test, 1, &file);
	KUNIT_ASSERT_NOT_NULL(test, env);
	t[0] = (struct nk_thread){ .env = env, .file = file, .len = SZ_256K, .what = 1 };
	t[1] = (struct nk_thread){ .env = env, .file = file, .pos = SZ_128K, .what = 2 };
	nk_run_threads(test, t, 2);
	KUNIT_EXPECT_EQ(test, t[0].ret, 0L);
	KUNIT_EXPECT_EQ(test, t[1].ret, 0L);
	if (nk_quiesce(env)) {
		for (i = 0; i < env->nr_calls; i++)
			covered += env->calls[i].len - env->calls[i].done;
		/* Nothing is downloaded twice: at most the window. */
		KUNIT_EXPECT_LE(test, covered, (loff_t)SZ_256K);
	}
	nk_finish(env, scratch);
}

/**
 * nk_case_many_inodes - concurrent reads of several files
 * @test: the test case
 */
void nk_case_many_inodes(struct kunit *test)
{
	u8 *scratch = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct file *files[4];
	struct nk_thread t[4] = {};
	struct nk_env *env;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, scratch);
	env = nk_concurrent_env(test, 4, files);
	KUNIT_ASSERT_NOT_NULL(test, env);
	for (i = 0; i < 4; i++) {
		t[i].file = files[i];
		t[i].env = env;
		t[i].len = SZ_256K;
		t[i].buf = kunit_kzalloc(test, SZ_256K, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, t[i].buf);
	}
	nk_run_threads(test, t, 4);
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, t[i].ret, (long)SZ_256K);
		nk_compare(env, NK_I(file_inode(files[i])), "reader", 0,
			   t[i].buf, SZ_256K, scratch);
	}
	nk_finish(env, scratch);
}

/* ---- parameters ---- */

static const char * const nk_ctx_names[] = { "inline", "workqueue", "softirq" };
static const char * const nk_folio_names[] = { "order0", "large" };

static bool nk_applies(const struct nk_scenario *sc, unsigned int folios,
		       unsigned int ctx)
{
	return (!sc->folios || (sc->folios & NK_ONLY(folios))) &&
		(!sc->ctxs || (sc->ctxs & NK_ONLY(ctx)));
}

/**
 * nk_gen_params - KUnit parameter generator over a scenario table
 * @table: the scenarios
 * @prev: the previous parameter (NULL for the first)
 * @desc: where to write the parameter's description
 *
 * A parameter encodes (scenario, folio size, completion context) as an
 * integer plus one, cast to a pointer.
 *
 * Return: the next parameter, or NULL after the last one.
 */
const void *nk_gen_params(const struct nk_table *table, const void *prev,
			  char *desc)
{
	unsigned long n = (unsigned long)prev;

	for (;; n++) {
		unsigned long ctx = n % NK_NR_CTX;
		unsigned long folios = (n / NK_NR_CTX) % NK_NR_FOLIOS;
		unsigned long idx = n / (NK_NR_CTX * NK_NR_FOLIOS);
		const struct nk_scenario *sc;

		if (idx >= table->count)
			return NULL;
		sc = &table->scenarios[idx];
		if (!nk_applies(sc, folios, ctx))
			continue;
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s/%s/%s", sc->name,
			 nk_folio_names[folios], nk_ctx_names[ctx]);
		return (const void *)(n + 1);
	}
}

/**
 * nk_run_param - run the scenario a parameter from nk_gen_params() names
 * @test: the test case
 * @table: the scenarios
 */
void nk_run_param(struct kunit *test, const struct nk_table *table)
{
	unsigned long n = (unsigned long)test->param_value - 1;

	nk_run(test, &table->scenarios[n / (NK_NR_CTX * NK_NR_FOLIOS)],
	       n % NK_NR_CTX, (n / NK_NR_CTX) % NK_NR_FOLIOS);
}

/**
 * nk_suite_init - register the test filesystem for a suite
 * @suite: the suite
 *
 * Return: 0 or the error from register_filesystem().
 */
int nk_suite_init(struct kunit_suite *suite)
{
	nk_init_tile();
	return register_filesystem(&nk_fs_type);
}

/**
 * nk_suite_exit - unregister the test filesystem after a suite
 * @suite: the suite
 */
void nk_suite_exit(struct kunit_suite *suite)
{
	unregister_filesystem(&nk_fs_type);
	rcu_barrier();	/* inodes are freed after a grace period */
}
