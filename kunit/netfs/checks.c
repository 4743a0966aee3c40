// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs KUnit harness: the invariant checks.
 *
 * After an operation and once the helper is quiescent, nk_check_all()
 * compares what the case can see with the scenario's struct nk_expect and
 * with the contract that holds for every scenario (docs/netfs-contract.md
 * of the netfs-kunit project): the page cache byte for byte and folio by
 * folio, the cache's store, the calls the fakes received and the requests'
 * bookkeeping.  This is the only place that reports what the fakes
 * counted.
 */

#include <kunit/test.h>
#include <linux/highmem.h>
#include <linux/pagemap.h>
#include <linux/slab.h>

#include "harness.h"

/*
 * nk_check_count - check a call count against an expectation
 * @env: the environment
 * @what: what was counted, for the message
 * @got: the count
 * @want: exactly this many, or NK_ANY: not checked
 */
static void nk_check_count(struct nk_env *env, const char *what,
			   unsigned int got, int want)
{
	if (want != NK_ANY)
		nk_check(env, got == want, "%u %s, expected %d", got, what,
			 want);
}

static void nk_check_bookkeeping(struct nk_env *env)
{
	const struct nk_counts *n = &env->n;
	struct nk_rreq *r;
	unsigned int i;

	nk_check(env, atomic_read(&n->free) == atomic_read(&n->init),
		 "free_request ran %d times for %d requests",
		 atomic_read(&n->free), atomic_read(&n->init));
	nk_check(env, atomic_read(&n->ended) == atomic_read(&n->began),
		 "end_operation ran %d times for %d cache operations",
		 atomic_read(&n->ended), atomic_read(&n->began));
	list_for_each_entry(r, &env->rreqs, link) {
		bool io = false;

		for (i = 0; i < env->nr_calls && !io; i++)
			io = env->calls[i].rreq == r->debug_id;
		nk_check(env, atomic_read(&r->nr_ended) == r->cache_began,
			 "R=%x: end_operation ran %d times, cache %sinstalled",
			 r->debug_id, atomic_read(&r->nr_ended),
			 r->cache_began ? "" : "not ");
		nk_check(env, atomic_read(&r->nr_free) == 1,
			 "R=%x: free_request ran %d times", r->debug_id,
			 atomic_read(&r->nr_free));
		/* done once for a request that did I/O, never twice */
		nk_check(env, io ? atomic_read(&r->nr_done) == 1 :
			 atomic_read(&r->nr_done) <= 1,
			 "R=%x: done ran %d times after %s", r->debug_id,
			 atomic_read(&r->nr_done), io ? "I/O" : "no I/O");
	}
	nk_check(env, !atomic_read(&n->violations),
		 "%d calls into the fakes after their request ended or with a bad buffer",
		 atomic_read(&n->violations));
	nk_check(env, !atomic_read(&n->unmarked),
		 "%d folios written to the cache without PG_fscache",
		 atomic_read(&n->unmarked));
	nk_check(env, !atomic_read(&n->done_early),
		 "done ran %d times with a folio of its request still locked",
		 atomic_read(&n->done_early));
	nk_check(env, !atomic_read(&n->hole_reads),
		 "%d cache reads of pages the cache does not hold",
		 atomic_read(&n->hole_reads));
	nk_check(env, !atomic_read(&n->dirty_slices),
		 "prepare_read saw %d new slices with flags already set",
		 atomic_read(&n->dirty_slices));
	nk_check(env, !atomic_read(&n->occupancy),
		 "the helpers called query_occupancy %d times",
		 atomic_read(&n->occupancy));
	nk_check(env, !env->overflow,
		 "more than %d calls: a retry loop does not end", NK_CALL_LIMIT);
	nk_check(env, !atomic_read(&n->bad_decrypts),
		 "%d of %d decrypts were of a partial block or could not sleep",
		 atomic_read(&n->bad_decrypts), atomic_read(&n->decrypts));
	nk_check(env, !atomic_read(&n->early),
		 "%d of %d decrypts found a folio of their block uptodate and unlocked without its plaintext",
		 atomic_read(&n->early), atomic_read(&n->decrypts));
}

struct nk_page_cache_walk {
	struct nk_env *env;
	struct nk_inode *ni;
	u8 *scratch;
	unsigned int reported;
	const char *when;		/* for nk_folio_released()'s report */
};

/*
 * A folio that is still locked or PG_fscache is reported, and the
 * environment marked broken: teardown, or a truncation, would wait for it
 * forever.
 */
