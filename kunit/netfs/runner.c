// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs KUnit harness: the operations and the table runner.
 *
 * Every operation a case performs (kernel_read, an explicit readahead
 * window, read_folio, read_cache_folio, kernel_write) runs as a job in a
 * kernel thread of its own, and the case waits for it only while the
 * helper makes progress.  A job that stops making progress (a folio that
 * is never unlocked, a request that never completes) fails the case with
 * what it was doing; the job, its thread and the environment are left
 * behind on purpose, and the cases after it still run and report.
 *
 * nk_run() runs one scenario of a table in one completion context and
 * folio size; nk_gen_params() and nk_run_param() make a KUnit
 * parameterised case of a table.
 */

#include <kunit/test.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/pagemap.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "harness.h"

static const char * const nk_op_names[] = {
	[NK_OP_READ]		= "kernel_read",
	[NK_OP_READAHEAD]	= "readahead",
	[NK_OP_READ_FOLIO]	= "read_folio",
	[NK_OP_CACHE_FOLIO]	= "read_cache_folio",
	[NK_OP_WRITE]		= "kernel_write",
	[NK_OP_TRUNCATE]	= "truncate",
};

/*
 * The order of the folios a job makes: large ones need THP (and with it
 * XARRAY_MULTI); without it there is no large folio mode at all.
 */
static unsigned int nk_job_order(const struct nk_job *job)
{
	return IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE) &&
		job->folios == NK_FOLIOS_LARGE ? 2 : 0;
}

/*
 * Build a readahead window of locked folios and hand it to ->readahead,
 * the way page_cache_ra_unbounded() and read_pages() do.
 */
