/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * netfs KUnit suites: the scenario language of the suites' tables.
 *
 * The harness is a test filesystem with a real page cache whose inodes
 * use the netfs read helpers, a scripted fake server (the
 * netfs_request_ops), a fake cache (the netfs_cache_ops) and the
 * invariant checks run after every scenario (see harness.h for which file
 * owns what).
 *
 * A scenario is one table entry (struct nk_scenario): the file, the
 * operation, what the server and the cache do, and what must be seen
 * afterwards.  Every scenario runs for each folio size it allows and every
 * completion context (see nk_gen_params()).  The contract the checks
 * enforce is described in docs/netfs-contract.md of the netfs-kunit
 * project.
 */
#ifndef _NETFS_KUNIT_H
#define _NETFS_KUNIT_H

#include <kunit/test.h>
#include <linux/netfs.h>

/* How the fakes complete the I/O they are given */
enum nk_ctx {
	NK_CTX_INLINE,		/* inside the issuing call, was_async = false */
	NK_CTX_WORKQUEUE,	/* from a work item, was_async = false */
	NK_CTX_SOFTIRQ,		/* from a timer, was_async = true */
	NK_NR_CTX
};

/* Folio sizes of the page cache */
enum nk_folios {
	NK_FOLIOS_SMALL,	/* order-0 folios only */
	NK_FOLIOS_LARGE,	/* large folios allowed and used */
	NK_NR_FOLIOS
};

#define NK_ONLY(x)	(1U << (x))	/* for nk_scenario.folios */

/* What a scripted fault does to the call it hits */
enum nk_fault_kind {
	NK_FAULT_NONE,
	NK_FAULT_ERROR,		/* fail the call with the error in .value */
	NK_FAULT_SHORT,		/* transfer only .value bytes */
	NK_FAULT_ZERO,		/* transfer nothing */
	NK_FAULT_CLEAR_TAIL,	/* the server's file ends early (see below) */
	NK_FAULT_OVER,		/* transfer all asked, report .value bytes more */
};

/**
 * struct nk_fault - one scripted fault
 * @call: number (from 1) of the issue_read or cache read call it hits
 * @kind: what happens to that call
 * @value: the error or the number of bytes, depending on @kind
 *
 * NK_FAULT_CLEAR_TAIL: the server's file has been cut .value bytes past
 * the call's position without the client knowing (i_size unchanged); the
 * call reads up to there and sets NETFS_SREQ_CLEAR_TAIL, and from then on
 * the file's content ends there.
 */
struct nk_fault {
	unsigned int call;
	enum nk_fault_kind kind;
	long value;
};

/* The faults, by kind, for the tables: the n-th call... */
#define NK_ERROR(n, err)	{ .call = (n), .kind = NK_FAULT_ERROR, .value = (err) }
#define NK_SHORT(n, bytes)	{ .call = (n), .kind = NK_FAULT_SHORT, .value = (bytes) }
#define NK_ZERO(n)		{ .call = (n), .kind = NK_FAULT_ZERO }
#define NK_CLEAR_TAIL(n, bytes)	{ .call = (n), .kind = NK_FAULT_CLEAR_TAIL, .value = (bytes) }
#define NK_OVER(n, bytes)	{ .call = (n), .kind = NK_FAULT_OVER, .value = (bytes) }

#define NK_MAX_FAULTS	4
#define NK_MAX_RANGES	4
#define NK_MAX_EXP	16

/* Which ends of a request an expand_readahead moves */
#define NK_EXPAND_START	BIT(0)
#define NK_EXPAND_END	BIT(1)
#define NK_EXPAND_BOTH	(NK_EXPAND_START | NK_EXPAND_END)

/**
 * struct nk_range - a byte range
 * @start: first byte
 * @len: length in bytes (0: no range)
 */
struct nk_range {
	loff_t start;
	loff_t len;
};

#define NK_RANGE(s, l)		{ .start = (s), .len = (l) }

/**
 * struct nk_call_exp - an expected server or cache call
 * @start: file position of the call (for issue_read: subreq->start)
 * @len: length (for issue_read: subreq->len)
 * @done: for issue_read, subreq->transferred when it was issued
 */
struct nk_call_exp {
	loff_t start;
	size_t len;
	size_t done;
};

/* An issue_read of [s, s + l), first issued, or reissued after d bytes */
#define NK_CALL(s, l)		{ .start = (s), .len = (l) }
#define NK_CALL_DONE(s, l, d)	{ .start = (s), .len = (l), .done = (d) }

