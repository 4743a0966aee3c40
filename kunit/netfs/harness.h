/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * netfs KUnit harness, private to kunit/netfs: the state of one case and
 * the functions the role files offer each other.  The suites' files see
 * only netfs_kunit.h (the scenario language) and, for table-less cases,
 * this header.
 *
 * Who owns what:
 *   report.c       the failure reports (nk_fail())
 *   pattern.c      the file content (a position-dependent pattern)
 *   folios.c       byte ranges, and the page cache as the harness walks it
 *   io.c           the fakes' call records and completions, and the
 *                  waits that watch them (the watchdog)
 *   crypt.c        what the server stores; content encryption, and the
 *                  decrypt hook
 *   fake_cache.c   the netfs_cache_ops and the cache's store
 *   fake_server.c  the netfs_request_ops
 *   testfs.c       the test filesystem and the per-case environment
 *   checks.c       the invariant checks run after an operation
 *   runner.c       the operations as jobs in threads, the table runner
 *
 * Each file uses only those above it in this list.
 *
 * The fakes never report a failure themselves: they may run after the
 * case ended (a request that completes late), so they count what they saw
 * in the environment, and checks.c reports it.
 */
#ifndef _NETFS_KUNIT_HARNESS_H
#define _NETFS_KUNIT_HARNESS_H

#include <linux/fscache.h>
#include <linux/math64.h>
#include <linux/netfs.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/uio.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "netfs_kunit.h"

struct crypto_sync_skcipher;

#define NK_ALT_ID	1000		/* content of writes and of stale caches */
#define NK_MAX_CALLS	1200		/* calls recorded */
#define NK_CALL_LIMIT	1100		/* calls served before failing them */
#define NK_MAX_FILES	8
/*
 * Waits (for an operation to return, for the helper to go quiet) give up
 * after this long without progress, that is with no counter the wait
 * watches changing; not after this long in all, so a slow guest that is
 * still completing I/O is never cut short.
 */
#define NK_STALL_MS	5000
/* How long a synchronous operation's held call is held */
#define NK_HOLD_MS	200

/*
 * The harness's one generator, splitmix64: the pattern's tile is made
 * with it, netfs_random draws its scenarios and netfs_races its
 * operations with it, and server.mix takes one step of it as a hash of a
 * call's number.  Any seed is a good one.
 */
struct nk_rng {
	u64 s;
};

