// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs_alloc_failure: every allocation an operation makes, failed in turn.
 *
 * For each class of operation, the operation runs with its N-th
 * allocation failing, for N = 1, 2, ... until a run makes fewer than N
 * allocations.  The failure is injected with the kernel's fault injection:
 * current->fail_nth in the thread that runs the operation, which counts
 * every slab and page allocation that failslab and fail_page_alloc see.
 * Completions run inline, in that thread, so that the completion side's
 * allocations are failed too.
 *
 * By default both skip allocations that may sleep (ignore-gfp-wait), and
 * fail_page_alloc also skips order 0 (min-order 1) and __GFP_HIGHMEM
 * (ignore-gfp-highmem): that is every GFP_KERNEL and GFP_NOFS allocation
 * of the read path and every page cache folio.  The suite turns all of
 * that off for its run, and quiets their reports (verbose), through the
 * variables that their debugfs files point to, and puts them back
 * afterwards.
 *
 * Each run must fail cleanly or succeed: an error only of -ENOMEM (a
 * kernel_read or kernel_write may also stop short), no folio left locked
 * or PG_fscache, nothing leaked, no kernel report; and a plain read of the
 * whole file afterwards returns it byte for byte.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/sizes.h>

#include "harness.h"

#define NK_MAX_NTH	1000	/* a class that still fails here fails */

struct nk_nomem_class {
	struct nk_scenario sc;
	enum nk_folios folios;
};

#define NK_NOMEM(...)	.expect = { NK_ANY_CALLS, .may_fail = true }, __VA_ARGS__

static const struct nk_nomem_class nk_nomem_classes[] = {
	{ { NK_NOMEM(.name = "readahead", .size = SZ_256K,
		     .op = NK_OP_READAHEAD, .len = SZ_64K,
		     .server = { .rsize = SZ_16K },
		     .cache = { .absent = true }) } },
	{ { NK_NOMEM(.name = "readahead_copy_to_cache", .size = SZ_256K,
		     .op = NK_OP_READAHEAD, .len = SZ_64K,
		     .server = { .rsize = SZ_16K }, .cache = { .on = true }) } },
	{ { NK_NOMEM(.name = "readahead_from_cache", .size = SZ_256K,
		     .op = NK_OP_READAHEAD, .len = SZ_64K,
		     .server = { .rsize = SZ_16K },
		     .cache = { .on = true, .held = { NK_RANGE(0, SZ_32K) } }) } },
	{ { NK_NOMEM(.name = "readahead_expanded", .size = SZ_256K,
		     .op = NK_OP_READAHEAD, .pos = SZ_16K, .len = SZ_16K,
		     .server = { .expand = SZ_64K,
				 .expand_how = NK_EXPAND_BOTH }) },
	  NK_FOLIOS_LARGE },
	{ { NK_NOMEM(.name = "read_folio", .size = SZ_64K,
		     .op = NK_OP_READ_FOLIO, .pos = SZ_16K, .len = PAGE_SIZE,
		     .server = { .rsize = 4096 }) },
	  NK_FOLIOS_LARGE },
	{ { NK_NOMEM(.name = "read_cache_folio", .size = SZ_64K,
		     .op = NK_OP_CACHE_FOLIO, .pos = SZ_8K, .len = PAGE_SIZE,
		     .cache = { .on = true }) } },
	{ { NK_NOMEM(.name = "kernel_read", .size = 100000, .op = NK_OP_READ,
		     .len = 100000, .server = { .rsize = SZ_16K },
		     .cache = { .on = true }) },
	  NK_FOLIOS_LARGE },
	{ { NK_NOMEM(.name = "write_begin", .size = SZ_64K, .op = NK_OP_WRITE,
		     .pos = 5000, .len = 3000,
		     .cache = { .on = true, .cookie = true,
				.held = { NK_RANGE(0, SZ_4K) } }) } },
	/* the bounce buffer, and the scratch block of a partial one */
	{ { NK_NOMEM(.name = "crypt_16k_readahead_copy_to_cache",
		     .size = SZ_64K, .crypt = SZ_16K, .op = NK_OP_READAHEAD,
		     .len = SZ_32K, .server = { .rsize = SZ_8K },
		     .cache = { .on = true }) } },
	{ { NK_NOMEM(.name = "crypt_64k_read_folio", .size = SZ_64K - 1000,
		     .crypt = SZ_64K, .op = NK_OP_READ_FOLIO, .pos = SZ_16K,
		     .len = PAGE_SIZE, .server = { .rsize = SZ_16K }) },
	  NK_FOLIOS_LARGE },
};