/**
 * struct nk_server - script of the fake server (netfs_request_ops)
 * @rsize: clamp_length cuts every download to this size (0: no clamp)
 * @step: every issue_read transfers at most this much (0: no limit)
 * @expand: expand_readahead aligns requests to this block (0: no expansion)
 * @expand_how: which ends expand_readahead moves (NK_EXPAND_*)
 * @clear_tail: set NETFS_SREQ_CLEAR_TAIL when a read stops at the server's EOF
 * @resize_at: issue_read call (from 1) at which the file shrinks or grows...
 * @resize_to: ...to this size (server content, i_size, remote_i_size and
 *	what the cache holds)
 * @init_error: init_request returns this
 * @cwb_error: check_write_begin returns this
 * @cwb_regrab: check_write_begin drops the folio (and returns 0) on its first
 *	this many calls, which makes write_begin grab it again
 * @cwb_drop: with @cwb_error, check_write_begin also unlocks and puts the
 *	folio and sets *foliop = NULL before failing (ceph does)
 * @clamp_fail: clamp_length returns false on its call of this number
 * @hold: issue_read call (from 1) whose completion is held back: for
 *	NK_OP_READAHEAD until the runner has checked that the rest of the
 *	window completed without it, for a synchronous operation for
 *	NK_HOLD_MS, and the operation must not return before then
 * @pace_ms: a request's n-th slice (from 1) completes n * @pace_ms after
 *	it was issued (benchmarks: slices that end one after another;
 *	workqueue only)
 * @mix: if not 0, every call of the server and of the cache completes in
 *	a context and after a delay (0-2 jiffies) drawn from @mix and the
 *	call's number, instead of the case's context (random schedules)
 * @faults: faults injected into issue_read calls
 */
struct nk_server {
	size_t rsize;
	size_t step;
	size_t expand;
	unsigned int expand_how;
	bool clear_tail;
	unsigned int resize_at;
	loff_t resize_to;
	int init_error;
	int cwb_error;
	unsigned int cwb_regrab;
	bool cwb_drop;
	unsigned int clamp_fail;
	unsigned int hold;
	unsigned int pace_ms;
	u32 mix;
	struct nk_fault faults[NK_MAX_FAULTS];
};

/**
 * struct nk_cache - script of the fake cache (netfs_cache_ops)
 * @on: begin_cache_operation installs the fake cache
 * @begin_error: begin_cache_operation returns this (and installs nothing)
 * @granule: prepare_read never lets a slice cross a granule boundary and
 *	the cache's expand_readahead rounds to it (0: page)
 * @expand_how: which ends the cache's expand_readahead moves (NK_EXPAND_*)
 * @held: what the cache holds before the scenario (file content)
 * @stale: is_still_valid() returns false; the cache holds wrong data
 * @no_copy: prepare_read never asks for NETFS_SREQ_COPY_TO_CACHE
 * @prepare_write_error: prepare_write returns this (cachefiles: -ENOBUFS)
 * @prepare_read_invalid: prepare_read returns NETFS_INVALID_READ on its call
 *	of this number (cachefiles: a failed on-demand read)
 * @cookie: the inode has an fscache cookie that reads as enabled, so that
 *	write_begin reads through the cache (skipped without CONFIG_FSCACHE)
 * @write_error: every write completes with this error, storing nothing
 * @faults: faults injected into cache read calls
 * @hole: the server's file reads as zeroes here, and the cache holds these
 *	pages as a hole inside what it reports as held (whole pages, inside
 *	@held).  A read there with NETFS_READ_HOLE_IGNORE stops short at the
 *	hole, with NETFS_READ_HOLE_CLEAR reads zeroes, and with
 *	NETFS_READ_HOLE_FAIL fails with -ENODATA (stops short if it read
 *	something first), as cachefiles does on a sparse backing file.
 * @absent: the netfs has no begin_cache_operation at all
 */
struct nk_cache {
	bool absent;
	bool on;
	int begin_error;
	size_t granule;
	unsigned int expand_how;
	struct nk_range held[NK_MAX_RANGES];
	bool stale;
	bool no_copy;
	int prepare_write_error;
	unsigned int prepare_read_invalid;
	bool cookie;
	int write_error;
	struct nk_fault faults[NK_MAX_FAULTS];
	struct nk_range hole;
};

/* The operation a scenario performs */
enum nk_op {
	NK_OP_READ,		/* kernel_read() of [pos, pos + len) */
	NK_OP_READAHEAD,	/* ->readahead() of a window of locked folios */
	NK_OP_READ_FOLIO,	/* ->read_folio() of a folio made at pos */
	NK_OP_CACHE_FOLIO,	/* read_cache_folio() of the page at pos */
	NK_OP_WRITE,		/* kernel_write() of [pos, pos + len) */
	NK_OP_TRUNCATE,		/* cut to pos, server too; frees a held call */
};

/* An expected count that is not checked (any other value is exact) */
#define NK_ANY		(-1)
/* None of nk_expect's call counts is checked */
#define NK_ANY_CALLS	.server_calls = NK_ANY, .cache_reads = NK_ANY, \
			.cache_writes = NK_ANY, .cwb_calls = NK_ANY

