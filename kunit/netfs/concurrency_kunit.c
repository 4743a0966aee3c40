// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs_concurrency: the helper under concurrent readers, and its
 * bookkeeping over many requests.
 *
 * These cases are written out rather than tabled: each runs several jobs
 * at once (nk_run_jobs()), with completions from a workqueue and large
 * folios, the combination with the most interleaving, then runs every
 * check of the harness on every file.
 */

#include <linux/sizes.h>

#include "harness.h"

static const struct nk_scenario nk_plain = {
	.name = "plain",
	.size = SZ_4M,
	.server = { .rsize = SZ_16K },
	.expect = { NK_ANY_CALLS },
};

/* An environment with nr_files files of 1 MiB for concurrent jobs */
static struct nk_env *nk_concurrent_env(struct kunit *test, int nr_files,
					struct file **files)
{
	struct nk_env *env;
	int i;

	env = nk_env_create(test, &nk_plain, NK_CTX_WORKQUEUE, NK_FOLIOS_LARGE);
	if (!env)
		return NULL;
	env->concurrent = true;
	for (i = 0; i < nr_files; i++) {
		files[i] = nk_new_file(env, SZ_1M);
		if (IS_ERR(files[i])) {
			nk_env_destroy(env);
			return NULL;
		}
	}
	return env;
}

/*
 * Run the jobs at once.  If they all return, check what each returned
 * (a reader: the whole range, byte for byte; any other job: 0) and free
 * them.  Return: whether they all returned.
 */
static bool nk_run_readers(struct nk_env *env, struct nk_job **jobs,
			   unsigned int n, u8 *scratch)
{
	bool ran = false;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!jobs[i])
			break;
	if (i < n) {
		nk_fail(env, "no memory for job %u", i);
		goto out;
	}
	if (!nk_run_jobs(env, jobs, n))
		return false;	/* a job that never returned is left to its thread */
	ran = true;
	for (i = 0; i < n; i++) {
		struct nk_job *job = jobs[i];

		if (job->op == NK_OP_READ) {
			nk_check(env, job->ret == job->len,
				 "reader %u: kernel_read returned %ld, expected %zu",
				 i, job->ret, job->len);
			if (job->ret > 0)
				nk_compare(env, NK_I(file_inode(job->file)),
					   "reader", job->pos, job->buf,
					   job->ret, scratch, true);
		} else {
			nk_check(env, job->ret == 0, "job %u: %ld", i, job->ret);
		}
	}
out:
	for (i = 0; i < n; i++)
		nk_job_free(jobs[i]);
	return ran;
}

/*
 * 1000 one-page readahead requests, one after another: every request is
 * initialised and freed exactly once, makes exactly one download, and
 * nothing is left behind (the statistics balance).
 */
static void many_requests(struct kunit *test)
{
	u8 *scratch = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct nk_env *env;
	struct file *file;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, scratch);
	env = nk_env_create(test, &nk_plain, NK_CTX_INLINE, NK_FOLIOS_SMALL);
	KUNIT_ASSERT_NOT_NULL(test, env);
	file = nk_new_file(env, nk_plain.size);
	if (IS_ERR(file)) {
		nk_env_destroy(env);
		return;
	}
	for (i = 0; i < 1000; i++)
		if (!nk_run_op(env, file, NK_OP_READAHEAD, (loff_t)i * PAGE_SIZE,
			       PAGE_SIZE, NK_FOLIOS_SMALL))
			break;
	if (!env->broken) {
		KUNIT_EXPECT_EQ(test, atomic_read(&env->n.init), 1000);
		KUNIT_EXPECT_EQ(test, env->n.issue, 1000U);
	}
	nk_finish(env, scratch);
}

/*
 * nr_readers kernel_read()s of len bytes at once, reader i reading file
 * i % nr_files from its start.
 */
static void nk_parallel_reads(struct kunit *test, unsigned int nr_files,
			      unsigned int nr_readers, size_t len)
{
	u8 *scratch = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct nk_job *jobs[4];
	struct file *files[4];
	struct nk_env *env;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, scratch);
	KUNIT_ASSERT_LE(test, nr_readers, ARRAY_SIZE(jobs));
	env = nk_concurrent_env(test, nr_files, files);
	KUNIT_ASSERT_NOT_NULL(test, env);
	for (i = 0; i < nr_readers; i++)
		jobs[i] = nk_job_new(env, files[i % nr_files], NK_OP_READ, 0, len);
	nk_run_readers(env, jobs, nr_readers, scratch);
	nk_finish(env, scratch);
}

/* Two kernel_read()s of the same 512 KiB at once */
static void two_readers(struct kunit *test)
{
	nk_parallel_reads(test, 1, 2, SZ_512K);
}

