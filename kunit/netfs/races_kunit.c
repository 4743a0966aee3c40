// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs_races: readers, truncation, invalidation and writers on one file
 * at once, for a bounded time and number of iterations.
 *
 * Six threads share a file of 1 MiB whose server content is the pattern:
 * two kernel_read() loops, a loop of explicit readahead windows, a
 * read_folio() loop, a loop that shrinks the file and grows it back as a
 * netfs's setattr does (inode lock, invalidate lock, the server first,
 * then truncate_setsize(), netfs_resize_file() and the cache), and a loop that
 * invalidates the page cache (invalidate_inode_pages2()) or writes through
 * write_begin (the bytes the file holds, so that what the file holds is
 * still known).  Completions come in mixed contexts (server.mix), and the
 * server says where its file ends (CLEAR_TAIL), as 9p's does.
 *
 * Checked: every operation succeeds (read_folio may find its folio there
 * already); every read returns only bytes the file held at some time
 * during the race (the pattern, or zeroes past the lowest size it had);
 * afterwards every uptodate folio holds exactly what the file holds, so
 * nothing past EOF but zeroes and nothing stale below it; every other
 * check of the harness holds; and nothing hung: a thread that makes no
 * progress fails the case instead of hanging the boot.
 */

#include <linux/pagemap.h>
#include <linux/sizes.h>
#include <linux/vmalloc.h>

#include "harness.h"

#define NK_RACE_MS	2000	/* each case races this long... */
#define NK_RACE_ITERS	300	/* ...or until each thread did this many */
#define NK_RACE_SIZE	SZ_1M	/* the file's size when grown */
#define NK_RACE_MIN	SZ_64K	/* the least it shrinks to */

struct nk_racer;
typedef void (*nk_race_step_t)(struct nk_racer *r);

struct nk_racer {
	struct nk_env *env;
	struct file *file;
	const char *name;
	nk_race_step_t step;
	unsigned long deadline;
	unsigned int iters;
	unsigned int errors;		/* operations that returned an error */
	long last_error;		/* the last of them */
	struct nk_rng rng;
	u8 *buf;			/* SZ_64K */
	u8 *scratch;			/* a page */
};

static loff_t nk_race_size(struct nk_racer *r)
{
	return i_size_read(file_inode(r->file));
}

static void nk_race_read(struct nk_racer *r)
{
	loff_t pos = nk_below(&r->rng, NK_RACE_SIZE), p = pos;
	size_t len = 1 + nk_below(&r->rng, SZ_64K);
	ssize_t ret = kernel_read(r->file, r->buf, len, &p);

	if (ret < 0) {
		r->errors++;
		r->last_error = ret;
		return;
	}
	nk_check(r->env, ret <= len, "kernel_read of %zu returned %zd", len, ret);
	nk_compare(r->env, NK_I(file_inode(r->file)), "racing kernel_read", pos,
		   r->buf, min_t(size_t, ret, len), r->scratch, true);
}

static void nk_race_job(struct nk_racer *r, enum nk_op op, size_t len)
{
	struct address_space *mapping = r->file->f_mapping;
	struct nk_job job = {
		.env = r->env, .file = r->file, .op = op,
		.pos = round_down(nk_below(&r->rng, NK_RACE_SIZE), PAGE_SIZE),
		.len = len, .folios = r->env->folios,
	};

	long ret = 0;

	/* as filemap_read_folio()'s callers do; readahead takes it itself */
	if (op == NK_OP_READ_FOLIO)
		filemap_invalidate_lock_shared(mapping);

	/* nothing past EOF: readahead and read_folio never go there */
	if (job.pos < nk_race_size(r))
		ret = nk_do_job(&job);
	/* -EEXIST: read_folio's folio was there already */
	if (ret < 0 && ret != -EEXIST) {
		r->errors++;
		r->last_error = ret;
	}
	if (op == NK_OP_READ_FOLIO)
		filemap_invalidate_unlock_shared(mapping);
}

static void nk_race_readahead(struct nk_racer *r)
{
	nk_race_job(r, NK_OP_READAHEAD, PAGE_SIZE * (1 + nk_below(&r->rng, 32)));
}

static void nk_race_read_folio(struct nk_racer *r)
{
	nk_race_job(r, NK_OP_READ_FOLIO, PAGE_SIZE);
}