/*
 * The fault injection settings the suite changes: what it sets them to,
 * where they are (found at suite_init) and what they were.
 */
struct nk_knob {
	const char *dir, *name;
	size_t size;			/* of the variable: bool, u32, ulong */
	unsigned long value;
	void *var;
	unsigned long was;
};

static struct nk_knob nk_knobs[] = {
	{ "failslab", "ignore-gfp-wait", sizeof(bool), 0 },
	{ "failslab", "verbose", sizeof(unsigned long), 0 },
	{ "fail_page_alloc", "ignore-gfp-wait", sizeof(bool), 0 },
	/* page cache folios are __GFP_HIGHMEM, even where there is none */
	{ "fail_page_alloc", "ignore-gfp-highmem", sizeof(bool), 0 },
	{ "fail_page_alloc", "min-order", sizeof(u32), 0 },
	{ "fail_page_alloc", "verbose", sizeof(unsigned long), 0 },
};

static bool nk_knobs_set;

/*
 * The variable behind a debugfs file: debugfs_create_bool() and its kin
 * hand it to the file's inode as i_private.
 */
static void *nk_debugfs_var(const char *dir, const char *name)
{
	struct dentry *d = debugfs_lookup(dir, NULL), *f;
	void *var = NULL;

	if (IS_ERR_OR_NULL(d))
		return NULL;
	f = debugfs_lookup(name, d);
	if (!IS_ERR_OR_NULL(f)) {
		var = d_inode(f)->i_private;
		dput(f);
	}
	dput(d);
	return var;
}

static unsigned long nk_knob_swap(struct nk_knob *k, unsigned long value)
{
	unsigned long was;

	switch (k->size) {
	case sizeof(bool):
		was = *(bool *)k->var;
		*(bool *)k->var = value;
		break;
	case sizeof(u32):
		was = *(u32 *)k->var;
		*(u32 *)k->var = value;
		break;
	default:
		was = *(unsigned long *)k->var;
		*(unsigned long *)k->var = value;
		break;
	}
	return was;
}

static int nk_nomem_init(struct kunit_suite *suite)
{
	unsigned int i;

	nk_knobs_set = IS_ENABLED(CONFIG_FAULT_INJECTION);
	for (i = 0; i < ARRAY_SIZE(nk_knobs); i++) {
		nk_knobs[i].var = nk_debugfs_var(nk_knobs[i].dir, nk_knobs[i].name);
		nk_knobs_set &= !!nk_knobs[i].var;
	}
	for (i = 0; i < ARRAY_SIZE(nk_knobs) && nk_knobs_set; i++)
		nk_knobs[i].was = nk_knob_swap(&nk_knobs[i], nk_knobs[i].value);
	return nk_suite_init(suite);
}

static void nk_nomem_exit(struct kunit_suite *suite)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nk_knobs) && nk_knobs_set; i++)
		nk_knob_swap(&nk_knobs[i], nk_knobs[i].was);
	nk_suite_exit(suite);
}

/* What the operation may return with an allocation failed */
static bool nk_nomem_ok(const struct nk_scenario *sc, long ret)
{
	switch (sc->op) {
	case NK_OP_READ:
		return ret == -ENOMEM || (ret >= 0 && ret <= sc->len);
	case NK_OP_WRITE:
		return ret == -ENOMEM || (ret >= 0 && ret <= sc->len);
	default:
		return ret == -ENOMEM || ret == 0;
	}
}

/*
 * Run the class's operation with its nth allocation failing, then read the
 * whole file.  Return: whether the failure was injected (false: the
 * operation made fewer than nth allocations); *broken if the environment
 * had to be left behind.
 */
