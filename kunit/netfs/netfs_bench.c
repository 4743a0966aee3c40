// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs_bench: how fast the netfs read helpers get a file into the page
 * cache, on the harness's fake server (which copies the file's pattern,
 * nothing else) and fake cache.  Built only into the benchmark kernel
 * (CONFIG_NETFS_KUNIT_BENCH, tools/bench.kunitconfig, no sanitizers) and
 * run by `make bench` on both trees, which compares the figures; nothing
 * here asserts a speed.  Each figure is one line in the log:
 *
 *	netfs-bench: <what>: <value> <unit>
 *
 * read/...	kernel_read() of a 64 MiB file with a cold page cache, by
 *		rsize, folio size and completion context: MiB/s, best of 5;
 *		"ceiling" is memcpy() of the same bytes twice (server to page
 *		cache, page cache to reader), the two copies a read makes.
 * cache/...	the same read served by the fake cache, and downloaded with
 *		a copy to the cache.
 * latency/...	a 4 MiB readahead in 16 slices completing 20 ms apart
 *		(workqueue): time to the first folio and to the last being
 *		uptodate and unlocked, best of 3.
 * sreq/...	one readahead request, inline completion, as its slices grow
 *		from 16 to 16384: rsize shrinking over 64 MiB (the request's
 *		time, and what each slice beyond the first 16 added to it),
 *		then 16 KiB slices over windows up to 256 MiB (ns per slice,
 *		including its four folios' share of building the window).
 *
 * With netfs_kunit.bench_profile=1 (make bench VERBOSE=1), each inline
 * read row with an rsize also says where its time went, in ns per slice
 * over all its runs: .../submit (in netfs_readahead(), less the fake
 * server's issue_read), .../end (in netfs_subreq_terminated()), .../fake
 * (the fake server's own work: recording the call, copying the data) and
 * .../vm (the rest of kernel_read(): the page cache, readahead's folios,
 * the copy out).  Only the first two are the library's.
 */

#include <linux/ktime.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "harness.h"

#define NB_FILE		SZ_64M
#define NB_CHUNK	SZ_1M	/* kernel_read() size */
#define NB_RUNS		5

static bool bench_profile;
module_param(bench_profile, bool, 0444);
MODULE_PARM_DESC(bench_profile,
		 "Print where the inline read rows' time goes (ns per slice)");

struct nb_env {
	struct nk_env *env;
	struct file *file;
};

/*
 * An environment with one file of @size, scripted by @sc; NULL (the case
 * has failed) if it cannot be made.
 */
static struct nb_env *nb_setup(struct kunit *test, const struct nk_scenario *sc,
			       enum nk_ctx ctx, enum nk_folios folios, loff_t size)
{
	struct nb_env *nb = kunit_kzalloc(test, sizeof(*nb), GFP_KERNEL);

	if (!nb) {
		KUNIT_FAIL(test, "no memory");
		return NULL;
	}
	nb->env = nk_env_create(test, sc, ctx, folios);
	if (!nb->env)
		return NULL;
	nb->env->bench = true;
	nb->env->unlimited = true;
	nb->file = nk_new_file(nb->env, size);
	if (IS_ERR(nb->file)) {
		nk_env_destroy(nb->env);
		return NULL;
	}
	return nb;
}

static void nb_teardown(struct nb_env *nb)
{
	nk_env_destroy(nb->env);
}

/* Drop the page cache and, if asked, the fake cache's store. */
static void nb_cold(struct nb_env *nb, bool empty_store)
{
	struct nk_inode *ni = NK_I(file_inode(nb->file));
	unsigned long index;
	void *page;

	nk_quiesce(nb->env);
	truncate_inode_pages(nb->file->f_mapping, 0);
	if (!empty_store)
		return;
	xa_for_each(&ni->store, index, page) {
		xa_erase_bh(&ni->store, index);
		kfree(page);
	}
}

static u64 nb_mibps(u64 bytes, u64 ns)
{
	return ns ? div64_u64(bytes * NSEC_PER_SEC, ns) >> 20 : 0;
}

static void nb_print(struct kunit *test, const char *what, u64 value,
		     const char *unit)
{
	kunit_info(test, "netfs-bench: %s: %llu %s\n", what, value, unit);
}

/* Best of NB_RUNS cold kernel_read()s of the whole file: MiB/s */
static u64 nb_read(struct kunit *test, struct nb_env *nb, bool empty_store,
		   const char *profile, size_t rsize)
{
	struct nk_env *env = nb->env;
	u64 best = U64_MAX, total = 0;
	void *buf = vmalloc(NB_CHUNK);
	int run;

	if (!buf) {
		KUNIT_FAIL(test, "no memory");
		return 0;
	}
	/* only inline reads run all their library work in this thread */
	memset(&env->prof, 0, sizeof(env->prof));
	env->prof.on = bench_profile && profile && rsize &&
		       env->ctx == NK_CTX_INLINE;
	for (run = 0; run < NB_RUNS; run++) {
		loff_t pos = 0;
		u64 t;

		nb_cold(nb, empty_store);
		t = ktime_get_ns();
		while (pos < NB_FILE) {
			ssize_t n = kernel_read(nb->file, buf, NB_CHUNK, &pos);

			if (n <= 0) {
				KUNIT_FAIL(test, "kernel_read at %lld: %zd", pos, n);
				break;
			}
		}
		t = ktime_get_ns() - t;
		best = min(best, t);
		total += t;
	}
	vfree(buf);
	nk_quiesce(nb->env);
	if (env->prof.on) {
		u64 n = NB_RUNS * (NB_FILE / rsize);
		char what[80];

		env->prof.on = false;
		snprintf(what, sizeof(what), "%s/submit", profile);
		nb_print(test, what, div64_u64(env->prof.readahead -
					       env->prof.issue, n), "ns");
		snprintf(what, sizeof(what), "%s/end", profile);
		nb_print(test, what, div64_u64(env->prof.terminated, n), "ns");
		snprintf(what, sizeof(what), "%s/fake", profile);
		nb_print(test, what, div64_u64(env->prof.issue -
					       env->prof.terminated, n), "ns");
		snprintf(what, sizeof(what), "%s/vm", profile);
		nb_print(test, what, div64_u64(total - env->prof.readahead, n),
			 "ns");
	}
	return nb_mibps(NB_FILE, best);
}

static void netfs_bench_ceiling(struct kunit *test)
{
	u8 *pc = vmalloc(NB_FILE), *buf = vmalloc(NB_CHUNK);
	u64 best = U64_MAX;
	int run;
	loff_t p;

	for (run = 0; run < NB_RUNS && pc && buf; run++) {
		u64 t = ktime_get_ns();

		for (p = 0; p < NB_FILE; p += NK_PATTERN_RUN)
			memcpy(pc + p, nk_pattern(1, p), NK_PATTERN_RUN);
		for (p = 0; p < NB_FILE; p += NB_CHUNK)
			memcpy(buf, pc + p, NB_CHUNK);
		best = min(best, ktime_get_ns() - t);
	}
	if (pc && buf)
		nb_print(test, "read/ceiling", nb_mibps(NB_FILE, best), "MiB/s");
	else
		KUNIT_FAIL(test, "no memory");
	vfree(buf);
	vfree(pc);
}

static const char * const nb_folio_names[] = { "order0", "large" };
static const char * const nb_ctx_names[] = { "inline", "workqueue" };

static void netfs_bench_read(struct kunit *test)
{
	static const size_t rsizes[] = { SZ_4K, SZ_64K, SZ_1M, 0 };
	char what[64];
	int r, f, c;

	for (r = 0; r < ARRAY_SIZE(rsizes); r++)
		for (f = 0; f < NK_NR_FOLIOS; f++)
			for (c = 0; c < ARRAY_SIZE(nb_ctx_names); c++) {
				struct nk_scenario sc = {
					.name = "bench", .size = NB_FILE,
					.server = { .rsize = rsizes[r] },
					.cache = { .absent = true },
				};
				struct nb_env *nb = nb_setup(test, &sc, c, f, NB_FILE);

				if (!nb)
					return;

				snprintf(what, sizeof(what), "read/rsize-%zuk/%s/%s",
					 rsizes[r] >> 10, nb_folio_names[f],
					 nb_ctx_names[c]);
				if (!rsizes[r])
					snprintf(what, sizeof(what), "read/rsize-any/%s/%s",
						 nb_folio_names[f], nb_ctx_names[c]);
				nb_print(test, what,
					 nb_read(test, nb, false, what, rsizes[r]),
					 "MiB/s");
				nb_teardown(nb);
			}
}

static void netfs_bench_cache(struct kunit *test)
{
	struct nk_scenario sc = {
		.name = "bench", .size = NB_FILE,
		.server = { .rsize = SZ_1M }, .cache = { .on = true },
	};
	struct nb_env *nb;
	int f;

	for (f = 0; f < NK_NR_FOLIOS; f++) {
		char what[64];

		nb = nb_setup(test, &sc, NK_CTX_INLINE, f, NB_FILE);
		if (!nb)
			return;
		snprintf(what, sizeof(what), "cache/copy-to-cache/%s",
			 nb_folio_names[f]);
		nb_print(test, what, nb_read(test, nb, true, NULL, 0), "MiB/s");
		snprintf(what, sizeof(what), "cache/from-cache/%s",
			 nb_folio_names[f]);
		if (nk_cache_fill(NK_I(file_inode(nb->file)), 0, NB_FILE, false))
			KUNIT_FAIL(test, "%s: cannot fill the cache", what);
		else
			nb_print(test, what, nb_read(test, nb, false, NULL, 0), "MiB/s");
		nb_teardown(nb);
	}
}

/* The folio at @pos, once it is uptodate and unlocked: ns since @t0 */
static u64 nb_folio_ready(struct nb_env *nb, loff_t pos, u64 t0)
{
	struct folio *folio = filemap_get_folio(nb->file->f_mapping,
						pos >> PAGE_SHIFT);

	if (!folio)
		return 0;
	folio_wait_locked(folio);
	folio_put(folio);
	return ktime_get_ns() - t0;
}

static void netfs_bench_latency(struct kunit *test)
{
	struct nk_scenario sc = {
		.name = "bench", .size = SZ_4M,
		.server = { .rsize = SZ_256K, .pace_ms = 20 },
		.cache = { .absent = true },
	};
	int f, run;

	for (f = 0; f < NK_NR_FOLIOS; f++) {
		struct nb_env *nb = nb_setup(test, &sc, NK_CTX_WORKQUEUE, f, SZ_4M);
		u64 first = U64_MAX, last = U64_MAX;
		char what[64];

		if (!nb)
			return;

		for (run = 0; run < 3; run++) {
			struct nk_job job = { .env = nb->env, .file = nb->file,
					      .op = NK_OP_READAHEAD, .len = SZ_4M,
					      .folios = f };
			u64 t0;

			nb_cold(nb, false);
			t0 = ktime_get_ns();
			KUNIT_EXPECT_EQ(test, nk_do_job(&job), 0);
			first = min(first, nb_folio_ready(nb, 0, t0));
			last = min(last, nb_folio_ready(nb, SZ_4M - 1, t0));
		}
		nk_quiesce(nb->env);
		snprintf(what, sizeof(what), "latency/first-folio/%s",
			 nb_folio_names[f]);
		nb_print(test, what, div_u64(first, NSEC_PER_USEC), "us");
		snprintf(what, sizeof(what), "latency/last-folio/%s",
			 nb_folio_names[f]);
		nb_print(test, what, div_u64(last, NSEC_PER_USEC), "us");
		nb_teardown(nb);
	}
}

/* One readahead request of @len in slices of @rsize: ns, best of 3 */
static u64 nb_one_request(struct kunit *test, loff_t len, size_t rsize)
{
	struct nk_scenario sc = {
		.name = "bench", .size = len,
		.server = { .rsize = rsize }, .cache = { .absent = true },
	};
	struct nb_env *nb = nb_setup(test, &sc, NK_CTX_INLINE, NK_FOLIOS_SMALL,
				     len);
	struct nk_job job = { .op = NK_OP_READAHEAD, .len = len,
			      .folios = NK_FOLIOS_SMALL };
	u64 best = U64_MAX;
	int run;

	if (!nb)
		return 0;
	job.env = nb->env;
	job.file = nb->file;

	for (run = 0; run < 3; run++) {
		u64 t;

		nb_cold(nb, false);
		t = ktime_get_ns();
		KUNIT_EXPECT_EQ(test, nk_do_job(&job), 0);
		best = min(best, ktime_get_ns() - t);
	}
	nb_cold(nb, false);
	nb_teardown(nb);
	return best;
}

static void netfs_bench_sreq(struct kunit *test)
{
	u64 base = 0, t;
	char what[64];
	int n;

	/* the window is the same: what grows with the slices is their cost */
	for (n = 16; n <= 16384; n *= 4) {
		t = nb_one_request(test, SZ_64M, SZ_64M / n);
		base = base ?: t;
		snprintf(what, sizeof(what), "sreq/64m-window/%d-slices", n);
		nb_print(test, what, div_u64(t, NSEC_PER_USEC), "us");
		snprintf(what, sizeof(what), "sreq/64m-window/%d-slices-extra", n);
		nb_print(test, what, t > base ? div_u64(t - base, n - 16) : 0,
			 "ns/slice");
	}
	for (n = 16; n <= 16384; n *= 4) {
		t = nb_one_request(test, (loff_t)n * SZ_16K, SZ_16K);
		snprintf(what, sizeof(what), "sreq/16k-slices/%d-slices", n);
		nb_print(test, what, div_u64(t, n), "ns/slice");
	}
}

static struct kunit_case netfs_bench_cases[] = {
	KUNIT_CASE(netfs_bench_ceiling),
	KUNIT_CASE(netfs_bench_read),
	KUNIT_CASE(netfs_bench_cache),
	KUNIT_CASE(netfs_bench_latency),
	KUNIT_CASE(netfs_bench_sreq),
	{}
};

static struct kunit_suite netfs_bench_suite = {
	.name = "netfs_bench",
	.suite_init = nk_suite_init,
	.suite_exit = nk_suite_exit,
	.test_cases = netfs_bench_cases,
};

kunit_test_suites(&netfs_bench_suite);