/* Shrink the file, or grow it back, as a netfs's setattr does. */
static void nk_race_resize(struct nk_racer *r)
{
	struct inode *inode = file_inode(r->file);
	struct nk_inode *ni = NK_I(inode);
	loff_t size = nk_below(&r->rng, 2) ? NK_RACE_SIZE :
		NK_RACE_MIN + nk_below(&r->rng, NK_RACE_SIZE - NK_RACE_MIN);

	inode_lock(inode);
	filemap_invalidate_lock(inode->i_mapping);
	/* the server: past the new end, the file reads as zeroes from now */
	nk_set_content(ni, min(ni->content, size));
	truncate_setsize(inode, size);
	netfs_resize_file(&ni->netfs, size);
	/* and the cache, as with fscache_resize_cookie() */
	nk_cache_resize(ni, size);
	filemap_invalidate_unlock(inode->i_mapping);
	inode_unlock(inode);
}

/* Invalidate the page cache, or write the bytes the file holds. */
static void nk_race_invalidate_or_write(struct nk_racer *r)
{
	struct nk_inode *ni = NK_I(file_inode(r->file));
	loff_t pos, p;
	ssize_t ret;
	size_t len;

	if (nk_below(&r->rng, 2)) {
		/* -EBUSY for a folio someone holds: that is allowed */
		invalidate_inode_pages2(r->file->f_mapping);
		return;
	}
	/* below the least size, where the file always holds the pattern */
	len = 1 + nk_below(&r->rng, 3 * PAGE_SIZE);
	pos = nk_below(&r->rng, NK_RACE_MIN - len);
	memcpy(r->buf, nk_pattern(ni->id, pos), len);
	p = pos;
	ret = kernel_write(r->file, r->buf, len, &p);
	if (ret != len) {
		r->errors++;
		r->last_error = ret;
	}
}

/* The job of one racer: its step, until the race is over */
static long nk_racer_loop(struct nk_job *job)
{
	struct nk_racer *r = job->priv;

	while (r->iters < NK_RACE_ITERS && time_before(jiffies, r->deadline) &&
	       !READ_ONCE(r->env->broken)) {
		r->step(r);
		r->iters++;
		cond_resched();
	}
	return 0;
}

/*
 * Once the race is over, every uptodate folio holds exactly what the file
 * holds now: the pattern below the least size it had, zeroes from there
 * and past EOF.  Every shrink truncated the page cache and the cache, and
 * every read since then read zeroes there, so nothing older may be left.
 * (The harness's checks after this, of the cache too, are as exact.)
 */
struct nk_final_walk {
	struct nk_env *env;
	struct nk_inode *ni;
	u8 *scratch;
	bool bad;
};

static bool nk_check_final(struct folio *folio, void *arg)
{
	struct nk_final_walk *w = arg;
	size_t off;

	for (off = 0; folio_test_uptodate(folio) && off < folio_size(folio) &&
	     !w->bad; off += PAGE_SIZE) {
		u8 *addr = kmap_local_folio(folio, off);

		w->bad = !nk_compare(w->env, w->ni, "page cache after the race",
				     folio_pos(folio) + off, addr, PAGE_SIZE,
				     w->scratch, true);
		kunmap_local(addr);
	}
	return !w->bad;
}

static const char * const nk_racer_names[] = {
	"kernel_read", "kernel_read", "readahead", "read_folio", "resize",
	"invalidate/write",
};

static const nk_race_step_t nk_racer_steps[] = {
	nk_race_read, nk_race_read, nk_race_readahead, nk_race_read_folio,
	nk_race_resize, nk_race_invalidate_or_write,
};