static bool nk_folio_released(struct folio *folio, struct nk_page_cache_walk *w)
{
	if (!folio_test_locked(folio) && !folio_test_fscache(folio))
		return true;
	nk_fail(w->env, "folio %lld+%zu still %s%s", folio_pos(folio),
		folio_size(folio),
		folio_test_locked(folio) ? "locked" : "PG_fscache", w->when);
	w->env->broken = true;
	w->reported++;
	return false;
}

static bool nk_check_released(struct folio *folio, void *arg)
{
	struct nk_page_cache_walk *w = arg;

	nk_folio_released(folio, w);
	return w->reported < 5;
}

/**
 * nk_check_folios_released - no folio of the file is locked or PG_fscache
 * @env: the environment, quiescent
 * @file: the file
 * @when: said after the folio in a report (" after the first run", say)
 *
 * For a case that drops the page cache between two operations: the drop
 * would wait forever on such a folio.
 *
 * Return: true if none is; if one is, the case failed and @env is broken.
 */
bool nk_check_folios_released(struct nk_env *env, struct file *file,
			      const char *when)
{
	struct nk_page_cache_walk w = { .env = env, .when = when };

	nk_walk_folios(file->f_mapping, 0, LLONG_MAX, nk_check_released, &w);
	return !w.reported;
}

/*
 * May this folio be left not uptodate by a failed pre?  Only where the
 * operation does not read it: readahead never reads a folio that is
 * already in the page cache; kernel_read() reads every folio of its
 * range below EOF, read_cache_folio() the one at pos, kernel_write()
 * every one it writes to.
 */
static bool nk_pre_may_leave(struct nk_env *env, loff_t start, loff_t end)
{
	const struct nk_scenario *sc = env->sc;
	struct nk_range op = { sc->pos, sc->len };

	if (!nk_in_range(&env->pre_left, start, end))
		return false;
	switch (sc->op) {
	case NK_OP_READ:
		op.len = clamp_t(loff_t, sc->size - sc->pos, 0, sc->len);
		break;
	case NK_OP_CACHE_FOLIO:
		op.len = 1;
		break;
	case NK_OP_WRITE:
		break;
	default:
		return true;
	}
	return !nk_in_range(&op, start, end);
}

/*
 * One folio of the page cache: not locked or PG_fscache, only the page
 * cache's and the walk's references, uptodate unless it overlaps the
 * expected bad range (either, if the scenario may_fail, or where a
 * failed pre left it), and the file's content when uptodate.
 */
static bool nk_check_folio(struct folio *folio, void *arg)
{
	struct nk_page_cache_walk *w = arg;
	struct nk_env *env = w->env;
	loff_t start = folio_pos(folio);
	loff_t end = start + folio_size(folio);
	bool want = !nk_in_range(&env->sc->expect.bad, start, end);
	bool any = env->sc->expect.may_fail || nk_pre_may_leave(env, start, end);
	unsigned int before = w->reported;
	size_t off;

	if (!nk_folio_released(folio, w))
		return w->reported < 5;
	/* the harness's own windows must be what the VM makes: see runner.c */
	if (folio_order(folio) == 1) {
		nk_fail(env, "folio %lld+%zu is of order 1, which 6.1 cannot split",
			start, folio_size(folio));
		w->reported++;
	}
	if (folio_ref_count(folio) != folio_nr_pages(folio) + 1) {
		nk_fail(env, "folio %lld+%zu has %d references, expected %ld",
			start, folio_size(folio), folio_ref_count(folio),
			folio_nr_pages(folio) + 1);
		w->reported++;
	}
	if (!any && folio_test_uptodate(folio) != want) {
		nk_fail(env, "folio %lld+%zu is %suptodate", start,
			folio_size(folio), want ? "not " : "");
		w->reported++;
	}
	for (off = 0; folio_test_uptodate(folio) && off < folio_size(folio);
	     off += PAGE_SIZE) {
		u8 *addr = kmap_local_folio(folio, off);
		bool ok = nk_compare(env, w->ni, "page cache", start + off, addr,
				     PAGE_SIZE, w->scratch, true);

		kunmap_local(addr);
		if (!ok) {
			w->reported++;
			break;
		}
	}
	if (w->reported == before)
		cond_resched();
	return w->reported < 5;
}

static void nk_check_page_cache(struct nk_env *env, struct file *file, u8 *scratch)
{
	struct nk_page_cache_walk w = {
		.env = env, .ni = NK_I(file_inode(file)), .scratch = scratch,
		.when = "",
	};

	nk_drain_lru();
	nk_walk_folios(file->f_mapping, 0, LLONG_MAX, nk_check_folio, &w);
}

