// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs KUnit harness: the I/O of the fakes, and the waits for it.
 *
 * Both fakes record every call they receive here (nk_record()) and hand
 * its completion here (nk_complete()), which runs it in the scenario's
 * context: inline, from a workqueue or from a timer (softirq), each call
 * delayed by a different number of jiffies than its neighbours so that
 * asynchronous completions arrive out of order; or, with server.mix,
 * each call in a context and after a delay of its own.  The issue_read
 * that server.hold names is kept back until the case releases it.
 *
 * The waits (nk_wait(), nk_quiesce()) watch the counters this I/O moves
 * and give up only when they stop moving, never after a fixed time.
 */

#include <linux/delay.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timer.h>

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
	if (n > NK_CALL_LIMIT && !env->unlimited)
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

/**
 * nk_complete - complete a call of one of the fakes
 * @env: the environment
 * @n: the number of the call among its kind
 * @how: what completes it (copied)
 *
 * In the scenario's context, after a delay that differs from the
 * neighbouring calls'; the issue_read that server.hold names is kept
 * back until nk_release_held().  If there is no memory for that, it
 * fails with -ENOMEM at once, as a real transport's submission would.
 *
 * Return: 0, or -ENOMEM if it had to fail the call at once.
 */
int nk_complete(struct nk_env *env, unsigned int n, const struct nk_io *how)
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
		struct nk_rng r = { .s = env->sc->server.mix ^ (n << 1 | (io->subreq ? 0 : 1)) };
		u32 h = nk_rand(&r);

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

/* ---- waiting for the helper ---- */

/*
 * The helper's live request and subrequest counts, read the way a user
 * reads them: the rr= and sr= fields that netfs_stats_show() prints.  They
 * rise when a (sub)request is allocated and fall when it is freed, so a
 * scenario that freed everything leaves them where they were.  Without
 * CONFIG_NETFS_STATS, or if the fields are missing, there is nothing to
 * compare and the harness relies on its own records.
 */
bool nk_netfs_stats(int *rreq, int *sreq)
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

/**
 * nk_progress - what the waits watch for progress
 * @env: the environment
 * @now: filled in: I/Os in flight, requests freed and made, cache
 *	operations ended and begun, calls received, netfs's rr= and sr=
 */
void nk_progress(struct nk_env *env, int now[8])
{
	now[0] = atomic_read(&env->n.inflight);
	now[1] = atomic_read(&env->n.free);
	now[2] = atomic_read(&env->n.init);
	now[3] = atomic_read(&env->n.ended);
	now[4] = atomic_read(&env->n.began);
	now[5] = READ_ONCE(env->n.issue) + READ_ONCE(env->n.cread) +
		READ_ONCE(env->n.cwrite);
	now[6] = env->stat_rreq;
	now[7] = env->stat_sreq;
	if (env->have_stats)
		nk_netfs_stats(&now[6], &now[7]);
}

/**
 * nk_wait - wait while the helper makes progress
 * @env: the environment
 * @until: the wait is over when this returns true, given the counters
 * @arg: its argument
 * @now: the counters last seen (see nk_progress()), for the caller
 *
 * Gives up after NK_STALL_MS in which no counter changed, however long
 * the wait has been: a slow guest still completing I/O is not cut short.
 *
 * Return: true once @until is true, false if the helper stalled.
 */
bool nk_wait(struct nk_env *env,
	     bool (*until)(struct nk_env *env, const int *now, void *arg),
	     void *arg, int now[8])
{
	unsigned long deadline = jiffies + msecs_to_jiffies(NK_STALL_MS);
	int last[8] = { -1 };

	for (;;) {
		nk_progress(env, now);
		if (until(env, now, arg))
			return true;
		if (memcmp(now, last, sizeof(last))) {
			memcpy(last, now, sizeof(last));
			deadline = jiffies + msecs_to_jiffies(NK_STALL_MS);
		} else if (time_after(jiffies, deadline)) {
			return false;
		}
		usleep_range(500, 1000);
	}
}

/* Every request freed, every fake I/O and cache operation ended */
static bool nk_quiet(struct nk_env *env, const int *now, void *arg)
{
	return !now[0] && now[1] == now[2] && now[3] == now[4] &&
		now[6] == env->stat_rreq && now[7] == env->stat_sreq;
}

/**
 * nk_quiesce - wait until every request was freed and every fake I/O ended
 * @env: the environment
 *
 * A call that server.hold kept back is released first.
 * If the helper stalls with work outstanding, the case fails with what is
 * outstanding and the environment is marked broken, so that teardown
 * leaves it alone instead of waiting on it.
 *
 * Return: true when quiescent.
 */
bool nk_quiesce(struct nk_env *env)
{
	int now[8];

	cancel_delayed_work_sync(&env->release_work);
	nk_release_held(env);
	if (nk_wait(env, nk_quiet, NULL, now))
		return true;
	nk_fail(env,
		"not quiescent: no progress for %d ms: %d I/Os in flight, %d/%d requests freed, %d/%d cache operations ended, netfs stats rr=%d (was %d) sr=%d (was %d)",
		NK_STALL_MS, now[0], now[1], now[2], now[3], now[4],
		now[6], env->stat_rreq, now[7], env->stat_sreq);
	env->broken = true;
	return false;
}