static bool nk_nomem_run(struct kunit *test, const struct nk_nomem_class *c,
			 unsigned int nth, u8 *scratch, bool *broken)
{
	const struct nk_scenario *sc = &c->sc;
	bool injected = false;
	struct nk_inode *ni;
	struct nk_env *env;
	struct nk_job *job;
	struct file *file;

	*broken = true;
	env = nk_env_create(test, sc, NK_CTX_INLINE, c->folios);
	if (!env)
		return false;
	file = nk_new_file(env, sc->size);
	if (IS_ERR(file))
		goto out;
	ni = NK_I(file_inode(file));
	nk_check(env, !nk_cache_setup(ni, &sc->cache), "cannot fill the cache");

	job = nk_job_new(env, file, sc->op, sc->pos, sc->len);
	if (!job) {
		nk_fail(env, "no memory for the job");
		goto out;
	}
	job->fail_nth = nth;
	if (!nk_run_jobs(env, &job, 1))
		goto out;	/* the job is left to its thread */
	injected = !job->fail_nth;
	nk_check(env, nk_nomem_ok(sc, job->ret),
		 "%s with allocation %u failing returned %ld", sc->name, nth,
		 job->ret);
	if (sc->op == NK_OP_READ && job->ret > 0)
		nk_compare(env, ni, "kernel_read buffer", sc->pos, job->buf,
			   job->ret, scratch, true);
	nk_job_free(job);
	if (!nk_quiesce(env) ||
	    !nk_check_folios_released(env, file, " after the failed run"))
		goto out;

	/* A plain read afterwards returns the whole file. */
	job = nk_job_new(env, file, NK_OP_READ, 0, i_size_read(file_inode(file)));
	if (!job) {
		nk_fail(env, "no memory for the job");
		goto out;
	}
	if (!nk_run_jobs(env, &job, 1))
		goto out;
	nk_check(env, job->ret == job->len,
		 "kernel_read after allocation %u failed returned %ld, expected %zu",
		 nth, job->ret, job->len);
	if (job->ret > 0)
		nk_compare(env, ni, "kernel_read after the failure", 0, job->buf,
			   job->ret, scratch, true);
	nk_job_free(job);
out:
	*broken = env->broken || !nk_quiesce(env);
	nk_finish(env, scratch);
	return injected;
}

static void nk_nomem_desc(const struct nk_nomem_class *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->sc.name);
}

KUNIT_ARRAY_PARAM(nk_nomem, nk_nomem_classes, nk_nomem_desc);

/*
 * One class: allocation 1, 2, ... failing, until none is left to fail.
 * Each run's failure is counted on its own (nk_failures()); a run
 * that leaves the environment broken ends the class.
 */
static void alloc_failure_run(struct kunit *test)
{
	const struct nk_nomem_class *c = test->param_value;
	u8 *scratch = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	unsigned int nth, runs = 0, failed = 0, first = 0;
	bool broken = false, injected = true;

	if (!nk_knobs_set)
		kunit_skip(test,
			   "needs FAILSLAB, FAIL_PAGE_ALLOC and FAULT_INJECTION_DEBUG_FS");
	if (c->sc.crypt && !IS_ENABLED(CONFIG_NETFS_CONTENT_CRYPTO))
		kunit_skip(test, "this netfs library has no content encryption");
	KUNIT_ASSERT_NOT_NULL(test, scratch);
	for (nth = 1; nth <= NK_MAX_NTH && injected && !broken; nth++) {
		unsigned int before = nk_failures();

		injected = nk_nomem_run(test, c, nth, scratch, &broken);
		runs++;
		if (nk_failures() != before && !failed++)
			first = nth;
	}
	kunit_info(test, "%s: %u runs, allocations 1-%u failed in turn\n",
		   c->sc.name, runs, runs - !injected);
	if (failed)
		KUNIT_FAIL(test, "%s: %u runs failed, the first with allocation %u failing%s",
			   c->sc.name, failed, first,
			   broken ? "; it broke the environment" : "");
	KUNIT_EXPECT_TRUE_MSG(test, !injected || broken,
			      "%s still allocates after %u allocations",
			      c->sc.name, NK_MAX_NTH);
}

static struct kunit_case netfs_alloc_failure_cases[] = {
	KUNIT_CASE_PARAM(alloc_failure_run, nk_nomem_gen_params),
	{}
};

static struct kunit_suite netfs_alloc_failure_suite = {
	.name = "netfs_alloc_failure",
	.suite_init = nk_nomem_init,
	.suite_exit = nk_nomem_exit,
	.test_cases = netfs_alloc_failure_cases,
};

kunit_test_suites(&netfs_alloc_failure_suite);