/*
 * What the fake cache holds must be the server's content: nothing writes
 * what the test wrote back to it, so a copy taken after the write (a
 * write_begin that did not wait for PG_fscache) shows.
 */
static void nk_check_cache_store(struct nk_env *env, struct file *file, u8 *scratch)
{
	struct nk_inode *ni = NK_I(file_inode(file));
	const struct nk_range *cached = &env->sc->expect.cached;
	unsigned long index;
	loff_t p;
	u8 *page;

	if (ni->stale)
		return;
	if (env->sc->crypt)
		nk_check_stored(env, ni);
	else
		xa_for_each(&ni->store, index, page)
			if (!xa_is_value(page) &&
			    !nk_compare(env, ni, "cache", (loff_t)index << PAGE_SHIFT,
					page, PAGE_SIZE, scratch, false))
				break;
	for (p = cached->start; p < cached->start + cached->len; p += PAGE_SIZE)
		nk_check(env, nk_held(ni, p), "cache does not hold %lld", p);
}

static const char * const nk_hole_names[] = {
	[NETFS_READ_HOLE_IGNORE] = "IGNORE", [NETFS_READ_HOLE_CLEAR] = "CLEAR",
	[NETFS_READ_HOLE_FAIL] = "FAIL",
};

/*
 * What a cache read asks for at holes: the first read of a range with
 * NETFS_READ_HOLE_IGNORE (prepare_read said the cache holds it), the rest
 * of a read that came back short with NETFS_READ_HOLE_CLEAR.  A read
 * continues an earlier one of its request if it starts inside it (or at
 * its start, after a read that made no progress): slices never overlap.
 */
static void nk_check_read_holes(struct nk_env *env)
{
	unsigned int i, j;

	for (i = 0; i < env->nr_calls; i++) {
		const struct nk_call *c = &env->calls[i];
		enum netfs_read_from_hole want = NETFS_READ_HOLE_IGNORE;

		if (c->op != NK_CALL_CACHE_READ)
			continue;
		for (j = 0; j < i; j++) {
			const struct nk_call *d = &env->calls[j];

			if (d->op == NK_CALL_CACHE_READ && d->rreq == c->rreq &&
			    c->start >= d->start && c->start < d->start + d->len)
				want = NETFS_READ_HOLE_CLEAR;
		}
		if (c->read_hole != want) {
			nk_fail(env,
				"cache read {%lld, %zu}: NETFS_READ_HOLE_%s, expected %s",
				c->start, c->len,
				c->read_hole <= NETFS_READ_HOLE_FAIL ?
				nk_hole_names[c->read_hole] : "?",
				nk_hole_names[want]);
			return;
		}
	}
}