static void nk_race(struct kunit *test, bool cache, enum nk_folios folios)
{
	static const struct nk_scenario nocache = {
		.name = "race", .size = NK_RACE_SIZE,
		.server = { .rsize = SZ_16K, .clear_tail = true, .mix = 0x2545f491 },
		.cache = { .absent = true },
		.expect = { NK_ANY_CALLS, .may_fail = true },
	};
	static const struct nk_scenario withcache = {
		.name = "race_cache", .size = NK_RACE_SIZE,
		.server = { .rsize = SZ_16K, .clear_tail = true, .mix = 0x9e3779b9 },
		.cache = { .on = true, .granule = SZ_64K },
		.expect = { NK_ANY_CALLS, .may_fail = true },
	};
	struct nk_job *jobs[ARRAY_SIZE(nk_racer_steps)] = {};
	u8 *scratch = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	unsigned int i, n = ARRAY_SIZE(jobs);
	struct nk_final_walk w;
	struct nk_racer *r;
	struct nk_env *env;
	struct file *file;

	if (folios == NK_FOLIOS_LARGE && !IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
		kunit_skip(test, "large folios need CONFIG_TRANSPARENT_HUGEPAGE");
	KUNIT_ASSERT_NOT_NULL(test, scratch);
	env = nk_env_create(test, cache ? &withcache : &nocache,
			    NK_CTX_WORKQUEUE, folios);
	KUNIT_ASSERT_NOT_NULL(test, env);
	env->concurrent = true;
	env->unlimited = true;
	file = nk_new_file(env, NK_RACE_SIZE);
	if (IS_ERR(file)) {
		nk_env_destroy(env);
		return;
	}
	/*
	 * Not the case's memory: racers that do not stop are left running,
	 * with their racer and job, when the case ends.
	 */
	r = kcalloc(n, sizeof(*r), GFP_KERNEL);
	for (i = 0; r && i < n; i++) {
		r[i] = (struct nk_racer){
			.env = env, .file = file, .name = nk_racer_names[i],
			.step = nk_racer_steps[i], .rng.s = i,
			.deadline = jiffies + msecs_to_jiffies(NK_RACE_MS),
			.buf = kmalloc(SZ_64K, GFP_KERNEL),
			.scratch = kmalloc(PAGE_SIZE, GFP_KERNEL),
		};
		jobs[i] = nk_job_fn(env, file, nk_racer_loop, &r[i],
				    nk_racer_names[i]);
		if (!r[i].buf || !r[i].scratch || !jobs[i]) {
			nk_fail(env, "no memory for the racers");
			goto out;
		}
	}
	if (!r) {
		nk_fail(env, "no memory for the racers");
		goto out;
	}
	if (!nk_run_jobs(env, jobs, n)) {
		nk_finish(env, scratch);	/* the racers are left to their threads */
		return;
	}
	for (i = 0; i < n; i++) {
		kunit_info(test, "%s: %u iterations\n", r[i].name, r[i].iters);
		/* no fault is injected: every operation must succeed */
		nk_check(env, !r[i].errors, "%s: %u of %u failed, the last with %ld",
			 r[i].name, r[i].errors, r[i].iters, r[i].last_error);
	}
	if (!nk_quiesce(env))
		goto out;
	/* exactly what the file holds now, without the race's leeway */
	w = (struct nk_final_walk){
		.env = env, .ni = NK_I(file_inode(file)), .scratch = scratch,
	};
	w.ni->floor = LLONG_MAX;
	nk_walk_folios(file->f_mapping, 0, LLONG_MAX, nk_check_final, &w);
out:
	for (i = 0; i < n; i++) {
		nk_job_free(jobs[i]);
		if (r) {
			kfree(r[i].buf);
			kfree(r[i].scratch);
		}
	}
	kfree(r);
	nk_finish(env, scratch);
}

static void race_order0(struct kunit *test)
{
	nk_race(test, false, NK_FOLIOS_SMALL);
}

static void race_large(struct kunit *test)
{
	nk_race(test, false, NK_FOLIOS_LARGE);
}

static void race_cache_order0(struct kunit *test)
{
	nk_race(test, true, NK_FOLIOS_SMALL);
}

static void race_cache_large(struct kunit *test)
{
	nk_race(test, true, NK_FOLIOS_LARGE);
}

static struct kunit_case netfs_races_cases[] = {
	KUNIT_CASE(race_order0),
	KUNIT_CASE(race_large),
	KUNIT_CASE(race_cache_order0),
	KUNIT_CASE(race_cache_large),
	{}
};

static struct kunit_suite netfs_races_suite = {
	.name = "netfs_races",
	.suite_init = nk_suite_init,
	.suite_exit = nk_suite_exit,
	.test_cases = netfs_races_cases,
};

kunit_test_suites(&netfs_races_suite);