static inline u64 nk_rand(struct nk_rng *r)
{
	u64 z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A number in [0, n) (0 if n is 0) */
static inline u64 nk_below(struct nk_rng *r, u64 n)
{
	u64 rem;

	if (!n)
		return 0;
	div64_u64_rem(nk_rand(r), n, &rem);
	return rem;
}

enum nk_call_op {
	NK_CALL_ISSUE,
	NK_CALL_CACHE_READ,
	NK_CALL_CACHE_WRITE,
};

/* One call a fake received, in the order received */
struct nk_call {
	enum nk_call_op op;
	unsigned int rreq;		/* the request's debug_id */
	loff_t start;
	size_t len;
	size_t done;			/* issue_read: subreq->transferred */
	enum netfs_read_from_hole read_hole;	/* cache read */
};

/* Per-request records, kept until the end of the case */
struct nk_rreq {
	struct list_head link;
	unsigned int debug_id;
	enum netfs_io_origin origin;
	loff_t i_size;
	loff_t start, end;		/* at free_request */
	atomic_t nr_free;
	atomic_t nr_done;
	atomic_t nr_ended;		/* end_operation of its cache resources */
	bool cache_began;		/* begin_cache_operation installed the cache */
};

/* What the fakes count; checks.c compares it with the scenario */
struct nk_counts {
	unsigned int issue, cread, cwrite;	/* calls, under nk_env.lock */
	atomic_t init, free;		/* init_request, free_request */
	atomic_t began, ended;		/* cache installed, end_operation */
	atomic_t cwb;			/* check_write_begin */
	atomic_t clamps;		/* clamp_length */
	atomic_t prepares;		/* cache prepare_read */
	atomic_t inflight;		/* deferred completions not yet run */
	atomic_t violations;		/* calls after the request ended... */
	atomic_t unmarked;		/* cache writes without PG_fscache */
	atomic_t done_early;		/* done with a folio still locked */
	atomic_t hole_reads;		/* cache reads of what it does not hold */
	atomic_t dirty_slices;		/* prepare_read of a slice with flags */
	atomic_t occupancy;		/* query_occupancy calls */
	atomic_t decrypts;		/* decrypt hook calls... */
	atomic_t bad_decrypts;		/* ...of a partial block, or atomic */
	atomic_t early;			/* ...with a folio uptodate too soon */
};

struct nk_env {
	struct kunit *test;
	const struct nk_scenario *sc;	/* &scenario */
	/*
	 * The case's copy of its scenario: an environment left behind is read
	 * by late completions after its caller has gone.
	 */
	struct nk_scenario scenario;
	enum nk_ctx ctx;
	enum nk_folios folios;
	struct vfsmount *mnt;
	struct workqueue_struct *wq;
	struct file *files[NK_MAX_FILES];
	unsigned int nr_files;
	bool concurrent;		/* other threads may lock folios too */
	bool in_pre;			/* running the scenario's pre readahead */
	bool broken;			/* leave everything: teardown could hang */
	bool bench;			/* no added delays */
	bool unlimited;			/* no NK_CALL_LIMIT: many requests */
	/* netfs_bench's profile of inline reads: where the time goes, in ns */
	struct {
		bool on;
		u64 readahead;		/* in netfs_readahead() */
		u64 issue;		/* in the fake server's issue_read... */
		u64 terminated;		/* ...and its netfs_subreq_terminated() */
	} prof;

	spinlock_t lock;		/* protects rreqs and the call records */
	struct list_head rreqs;
	struct nk_call *calls;
	unsigned int nr_calls;
	bool overflow;			/* more than NK_CALL_LIMIT calls */
	struct nk_counts n;
	unsigned int leftover;		/* folios ->readahead did not take */
	struct xarray buffers;		/* bounce folios seen (crypt.c), held */
	struct nk_range folio_range;	/* the folio NK_OP_READ_FOLIO made */
	struct nk_range pre_left;	/* the span a failed pre left not uptodate */
	bool have_stats;		/* netfs_stats_show() gives rr= and sr= */
	int stat_rreq, stat_sreq;	/* their values before the scenario */
	struct nk_io *held;		/* the issue_read server.hold keeps back */
	struct nk_range held_range;	/* its subrequest */
	bool released;			/* the held call has completed */
	unsigned int release_ms;	/* nk_release_held_later()'s delay */
	struct delayed_work release_work;	/* nk_release_held_later() */
#if IS_ENABLED(CONFIG_FSCACHE)
	struct fscache_cookie cookie;	/* cache.cookie: reads as enabled */
#endif
};

struct nk_inode {
	struct netfs_inode netfs;
	struct nk_env *env;
	unsigned int id;
	loff_t content;			/* bytes below this hold the pattern */
	struct nk_range overlay;	/* bytes written by the test */
	struct nk_range writing;	/* what a write of the test is writing */
	loff_t floor;			/* lowest content ever (nk_set_content()) */
	struct nk_range zeros;		/* the server's file is sparse here */
	/*
	 * The fake cache: page index -> a page of data, or NK_HOLE for a page
	 * it reports as held (prepare_read) but holds as a hole
	 */
	struct xarray store;
	bool stale;
	struct crypto_sync_skcipher *tfm;	/* sc->crypt: the file's key */
};

#define NK_HOLE		xa_mk_value(0)

/*
 * One call's completion (io.c): what completes it, and the result.
 * complete() runs with was_async true in softirq context.
 */
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
	u8 *data;				/* server read: nk_stored() */
};

static inline struct nk_inode *NK_I(struct inode *inode)
{
	return container_of(inode, struct nk_inode, netfs.inode);
}