/* Concurrent kernel_read()s of four files */
static void many_inodes(struct kunit *test)
{
	nk_parallel_reads(test, 4, 4, SZ_256K);
}

/*
 * One thread reads ahead 256 KiB while another reads one page in the
 * middle of that window through read_cache_folio(): both succeed, every
 * folio ends up uptodate with the right data, and nothing is downloaded
 * twice.
 */
static void readahead_vs_read_folio(struct kunit *test)
{
	u8 *scratch = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct nk_job *jobs[2];
	struct nk_env *env;
	struct file *file;
	loff_t covered = 0;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, scratch);
	env = nk_concurrent_env(test, 1, &file);
	KUNIT_ASSERT_NOT_NULL(test, env);
	jobs[0] = nk_job_new(env, file, NK_OP_READAHEAD, 0, SZ_256K);
	jobs[1] = nk_job_new(env, file, NK_OP_CACHE_FOLIO, SZ_128K, PAGE_SIZE);
	if (nk_run_readers(env, jobs, 2, scratch) && nk_quiesce(env)) {
		for (i = 0; i < env->nr_calls; i++)
			covered += env->calls[i].len - env->calls[i].done;
		KUNIT_EXPECT_LE(test, covered, (loff_t)SZ_256K);
	}
	nk_finish(env, scratch);
}

/* Run one job; false (and the job left to its thread) if it never returns */
static bool nk_run_one(struct nk_env *env, struct nk_job *job)
{
	if (!job) {
		nk_fail(env, "no memory for a job");
		return false;
	}
	if (!nk_run_jobs(env, &job, 1))
		return false;
	return true;
}

/*
 * The file is truncated to 100000 bytes while a readahead of its first
 * 256 KiB is in flight (the eighth of its sixteen slices held back, and
 * released while the truncation waits for the folios it covers): nothing
 * hangs, nothing leaks, no folio beyond the new EOF is left in the page
 * cache with old data (check 1), and a read afterwards returns the 100000
 * bytes, byte for byte.
 */
static void truncate_during_readahead(struct kunit *test)
{
	static const struct nk_scenario held = {
		.name = "held",
		.size = SZ_1M,
		.server = { .rsize = SZ_16K, .hold = 8 },
		.expect = { NK_ANY_CALLS },
	};
	u8 *scratch = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct nk_job *job;
	struct nk_env *env;
	struct file *file;

	KUNIT_ASSERT_NOT_NULL(test, scratch);
	env = nk_env_create(test, &held, NK_CTX_WORKQUEUE, NK_FOLIOS_LARGE);
	KUNIT_ASSERT_NOT_NULL(test, env);
	env->concurrent = true;
	file = nk_new_file(env, held.size);
	if (IS_ERR(file)) {
		nk_env_destroy(env);
		return;
	}
	job = nk_job_new(env, file, NK_OP_READAHEAD, 0, SZ_256K);
	if (!nk_run_one(env, job))
		goto out;
	nk_job_free(job);
	nk_check(env, env->held, "issue_read call 8 was not made");

	/*
	 * The truncation lets the held slice go 50 ms after it began:
	 * truncate_setsize() waits for the folios that slice covers.
	 */
	job = nk_job_new(env, file, NK_OP_TRUNCATE, 100000, 0);
	if (!nk_run_one(env, job))
		goto out;
	nk_check(env, READ_ONCE(env->released),
		 "the truncation returned before the folios being read were");
	nk_job_free(job);
	KUNIT_EXPECT_EQ(test, i_size_read(file_inode(file)), 100000);

	job = nk_job_new(env, file, NK_OP_READ, 0, SZ_256K);
	if (!nk_run_one(env, job))
		goto out;
	nk_check(env, job->ret == 100000,
		 "kernel_read after the truncation returned %ld, expected 100000",
		 job->ret);
	if (job->ret > 0)
		nk_compare(env, NK_I(file_inode(file)), "kernel_read buffer", 0,
			   job->buf, job->ret, scratch, true);
	nk_job_free(job);
out:
	nk_finish(env, scratch);
}

static struct kunit_case netfs_concurrency_cases[] = {
	KUNIT_CASE(many_requests),
	KUNIT_CASE(two_readers),
	KUNIT_CASE(readahead_vs_read_folio),
	KUNIT_CASE(many_inodes),
	KUNIT_CASE(truncate_during_readahead),
	{}
};

static struct kunit_suite netfs_concurrency_suite = {
	.name = "netfs_concurrency",
	.suite_init = nk_suite_init,
	.suite_exit = nk_suite_exit,
	.test_cases = netfs_concurrency_cases,
};

kunit_test_suites(&netfs_concurrency_suite);