static void nk_check_calls(struct nk_env *env)
{
	const struct nk_expect *ex = &env->sc->expect;
	unsigned int i, n;

	nk_check_count(env, "issue_read calls", env->n.issue, ex->server_calls);
	nk_check_count(env, "cache reads", env->n.cread, ex->cache_reads);
	nk_check_count(env, "cache writes", env->n.cwrite, ex->cache_writes);
	nk_check_count(env, "check_write_begin calls", atomic_read(&env->n.cwb),
		       ex->cwb_calls);
	nk_check_read_holes(env);

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
 * For every request: no download it issued goes beyond the i_size it
 * started with or is longer than the rsize, and, with ex->slices, the
 * first issues of its subrequests are exactly its rsize slicing.
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
		/* an encrypted file's ciphertext ends at a block's end */
		loff_t i_size = env->sc->crypt ?
			round_up(r->i_size, env->sc->crypt) : r->i_size;
		loff_t next = r->start;
		loff_t end = min(r->end, i_size);

		nr_req++;
		readpage |= r->origin == NETFS_READPAGE;
		for (i = 0; i < env->nr_calls; i++) {
			const struct nk_call *c = &env->calls[i];

			if (c->op != NK_CALL_ISSUE || c->rreq != r->debug_id)
				continue;
			nk_check(env, c->start + c->len <= i_size,
				 "R=%x: download {%lld, %zu} beyond i_size %lld",
				 r->debug_id, c->start, c->len, i_size);
			/* clamp_length cuts every download, falling back too */
			nk_check(env, !rsize || c->len <= rsize,
				 "R=%x: download {%lld, %zu} longer than the rsize %zu",
				 r->debug_id, c->start, c->len, rsize);
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

/* How much of [start, end) the page cache holds */
struct nk_present_walk {
	loff_t start, end, bytes;
};

static bool nk_count_present(struct folio *folio, void *arg)
{
	struct nk_present_walk *w = arg;
	loff_t s = max_t(loff_t, folio_pos(folio), w->start);
	loff_t e = min_t(loff_t, folio_pos(folio) + folio_size(folio), w->end);

	w->bytes += e - s;
	return true;
}

/*
 * The page cache holds every page of the request's range below EOF: an
 * expansion that the request claims to cover was really read into it.
 */
static void nk_check_request_present(struct nk_env *env, struct file *file)
{
	const struct nk_range *req = &env->sc->expect.request;
	struct nk_present_walk w = {
		.start = req->start,
		.end = min_t(loff_t, req->start + req->len,
			     round_up(env->sc->size, PAGE_SIZE)),
	};

	if (!req->len || w.end <= w.start)
		return;
	nk_walk_folios(file->f_mapping, w.start, w.end, nk_count_present, &w);
	nk_check(env, w.bytes == w.end - w.start,
		 "the page cache holds %lld bytes of the request's [%lld, %lld)",
		 w.bytes, w.start, w.end);
}

/* The folios of a window while server.hold keeps one call back */
struct nk_progress_walk {
	struct nk_env *env;
	struct address_space *mapping;
	loff_t start, end;
	unsigned int waiting, early;
	loff_t first_waiting, first_early;
};

static bool nk_folio_progress(struct folio *folio, void *arg)
{
	struct nk_progress_walk *w = arg;
	loff_t start = folio_pos(folio);
	bool held = nk_in_range(&w->env->held_range, start,
				start + folio_size(folio));

	if (held && (!folio_test_locked(folio) || folio_test_uptodate(folio))) {
		if (!w->early++)
			w->first_early = start;
	} else if (!held && (folio_test_locked(folio) || !folio_test_uptodate(folio))) {
		if (!w->waiting++)
			w->first_waiting = start;
	}
	return true;
}

/* Only the held call is in flight, and every other folio is done. */
static bool nk_progressed(struct nk_env *env, const int *now, void *arg)
{
	struct nk_progress_walk *w = arg;

	w->waiting = 0;
	w->early = 0;
	if (now[0] != 1)
		return false;
	nk_walk_folios(w->mapping, w->start, w->end, nk_folio_progress, w);
	return !w->waiting;
}

/**
 * nk_check_progress - folios complete as they are read
 * @env: the environment
 * @file: the file read
 * @pos: the window's start
 * @len: its length
 *
 * With the issue_read that server.hold names kept back, and after the
 * readahead returned: once every other call has completed, every folio of
 * the window that the held call does not touch is uptodate and unlocked
 * (it does not wait for the rest of the request), and every folio that it
 * touches is still locked and not uptodate.
 */
void nk_check_progress(struct nk_env *env, struct file *file, loff_t pos,
		       size_t len)
{
	struct nk_progress_walk w = {
		.env = env, .mapping = file->f_mapping,
		.start = pos, .end = pos + len,
	};
	int now[8];

	/* pairs with the release in nk_complete(): held_range is set */
	if (!smp_load_acquire(&env->held)) {
		nk_fail(env, "issue_read call %u, to be held back, was not made",
			env->sc->server.hold);
		return;
	}
	if (!nk_wait(env, nk_progressed, &w, now))
		nk_fail(env,
			"with issue_read {%lld, %lld} held back and %d other I/Os in flight: %u folios it does not cover are not uptodate and unlocked, the first at %lld",
			env->held_range.start, env->held_range.len, now[0] - 1,
			w.waiting, w.first_waiting);
	nk_check(env, !w.early,
		 "with issue_read {%lld, %lld} held back: %u folios it covers are unlocked or uptodate already, the first at %lld",
		 env->held_range.start, env->held_range.len, w.early,
		 w.first_early);
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

/**
 * nk_check_all - run every check on a quiescent environment
 * @env: the environment
 * @scratch: a page of scratch space
 */
void nk_check_all(struct nk_env *env, u8 *scratch)
{
	const struct nk_scenario *sc = env->sc;
	unsigned int i;

	nk_check_bookkeeping(env);
	nk_check_buffers(env, true);
	for (i = 0; i < env->nr_files; i++) {
		nk_check_page_cache(env, env->files[i], scratch);
		nk_check_cache_store(env, env->files[i], scratch);
		nk_check_request_present(env, env->files[i]);
	}
	nk_check_calls(env);
	nk_check_requests(env);
	/* an encrypted file's read_folio reads whole blocks */
	if (sc->op == NK_OP_READ_FOLIO && !sc->expect.error && !sc->cache.on &&
	    !sc->expect.may_fail && !sc->crypt)
		nk_check_folio_request(env);
}