static int nk_readahead_window(struct nk_job *job)
{
	struct nk_env *env = job->env;
	struct file *file = job->file;
	struct address_space *mapping = file->f_mapping;
	unsigned int order = nk_job_order(job);
	pgoff_t index = job->pos >> PAGE_SHIFT;
	pgoff_t end = DIV_ROUND_UP(job->pos + job->len, PAGE_SIZE);
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
		/*
		 * Never order 1, as page_cache_ra_order() never does: such a
		 * folio has no deferred split list, and 6.1's
		 * split_huge_page_to_list() (a truncation inside it) takes
		 * the third page's for one and oopses.
		 */
		if (o == 1)
			o = 0;
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
	/*
	 * What the helper did not take is still locked, and is dropped the
	 * way read_pages() drops it.
	 */
	while ((folio = readahead_folio(&ractl))) {
		leftover++;
		if (!folio_test_locked(folio)) {
			atomic_inc(&env->n.violations);
			continue;
		}
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
static int nk_read_folio(struct nk_job *job)
{
	struct nk_env *env = job->env;
	struct address_space *mapping = job->file->f_mapping;
	unsigned int order = nk_job_order(job);
	pgoff_t index = round_down(job->pos >> PAGE_SHIFT, 1UL << order);
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
	ret = mapping->a_ops->read_folio(job->file, folio);
	/* with other threads about, one of them may have locked it since */
	if (!env->concurrent && folio_test_locked(folio)) {
		atomic_inc(&env->n.violations);
		nk_fail(env, "read_folio returned %d with the folio still locked",
			ret);
		env->broken = true;
	}
	folio_put(folio);
	return ret;
}

/**
 * nk_do_job - run a job in the caller's thread
 * @job: the job (its completion is not used)
 *
 * For benchmarks that time the operation itself; cases use nk_run_jobs(),
 * which watches for an operation that never returns.
 *
 * Return: what the operation returned.
 */
long nk_do_job(struct nk_job *job)
{
	struct nk_inode *ni = NK_I(file_inode(job->file));
	loff_t pos = job->pos;
	struct folio *folio;
	long ret;

	if (job->fn)
		return job->fn(job);
	switch (job->op) {
	case NK_OP_READ:
		return kernel_read(job->file, job->buf, job->len, &pos);
	case NK_OP_READAHEAD:
		return nk_readahead_window(job);
	case NK_OP_READ_FOLIO:
		return nk_read_folio(job);
	case NK_OP_CACHE_FOLIO:
		folio = read_cache_folio(job->file->f_mapping, pos >> PAGE_SHIFT,
					 NULL, job->file);
		if (IS_ERR(folio))
			return PTR_ERR(folio);
		folio_put(folio);
		return 0;
	case NK_OP_WRITE:
		ni->writing = (struct nk_range){ .start = pos, .len = job->len };
		ret = kernel_write(job->file, job->buf, job->len, &pos);
		ni->writing = (struct nk_range){};
		if (ret > 0) {
			ni->overlay.start = job->pos;
			ni->overlay.len = ret;
		}
		return ret;
	case NK_OP_TRUNCATE:
		/* a held call is let go once the truncation has begun */
		nk_release_held_later(job->env, 50);
		/* as a netfs's setattr does: the server first, then the client */
		nk_set_content(ni, min(ni->content, pos));
		netfs_resize_file(&ni->netfs, pos);
		truncate_setsize(&ni->netfs.inode, pos);
		return 0;
	}
	return -EINVAL;
}

static int nk_job_thread(void *data)
{
	struct nk_job *job = data;

#ifdef CONFIG_FAULT_INJECTION
	current->fail_nth = job->fail_nth;
#endif
	job->ret = nk_do_job(job);
#ifdef CONFIG_FAULT_INJECTION
	job->fail_nth = current->fail_nth;
	current->fail_nth = 0;
#endif
	complete(&job->done);
	return 0;
}

/**
 * nk_job_new - describe an operation
 * @env: the environment
 * @file: the file
 * @op: the operation
 * @pos: where
 * @len: how much
 *
 * The job makes folios of the environment's size; for NK_OP_READ and
 * NK_OP_WRITE it has a buffer (for a write, holding what is written).
 *
 * Return: the job, or NULL.
 */
struct nk_job *nk_job_new(struct nk_env *env, struct file *file,
			  enum nk_op op, loff_t pos, size_t len)
{
	struct nk_job *job = kzalloc(sizeof(*job), GFP_KERNEL);

	if (!job)
		return NULL;
	*job = (struct nk_job){ .env = env, .file = file, .op = op,
				.pos = pos, .len = len, .folios = env->folios };
	init_completion(&job->done);
	if (op == NK_OP_READ || op == NK_OP_WRITE) {
		job->buf = kvmalloc(max_t(size_t, len, 1), GFP_KERNEL);
		if (!job->buf) {
			kfree(job);
			return NULL;
		}
		if (op == NK_OP_WRITE)
			memcpy(job->buf, nk_pattern(NK_ALT_ID, pos), len);
	}
	return job;
}

/**
 * nk_job_fn - describe a job that runs a function of the case's own
 * @env: the environment
 * @file: the file it works on
 * @fn: what the job's thread runs; its return value is the job's @ret
 * @priv: @fn's own data (job->priv)
 * @name: what it does, for a report that it did not return
 *
 * For cases that run loops of operations of their own in threads (the
 * races): nk_run_jobs() watches them as it watches any job.
 *
 * Return: the job, or NULL.
 */
struct nk_job *nk_job_fn(struct nk_env *env, struct file *file,
			 long (*fn)(struct nk_job *job), void *priv,
			 const char *name)
{
	/* no buffer, and the op is never run */
	struct nk_job *job = nk_job_new(env, file, NK_OP_READAHEAD, 0, 0);

	if (job) {
		job->fn = fn;
		job->priv = priv;
		job->name = name;
	}
	return job;
}

/**
 * nk_job_free - free a job that has returned
 * @job: the job (NULL is allowed)
 */
void nk_job_free(struct nk_job *job)
{
	if (job) {
		kvfree(job->buf);
		kfree(job);
	}
}

struct nk_jobs {
	struct nk_job **jobs;
	unsigned int n;
};

static bool nk_jobs_returned(struct nk_env *env, const int *now, void *arg)
{
	const struct nk_jobs *j = arg;
	unsigned int i;

	for (i = 0; i < j->n; i++)
		if (!completion_done(&j->jobs[i]->done))
			return false;
	return true;
}

/**
 * nk_run_jobs - run jobs at once, each in a thread, and wait for them
 * @env: the environment
 * @jobs: the jobs
 * @n: how many
 *
 * Waits while the helper makes progress (nk_wait()).  If it stalls with a
 * job still running, the case fails naming the job, the environment is
 * marked broken, and the jobs are left to their threads: the caller must
 * not free them.
 *
 * Return: true if every job returned.
 */
bool nk_run_jobs(struct nk_env *env, struct nk_job **jobs, unsigned int n)
{
	struct nk_jobs all = { .jobs = jobs, .n = n };
	unsigned int i;
	int now[8];

	for (i = 0; i < n; i++) {
		struct task_struct *task;

		task = kthread_run(nk_job_thread, jobs[i], "netfs_kunit%u", i);
		if (IS_ERR(task)) {
			nk_fail(env, "kthread_run: %ld", PTR_ERR(task));
			nk_job_thread(jobs[i]);
		}
	}
	if (nk_wait(env, nk_jobs_returned, &all, now))
		return true;
	for (i = 0; i < n; i++)
		if (!completion_done(&jobs[i]->done))
			nk_fail(env,
				"%s of %lld+%zu did not return: no progress for %d ms, %d I/Os in flight, %d/%d requests freed",
				jobs[i]->fn ? jobs[i]->name :
				nk_op_names[jobs[i]->op], jobs[i]->pos,
				jobs[i]->len, NK_STALL_MS, now[0], now[1], now[2]);
	env->broken = true;
	return false;
}

/**
 * nk_run_op - run one operation whose result does not matter
 * @env: the environment
 * @file: the file
 * @op: the operation
 * @pos: where
 * @len: how much
 * @folios: the folio size it makes
 *
 * Return: true if it returned and the helper is quiescent.
 */
bool nk_run_op(struct nk_env *env, struct file *file, enum nk_op op,
	       loff_t pos, size_t len, enum nk_folios folios)
{
	struct nk_job *job = nk_job_new(env, file, op, pos, len);

	if (!job) {
		nk_fail(env, "no memory for a job");
		return false;
	}
	job->folios = folios;
	if (!nk_run_jobs(env, &job, 1))
		return false;
	nk_job_free(job);
	return nk_quiesce(env);
}

/**
 * nk_finish - the end of a case: quiesce, check everything, tear down
 * @env: the environment
 * @scratch: a page of scratch space
 */
void nk_finish(struct nk_env *env, u8 *scratch)
{
	if (!env->broken && nk_quiesce(env))
		nk_check_all(env, scratch);
	nk_env_destroy(env);
}

/* What the scenario's operation must return */
static long nk_want(const struct nk_scenario *sc)
{
	if (sc->expect.error)
		return sc->expect.error;
	if (sc->op == NK_OP_READ)
		return sc->expect.result ?:
			clamp_t(loff_t, sc->size - sc->pos, 0, sc->len);
	if (sc->op == NK_OP_WRITE)
		return sc->len;
	return 0;
}

/*
 * What a scenario that may_fail may return: an error, what it would
 * return without faults, or for kernel_read and kernel_write a short
 * count (a read, anything up to its length: the file may have grown).
 */
static bool nk_allowed(const struct nk_scenario *sc, long ret)
{
	return ret < 0 || ret == nk_want(sc) ||
		(sc->op == NK_OP_READ && ret <= sc->len) ||
		(sc->op == NK_OP_WRITE && ret < nk_want(sc));
}

/**
 * nk_run - run one scenario in one completion context with one folio size
 * @test: the case
 * @sc: the scenario
 * @ctx: the completion context (unless sc->server.mix draws each call's)
 * @folios: the folio size
 */
void nk_run(struct kunit *test, const struct nk_scenario *sc,
	    enum nk_ctx ctx, enum nk_folios folios)
{
	bool sync_hold = sc->server.hold && sc->op != NK_OP_READAHEAD;
	struct nk_env *env;
	struct nk_inode *ni;
	struct nk_job *job;
	struct file *file;
	u8 *scratch;
	int i;

	if (sc->cache.cookie && !IS_ENABLED(CONFIG_FSCACHE))
		kunit_skip(test, "a cache cookie needs CONFIG_FSCACHE");
	if (sc->crypt && !IS_ENABLED(CONFIG_NETFS_CONTENT_CRYPTO))
		kunit_skip(test, "this netfs library has no content encryption");
	/* the call number would be held in the first run too */
	KUNIT_ASSERT_FALSE_MSG(test, sc->server.hold && (sc->pre.len || sc->twice),
			       "server.hold cannot be combined with pre or twice");
	scratch = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, scratch);
	env = nk_env_create(test, sc, ctx, folios);
	KUNIT_ASSERT_NOT_NULL(test, env);
	file = nk_new_file(env, sc->size);
	if (IS_ERR(file)) {
		nk_env_destroy(env);
		return;
	}
	ni = NK_I(file_inode(file));
	i = nk_cache_setup(ni, &sc->cache);
	nk_check(env, !i, "cannot fill the cache: %d", i);

	/* What comes before the operation: its calls are not counted. */
	if (sc->pre.len) {
		env->in_pre = true;
		i = nk_run_op(env, file, NK_OP_READAHEAD, sc->pre.start,
			      sc->pre.len,
			      sc->pre_failed ? folios : NK_FOLIOS_SMALL);
		env->in_pre = false;
		if (!i)
			goto out;
		if (sc->pre_failed)
			nk_note_pre_left(env, file);
	}
	if (sc->pre_ok.len &&
	    !nk_run_op(env, file, NK_OP_READAHEAD, sc->pre_ok.start,
		       sc->pre_ok.len, NK_FOLIOS_SMALL))
		goto out;
	if (sc->twice) {
		if (!nk_run_op(env, file, sc->op, sc->pos, sc->len, folios) ||
		    !nk_check_folios_released(env, file, " after the first run"))
			goto out;
		truncate_inode_pages(file->f_mapping, 0);
		env->pre_left = (struct nk_range){};	/* pre's folios are gone */
	}
	nk_reset_records(env);

	job = nk_job_new(env, file, sc->op, sc->pos, sc->len);
	if (!job) {
		nk_fail(env, "no memory for the job");
		goto out;
	}
	/* a synchronous operation waits for the held call: release it later */
	if (sync_hold)
		nk_release_held_later(env, NK_HOLD_MS);
	if (!nk_run_jobs(env, &job, 1))
		goto out;
	if (sync_hold)
		nk_check(env, READ_ONCE(env->released),
			 "%s returned before the issue_read it waits for (held back for %d ms) completed",
			 nk_op_names[sc->op], NK_HOLD_MS);
	if (sc->expect.may_fail)
		nk_check(env, nk_allowed(sc, job->ret),
			 "%s returned %ld, expected %ld, fewer or an error",
			 nk_op_names[sc->op], job->ret, nk_want(sc));
	else
		nk_check(env, job->ret == nk_want(sc),
			 "%s returned %ld, expected %ld", nk_op_names[sc->op],
			 job->ret, nk_want(sc));
	if (sc->op == NK_OP_READ && job->ret > 0)
		nk_compare(env, ni, "kernel_read buffer", sc->pos, job->buf,
			   job->ret, scratch, true);
	if (sc->server.hold && sc->op == NK_OP_READAHEAD)
		nk_check_progress(env, file, sc->pos, sc->len);
	nk_job_free(job);
	if (sc->op == NK_OP_READAHEAD)
		nk_check(env, !env->leftover || !env->nr_calls,
			 "readahead left %u pages of the window untaken after I/O",
			 env->leftover);
out:
	nk_finish(env, scratch);
}

/* ---- parameters ---- */

static const char * const nk_ctx_names[] = { "inline", "workqueue", "softirq" };
static const char * const nk_folio_names[] = { "order0", "large" };

/**
 * nk_gen_params - KUnit parameter generator over a scenario table
 * @table: the scenarios
 * @prev: the previous parameter (NULL for the first)
 * @desc: where to write the parameter's description
 *
 * Every scenario crossed with every completion context and every folio
 * size it allows (large folios only with THP).  A parameter encodes
 * (scenario, folio size, context) as an integer plus one, cast to a
 * pointer.
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
		if (sc->folios && !(sc->folios & NK_ONLY(folios)))
			continue;
		if (folios == NK_FOLIOS_LARGE &&
		    !IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
			continue;
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s/%s/%s", sc->name,
			 nk_folio_names[folios], nk_ctx_names[ctx]);
		return (const void *)(n + 1);
	}
}

/**
 * nk_param_scenario - what a parameter of nk_gen_params() stands for
 * @table: the table
 * @param: the parameter
 * @ctx: set to its completion context
 * @folios: set to its folio size
 *
 * Return: its scenario.
 */
const struct nk_scenario *nk_param_scenario(const struct nk_table *table,
					    unsigned long param, enum nk_ctx *ctx,
					    enum nk_folios *folios)
{
	unsigned long n = param - 1;

	*ctx = n % NK_NR_CTX;
	*folios = (n / NK_NR_CTX) % NK_NR_FOLIOS;
	return &table->scenarios[n / (NK_NR_CTX * NK_NR_FOLIOS)];
}

/**
 * nk_run_param - run the scenario a parameter from nk_gen_params() names
 * @test: the test case
 * @table: the scenarios
 */
void nk_run_param(struct kunit *test, const struct nk_table *table)
{
	const struct nk_scenario *sc;
	enum nk_folios folios;
	enum nk_ctx ctx;

	sc = nk_param_scenario(table, (unsigned long)test->param_value, &ctx,
			       &folios);
	nk_run(test, sc, ctx, folios);
}