/* report.c */
__printf(2, 3) void nk_fail(struct nk_env *env, const char *fmt, ...);
#define nk_check(env, cond, fmt, ...)					\
	do {								\
		if (!(cond))						\
			nk_fail(env, fmt, ##__VA_ARGS__);		\
	} while (0)
unsigned int nk_failures(void);

/* pattern.c */
void nk_init_pattern(void);
unsigned int nk_new_id(void);
const u8 *nk_pattern(unsigned int id, loff_t pos);
#define NK_PATTERN_RUN	SZ_64K	/* nk_pattern() is contiguous this far */
size_t nk_content_run(struct nk_inode *ni, loff_t pos, size_t max,
		      const u8 **src);
void nk_expected(struct nk_inode *ni, loff_t pos, u8 *buf, size_t n,
		 bool written);
bool nk_compare(struct nk_env *env, struct nk_inode *ni, const char *what,
		loff_t pos, const u8 *data, size_t n, u8 *scratch, bool written);
void nk_set_content(struct nk_inode *ni, loff_t content);

/* folios.c */
bool nk_in_range(const struct nk_range *r, loff_t start, loff_t end);
void nk_expand(loff_t *start, size_t *len, size_t block, unsigned int how);
void nk_walk_folios(struct address_space *mapping, loff_t start, loff_t end,
		    bool (*fn)(struct folio *folio, void *arg), void *arg);
void nk_note_pre_left(struct nk_env *env, struct file *file);
void nk_drain_lru(void);

/* io.c */
unsigned int nk_record(struct nk_env *env, enum nk_call_op op, unsigned int rreq,
		       loff_t start, size_t len, size_t done,
		       enum netfs_read_from_hole read_hole);
const struct nk_fault *nk_find_fault(const struct nk_fault *faults,
				     unsigned int n);
int nk_complete(struct nk_env *env, unsigned int n, const struct nk_io *how);
void nk_release_held(struct nk_env *env);
void nk_release_held_work(struct work_struct *work);
void nk_release_held_later(struct nk_env *env, unsigned int ms);
bool nk_netfs_stats(int *rreq, int *sreq);
void nk_progress(struct nk_env *env, int now[8]);
bool nk_wait(struct nk_env *env,
	     bool (*until)(struct nk_env *env, const int *now, void *arg),
	     void *arg, int now[8]);
bool nk_quiesce(struct nk_env *env);

/* crypt.c */
int nk_crypt_file(struct nk_inode *ni);
loff_t nk_stored_end(struct nk_inode *ni);
int nk_stored(struct nk_inode *ni, loff_t pos, u8 *buf, size_t n, bool served);
void nk_check_stored(struct nk_env *env, struct nk_inode *ni);
void nk_note_buffer(struct nk_env *env, const struct iov_iter *iter, size_t n);
void nk_check_buffers(struct nk_env *env, bool check);
#ifdef CONFIG_NETFS_CONTENT_CRYPTO
extern const struct netfs_crypto_ops nk_crypto_ops;
#endif

/* fake_server.c */
extern const struct netfs_request_ops nk_netfs_ops;
extern const struct netfs_request_ops nk_netfs_ops_nocache;

/* fake_cache.c */
extern const struct netfs_cache_ops nk_cache_ops;
bool nk_held(struct nk_inode *ni, loff_t pos);
int nk_cache_fill(struct nk_inode *ni, loff_t start, loff_t len, bool junk);
int nk_cache_setup(struct nk_inode *ni, const struct nk_cache *cs);
void nk_cache_resize(struct nk_inode *ni, loff_t size);

/* testfs.c */
struct nk_env *nk_env_create(struct kunit *test, const struct nk_scenario *sc,
			     enum nk_ctx ctx, enum nk_folios folios);
struct file *nk_new_file(struct nk_env *env, loff_t size);
void nk_reset_records(struct nk_env *env);
void nk_env_destroy(struct nk_env *env);

/* checks.c */
void nk_check_all(struct nk_env *env, u8 *scratch);
bool nk_check_folios_released(struct nk_env *env, struct file *file,
			      const char *when);
void nk_check_progress(struct nk_env *env, struct file *file, loff_t pos,
		       size_t len);

/* runner.c */
/**
 * struct nk_job - one operation, run in a thread of its own
 * @env: the environment
 * @file: the file it works on
 * @op: what it does (NK_OP_*)
 * @pos: where
 * @len: how much
 * @folios: the folio size it makes (NK_OP_READAHEAD, NK_OP_READ_FOLIO)
 * @ret: what it returned
 * @buf: for NK_OP_READ, what it read (kvmalloc'd, freed by nk_job_free())
 * @fail_nth: if not 0, the job's thread fails its allocation of this
 *	number (current->fail_nth, CONFIG_FAULT_INJECTION); afterwards, what
 *	was left of the count: 0 if the failure was injected
 * @fn: if set, what the job does instead of @op (nk_job_fn())
 * @priv: @fn's own data
 * @name: @fn's name, for a report that it did not return
 */
struct nk_job {
	struct nk_env *env;
	struct file *file;
	enum nk_op op;
	loff_t pos;
	size_t len;
	enum nk_folios folios;
	long ret;
	u8 *buf;
	unsigned int fail_nth;
	long (*fn)(struct nk_job *job);
	void *priv;
	const char *name;
	/* private to runner.c */
	struct completion done;
};

long nk_do_job(struct nk_job *job);
bool nk_run_jobs(struct nk_env *env, struct nk_job **jobs, unsigned int n);
struct nk_job *nk_job_new(struct nk_env *env, struct file *file,
			  enum nk_op op, loff_t pos, size_t len);
struct nk_job *nk_job_fn(struct nk_env *env, struct file *file,
			 long (*fn)(struct nk_job *job), void *priv,
			 const char *name);
void nk_job_free(struct nk_job *job);
bool nk_run_op(struct nk_env *env, struct file *file, enum nk_op op,
	       loff_t pos, size_t len, enum nk_folios folios);
void nk_finish(struct nk_env *env, u8 *scratch);
void nk_run(struct kunit *test, const struct nk_scenario *sc,
	    enum nk_ctx ctx, enum nk_folios folios);

#endif /* _NETFS_KUNIT_HARNESS_H */