/**
 * struct nk_expect - what must be seen after a scenario
 * @error: the operation returns this error (0: it succeeds fully)
 * @result: for NK_OP_READ, the number of bytes returned if not the default
 *	(min(len, size - pos))
 * @server_calls: exact number of issue_read calls, or NK_ANY (not
 *	checked); left out, it is 0: none
 * @cache_reads: exact number of cache read calls (the same)
 * @cache_writes: exact number of cache write calls (the same)
 * @calls: the exact issue_read calls, in issue order (unused if empty)
 * @writes: the exact cache writes (start, len), in order (unused if empty)
 * @slices: every request's downloads are exactly its rsize slicing
 * @request: the single request covered exactly this range when it ended
 * @bad: folios overlapping this range are not uptodate (every other
 *	folio in the page cache is)
 * @cached: the cache holds at least this range afterwards
 * @readpage: a NETFS_READPAGE request was made (readahead's failure left
 *	the folio to read_folio)
 * @cwb_calls: exact number of check_write_begin calls (the same)
 * @may_fail: a fault was injected that the helper may not recover from,
 *	or the file changed under the operation: the operation may fail or
 *	(kernel_read) return fewer bytes, and folios may be left not
 *	uptodate; what it returns and what is uptodate must still be right.
 *	Bytes the file held at any time during the scenario count as right.
 */
struct nk_expect {
	int error;
	ssize_t result;
	int server_calls;
	int cache_reads;
	int cache_writes;
	struct nk_call_exp calls[NK_MAX_EXP];
	struct nk_range writes[NK_MAX_EXP];
	bool slices;
	struct nk_range request;
	struct nk_range bad;
	struct nk_range cached;
	bool readpage;
	int cwb_calls;
	bool may_fail;
};

/**
 * struct nk_scenario - one test scenario: a table entry
 * @name: name (used in the parameter description)
 * @size: file size
 * @op: the operation
 * @pos: where it starts
 * @len: its length
 * @twice: run the operation, drop the page cache, and run it again; the
 *	expectations apply to the second run
 * @pre: read this range ahead (order-0 folios) before the operation; its
 *	calls are not counted
 * @pre_failed: every download of @pre fails with -EIO, and @pre makes
 *	folios of the case's size: they are left in the page cache not
 *	uptodate, as a readahead that failed leaves them
 * @pre_ok: then read this range ahead too, in order-0 folios, with every
 *	download succeeding: folios the operation must leave alone; its
 *	calls are not counted either
 * @folios: folio sizes it runs with (mask of NK_ONLY(); 0: all)
 * @crypt: the file's content is encrypted in blocks of this size (0:
 *	plaintext): the server stores, and the cache may only hold, its
 *	ciphertext (crypt.c).  Skipped where the library has no content
 *	encryption.  expect.bad is rounded out to whole blocks.
 * @corrupt: the server's ciphertext of the blocks overlapping this range
 *	is corrupted: they fail to decrypt, with -EBADMSG
 * @server: the fake server's script
 * @cache: the fake cache's script
 * @expect: what must be seen
 */
struct nk_scenario {
	const char *name;
	loff_t size;
	enum nk_op op;
	loff_t pos;
	size_t len;
	bool twice;
	struct nk_range pre;
	bool pre_failed;
	struct nk_range pre_ok;
	unsigned int folios;
	size_t crypt;
	struct nk_range corrupt;
	struct nk_server server;
	struct nk_cache cache;
	struct nk_expect expect;
};

/**
 * struct nk_table - the scenarios of one suite
 * @scenarios: the entries
 * @count: how many
 */
struct nk_table {
	const struct nk_scenario *scenarios;
	unsigned int count;
};

const void *nk_gen_params(const struct nk_table *table, const void *prev,
			  char *desc);
void nk_run_param(struct kunit *test, const struct nk_table *table);
const struct nk_scenario *nk_param_scenario(const struct nk_table *table,
					    unsigned long param, enum nk_ctx *ctx,
					    enum nk_folios *folios);

int nk_suite_init(struct kunit_suite *suite);
void nk_suite_exit(struct kunit_suite *suite);

/**
 * NK_TABLE_SUITE - define a suite whose one case runs a scenario table
 * @table: the table is the array @table_scenarios; the case is @table_run
 * @suite_name: the suite's name
 *
 * The case is parameterised: every scenario crossed with every completion
 * context and every folio size it allows (nk_gen_params()), named
 * "<scenario>/<folios>/<context>".
 */
#define NK_TABLE_SUITE(table, suite_name)				\
	static const struct nk_table table##_table = {			\
		.scenarios = table##_scenarios,				\
		.count = ARRAY_SIZE(table##_scenarios),			\
	};								\
	static const void *table##_gen_params(const void *prev, char *desc) \
	{								\
		return nk_gen_params(&table##_table, prev, desc);	\
	}								\
	static void table##_run(struct kunit *test)			\
	{								\
		nk_run_param(test, &table##_table);			\
	}								\
	static struct kunit_case table##_cases[] = {			\
		KUNIT_CASE_PARAM(table##_run, table##_gen_params),	\
		{}							\
	};								\
	static struct kunit_suite table##_suite = {			\
		.name = suite_name,					\
		.suite_init = nk_suite_init,				\
		.suite_exit = nk_suite_exit,				\
		.test_cases = table##_cases,				\
	};								\
	kunit_test_suites(&table##_suite)

/* Shorthands for the tables */
#define PG		PAGE_SIZE
#define SMALL_ONLY	NK_ONLY(NK_FOLIOS_SMALL)

#endif /* _NETFS_KUNIT_H */
