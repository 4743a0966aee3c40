// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs_random: scenarios nobody wrote by hand.
 *
 * Each scenario is drawn from one seeded generator: the file (sizes from
 * 0 to several MiB, page multiples +-1, sizes around 4 GiB), the
 * operation, what the server does (rsize, short reads, faults on random
 * calls, a file that changes size, expansion), what the cache does (absent,
 * declined or on, what it holds, stale, faulty reads, failing writes,
 * granule), content encryption and its block size, each call's
 * completion context and delay (server.mix), and the folio size.  It
 * then runs like a table entry (nk_run()), with the checks
 * that hold for every scenario: a scenario with a fault the helper may not
 * recover from is marked may_fail, which lets the operation fail and
 * folios stay not uptodate, and nothing else.
 *
 * Scenario i of seed s is the same on every run: its generator state
 * depends on (s, i) only, and every draw is made whatever the kernel's
 * configuration and whatever findings are left out, so that it is the
 * same on both trees too, except for what the baseline's run leaves out.
 * (The completion context and delay of each call are drawn from the
 * call's number, so the order in which completions arrive still varies
 * from run to run.)
 * A failing scenario is printed as a table initializer
 * (tools/random-cases extracts them), which makes it a regression case
 * in one paste (README: "Adding a regression case").
 *
 * Module parameters (netfs_kunit.random_* on the kernel command line):
 * the seed, the number of scenarios, and the known upstream findings
 * whose triggers the generator leaves out (see
 * kunit/known-upstream-failures, lines "random-avoid:...").
 */

#include <linux/moduleparam.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "harness.h"

static unsigned long random_seed = 1;
module_param(random_seed, ulong, 0444);
MODULE_PARM_DESC(random_seed, "netfs_random: the generator's seed");

static unsigned int random_count = 5000;
module_param(random_count, uint, 0444);
MODULE_PARM_DESC(random_count, "netfs_random: how many scenarios");

static char *random_avoid = "";
module_param(random_avoid, charp, 0444);
MODULE_PARM_DESC(random_avoid,
		 "netfs_random: findings whose triggers are not drawn (F1,F2,...)");

#define NK_BATCH	100	/* scenarios per parameter of the case */
#define NK_MAX_FAILS	10	/* a batch stops after this many failures */
#define NK_MAX_PRINTS	2	/* initializers printed per batch */

/* True pct times in a hundred */
static bool nk_pct(struct nk_rng *r, unsigned int pct)
{
	return nk_below(r, 100) < pct;
}

/* One of the n values */
#define nk_one_of(r, ...) ({						\
	const long long _v[] = { __VA_ARGS__ };				\
	_v[nk_below(r, ARRAY_SIZE(_v))];				\
})

/* Is finding (say "F1") in random_avoid? */
static bool nk_avoid(const char *finding)
{
	size_t n = strlen(finding);
	const char *p = random_avoid;

	while (p && (p = strstr(p, finding))) {
		bool start = p == random_avoid || p[-1] == ',';

		if (start && (p[n] == ',' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

static loff_t nk_draw_size(struct nk_rng *r)
{
	switch (nk_below(r, 10)) {
	case 0: case 1: case 2:
		return nk_below(r, SZ_64K + 1);
	case 3: case 4:		/* a page multiple, one less or one more */
		return (1 + nk_below(r, 64)) * PAGE_SIZE - 1 + nk_below(r, 3);
	case 5: case 6: case 7:
		return nk_below(r, SZ_1M + 1);
	case 8:
		return SZ_1M + nk_below(r, 3 * SZ_1M + 1);
	default:		/* around 4 GiB */
		return SZ_4G - SZ_256K + nk_below(r, SZ_512K + 1);
	}
}

static size_t nk_draw_len(struct nk_rng *r)
{
	switch (nk_below(r, 20)) {
	case 0 ... 5:
		return 1 + nk_below(r, PAGE_SIZE);
	case 6 ... 13:
		return 1 + nk_below(r, SZ_64K);
	case 14 ... 18:
		return SZ_64K + nk_below(r, SZ_512K - SZ_64K);
	default:
		return SZ_512K + nk_below(r, SZ_512K);
	}
}

/* Where the operation starts: often near the end of the file or 4 GiB */
static loff_t nk_draw_pos(struct nk_rng *r, loff_t size)
{
	loff_t anchor = size >= SZ_4G - SZ_256K ? SZ_4G : size;

	if (nk_pct(r, 20))
		return 0;
	if (nk_pct(r, 50))
		return nk_below(r, size + 2 * PAGE_SIZE);
	return max_t(loff_t, anchor - nk_below(r, SZ_512K), 0) +
		nk_below(r, 2 * PAGE_SIZE);
}

static void nk_draw_op(struct nk_rng *r, struct nk_scenario *sc)
{
	loff_t end_page = round_up(sc->size, PAGE_SIZE);

	sc->op = nk_one_of(r, NK_OP_READAHEAD, NK_OP_READAHEAD, NK_OP_READAHEAD,
			   NK_OP_READ, NK_OP_READ, NK_OP_READ_FOLIO,
			   NK_OP_CACHE_FOLIO, NK_OP_WRITE, NK_OP_WRITE);
	sc->pos = nk_draw_pos(r, sc->size);
	sc->len = nk_draw_len(r);
	if (sc->op == NK_OP_READAHEAD && !sc->size)
		sc->op = NK_OP_READ;
	switch (sc->op) {
	case NK_OP_READAHEAD:	/* whole pages, below EOF, as readahead makes */
		sc->pos = round_down(min_t(loff_t, sc->pos, sc->size - 1), PAGE_SIZE);
		sc->len = min_t(loff_t, round_up(sc->len, PAGE_SIZE),
				end_page - sc->pos);
		break;
	case NK_OP_READ_FOLIO:
	case NK_OP_CACHE_FOLIO:
		sc->len = PAGE_SIZE;
		break;
	case NK_OP_WRITE:
		sc->len = 1 + nk_below(r, 3 * PAGE_SIZE);
		break;
	default:
		break;
	}
}

/* A fault on one of the first calls */
static void nk_draw_fault(struct nk_rng *r, struct nk_fault *f, bool cache,
			  size_t len)
{
	f->call = 1 + nk_below(r, cache ? 4 : 8);
	switch (nk_below(r, 10)) {
	case 0: case 1: case 2:
		f->kind = NK_FAULT_ERROR;
		f->value = cache ? -EIO : nk_one_of(r, -EIO, -ENOMEM, -ESTALE);
		break;
	case 3: case 4: case 5:
		f->kind = NK_FAULT_SHORT;
		f->value = nk_below(r, min_t(size_t, len, SZ_64K));
		break;
	case 6:
		f->kind = NK_FAULT_ZERO;
		break;
	case 7: case 8:
		f->kind = cache ? NK_FAULT_SHORT : NK_FAULT_CLEAR_TAIL;
		f->value = nk_below(r, len + PAGE_SIZE);
		break;
	default:
		f->kind = cache ? NK_FAULT_ZERO : NK_FAULT_OVER;
		f->value = 1 + nk_below(r, PAGE_SIZE);
		break;
	}
}

static bool nk_zeroish(const struct nk_fault *f)
{
	return f->kind == NK_FAULT_ZERO ||
		(f->kind == NK_FAULT_SHORT && !f->value);
}

/*
 * The server.  Slices and short-read steps are never so small that a
 * request needs more than a few hundred calls (NK_CALL_LIMIT).
 */
static void nk_draw_server(struct nk_rng *r, struct nk_scenario *sc)
{
	struct nk_server *ss = &sc->server;
	size_t least = DIV_ROUND_UP(sc->len + SZ_1M, 300);
	unsigned int i, n;

	if (nk_pct(r, 70))
		ss->rsize = max_t(size_t, least,
				  nk_one_of(r, PAGE_SIZE, SZ_16K, SZ_64K, SZ_1M,
					    512 + nk_below(r, SZ_64K)));
	if (nk_pct(r, 20))
		ss->step = max(least, 512 + nk_below(r, SZ_64K));
	if (nk_pct(r, 20)) {
		ss->expand = nk_one_of(r, SZ_16K, SZ_64K, SZ_256K);
		ss->expand_how = 1 + nk_below(r, 3);
	}
	n = nk_pct(r, 50) ? 0 : 1 + nk_below(r, 3);
	for (i = 0; i < n; i++) {
		struct nk_fault *f = &ss->faults[i];

		nk_draw_fault(r, f, false, sc->len);
		if (f->kind == NK_FAULT_OVER && nk_avoid("F6"))
			f->kind = NK_FAULT_SHORT;
		/* F8: no download fails, so none can fail beside a short one */
		if (nk_avoid("F8") && (f->kind == NK_FAULT_ERROR ||
				       (nk_zeroish(f) && i)))
			*f = (struct nk_fault){ f->call, NK_FAULT_SHORT, 1 };
	}
	ss->clear_tail = nk_pct(r, 30);
	if (nk_pct(r, 10)) {
		ss->resize_at = 1 + nk_below(r, 4);
		ss->resize_to = nk_pct(r, 50) && !nk_avoid("F8") ?
			nk_below(r, sc->size + 1) :
			sc->size + nk_below(r, SZ_256K + 1);
	}
	/* F8: where the file ends early, the server says so */
	for (i = 0; i < n && nk_avoid("F8"); i++)
		if (ss->faults[i].kind == NK_FAULT_CLEAR_TAIL)
			ss->clear_tail = true;
	if (nk_pct(r, 3))
		ss->init_error = nk_one_of(r, -ENOMEM, -EIO);
	n = 1 + nk_below(r, 4);		/* drawn either way: see nk_draw() */
	if (nk_pct(r, 4) && !nk_avoid("F4"))
		ss->clamp_fail = n;
	if (sc->op == NK_OP_WRITE && nk_pct(r, 15))
		ss->cwb_regrab = 1;
	ss->mix = (u32)nk_rand(r) | 1;
}

static void nk_draw_cache(struct nk_rng *r, struct nk_scenario *sc)
{
	struct nk_cache *cs = &sc->cache;
	unsigned int i, n, roll = nk_below(r, 100);
	loff_t p;

	if (roll < 20) {
		cs->absent = true;
		return;
	}
	if (roll < 35)
		return;				/* declined */
	if (roll < 40) {
		cs->begin_error = nk_one_of(r, -ENOBUFS, -ENOBUFS, -ENOMEM,
					    -EINTR, -ERESTARTSYS);
		return;
	}
	cs->on = true;
	if (nk_pct(r, 50)) {
		cs->granule = nk_one_of(r, SZ_16K, SZ_64K, SZ_256K);
		cs->expand_how = 1 + nk_below(r, 3);
	}
	n = nk_below(r, NK_MAX_RANGES + 1);
	for (i = 0; i < n; i++) {
		struct nk_range *h = &cs->held[i];

		h->start = round_down(nk_pct(r, 50) ? sc->pos :
				      nk_below(r, sc->size + 1), PAGE_SIZE);
		h->len = round_up(1 + nk_below(r, SZ_256K), PAGE_SIZE);
		/* F7: no cache read reaches past EOF, so none falls back there */
		if (nk_avoid("F7") && h->start + h->len > round_down(sc->size, PAGE_SIZE))
			h->len = max_t(loff_t, round_down(sc->size, PAGE_SIZE) -
				       h->start, 0);
	}
	/* the list of ranges ends at the first empty one */
	for (i = 0, n = 0; i < NK_MAX_RANGES; i++)
		if (cs->held[i].len)
			cs->held[n++] = cs->held[i];
	while (n < NK_MAX_RANGES)
		cs->held[n++] = (struct nk_range){};
	cs->stale = nk_pct(r, 8) && !nk_avoid("F2");
	cs->no_copy = nk_pct(r, 20);
	if (nk_pct(r, 10))
		cs->prepare_write_error = -ENOBUFS;
	if (nk_pct(r, 10))
		cs->write_error = -EIO;
	cs->cookie = nk_pct(r, 60) && IS_ENABLED(CONFIG_FSCACHE);
	n = nk_pct(r, 70) ? 0 : 1 + nk_below(r, 2);
	for (i = 0; i < n; i++) {
		nk_draw_fault(r, &cs->faults[i], true, sc->len);
		/* F1: a short cache read is retried at the wrong position */
		if (cs->faults[i].kind != NK_FAULT_ERROR && nk_avoid("F1")) {
			cs->faults[i].kind = NK_FAULT_ERROR;
			cs->faults[i].value = -EIO;
		}
	}
	n = 1 + nk_below(r, 4);
	if (nk_pct(r, 4) && !nk_avoid("F4"))
		cs->prepare_read_invalid = n;
	/* a hole inside the first range held: the file is sparse there */
	n = 1 + nk_below(r, 3);
	p = cs->held[0].start + round_down(nk_below(r, cs->held[0].len),
					   PAGE_SIZE);
	/* F1: a hole makes the first cache read short */
	if (nk_pct(r, 15) && cs->held[0].len && !nk_avoid("F1"))
		cs->hole = (struct nk_range){
			p, min_t(loff_t, n * PAGE_SIZE,
				 cs->held[0].start + cs->held[0].len - p) };
}

/*
 * A fault the helper may not recover from: it fails the request, or the
 * file changes under it (then what the cache holds is stale too, without
 * anyone saying so).  Short reads, single zero-length reads, cache read
 * errors (the helper downloads instead) and failed cache writes are all
 * recovered from.
 */
static bool nk_may_fail(const struct nk_scenario *sc)
{
	const struct nk_server *ss = &sc->server;
	unsigned int i, zeroish = 0;

	for (i = 0; i < NK_MAX_FAULTS; i++) {
		const struct nk_fault *f = &ss->faults[i];

		if (f->kind == NK_FAULT_ERROR || f->kind == NK_FAULT_CLEAR_TAIL)
			return true;
		zeroish += nk_zeroish(f);
	}
	return zeroish > 1 || ss->resize_at || ss->init_error ||
		ss->clamp_fail || sc->cache.prepare_read_invalid ||
		(sc->cache.begin_error && sc->cache.begin_error != -ENOBUFS);
}

/* Does the server's file change under the scenario? */
static bool nk_changes(const struct nk_scenario *sc)
{
	unsigned int i;

	for (i = 0; i < NK_MAX_FAULTS; i++)
		if (sc->server.faults[i].kind == NK_FAULT_CLEAR_TAIL)
			return true;
	return sc->server.resize_at || sc->op == NK_OP_TRUNCATE;
}

/**
 * nk_draw - draw scenario index of seed into sc
 * @sc: filled in (name points into @name)
 * @name: room for the name
 * @seed: the seed
 * @index: the scenario's number
 */
static void nk_draw(struct nk_scenario *sc, char *name, u64 seed,
		    unsigned int index)
{
	struct nk_rng r = { .s = seed * 0xff51afd7ed558ccdULL ^ index };
	unsigned int crypt;

	nk_rand(&r);
	memset(sc, 0, sizeof(*sc));
	snprintf(name, 32, "random_%llu_%u", seed, index);
	sc->name = name;
	sc->size = nk_draw_size(&r);
	nk_draw_op(&r, sc);
	sc->folios = NK_ONLY(nk_pct(&r, 50) &&
			     IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE) ?
			     NK_FOLIOS_LARGE : NK_FOLIOS_SMALL);
	/* read_folio makes its folio: one made by pre would be in the way */
	if (sc->size && sc->op != NK_OP_READ_FOLIO && nk_pct(&r, 12)) {
		sc->pre.start = round_down(nk_below(&r, sc->size), PAGE_SIZE);
		sc->pre.len = round_up(1 + nk_below(&r, SZ_64K), PAGE_SIZE);
		/* F12: write_begin into a large folio a failed read left */
		sc->pre_failed = nk_pct(&r, 30) &&
				 !(nk_avoid("F12") && sc->op == NK_OP_WRITE &&
				   sc->folios == NK_ONLY(NK_FOLIOS_LARGE));
	}
	nk_draw_server(&r, sc);
	nk_draw_cache(&r, sc);
	/* F14: a cache read that fails is downloaded past the rsize */
	if (sc->server.rsize && nk_avoid("F14")) {
		memset(sc->cache.faults, 0, sizeof(sc->cache.faults));
		sc->cache.stale = false;
	}
	/*
	 * One in eight files of up to 256 KiB (xts(aes) is slow in the
	 * guest) is encrypted, in blocks of 512 bytes to 64 KiB, where the
	 * library can, and unless the file is sparse (its zeroes are no
	 * ciphertext) or changes (the cache's old ciphertext would be
	 * neither the old file's nor the new one's).
	 */
	crypt = nk_below(&r, 64);
	if (crypt < 8 && sc->size <= SZ_256K && !sc->cache.hole.len &&
	    !nk_changes(sc) && IS_ENABLED(CONFIG_NETFS_CONTENT_CRYPTO)) {
		sc->crypt = 512 << crypt;
		snprintf(name, 32, "random_crypt_%llu_%u", seed, index);
	}
	sc->expect = (struct nk_expect){ NK_ANY_CALLS,
					 .may_fail = nk_may_fail(sc) };
}

/* ---- printing a scenario as a table initializer ---- */

static const char * const nk_op_ids[] = {
	[NK_OP_READ] = "NK_OP_READ", [NK_OP_READAHEAD] = "NK_OP_READAHEAD",
	[NK_OP_READ_FOLIO] = "NK_OP_READ_FOLIO",
	[NK_OP_CACHE_FOLIO] = "NK_OP_CACHE_FOLIO",
	[NK_OP_WRITE] = "NK_OP_WRITE", [NK_OP_TRUNCATE] = "NK_OP_TRUNCATE",
};

/* The macro of each fault kind (netfs_kunit.h) */
static const char * const nk_fault_ids[] = {
	[NK_FAULT_NONE] = "?", [NK_FAULT_ERROR] = "NK_ERROR",
	[NK_FAULT_SHORT] = "NK_SHORT", [NK_FAULT_ZERO] = "NK_ZERO",
	[NK_FAULT_CLEAR_TAIL] = "NK_CLEAR_TAIL", [NK_FAULT_OVER] = "NK_OVER",
};

/* A line being built, printed as "netfs_random: <line>" */
struct nk_line {
	char buf[200];
	size_t n;
};

static __printf(2, 3) void nk_add(struct nk_line *l, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	l->n += vscnprintf(l->buf + l->n, sizeof(l->buf) - l->n, fmt, args);
	va_end(args);
}

/* Close a brace: "{ a, }," or "{ {...}, }," or "{ }," */
static void nk_close(struct nk_line *l)
{
	nk_add(l, "%s},", l->n && l->buf[l->n - 1] == ' ' ? "" : " ");
}

static void nk_put(struct kunit *test, struct nk_line *l)
{
	/* no blank before the end of the line or of a brace */
	while (l->n && l->buf[l->n - 1] == ' ')
		l->buf[--l->n] = '\0';
	kunit_err(test, "netfs_random: %s\n", l->buf);
	l->n = 0;
	l->buf[0] = '\0';
}

/* Add ".name = value, " if the value is not 0 */
#define NK_FIELD(l, name, fmt, value)					\
	do {								\
		if (value)						\
			nk_add(l, "." name " = " fmt ", ", (value));	\
	} while (0)

static void nk_put_faults(struct kunit *test, struct nk_line *l,
			  const struct nk_fault *faults)
{
	unsigned int i;

	if (faults[0].kind == NK_FAULT_NONE)
		return;
	nk_put(test, l);
	nk_add(l, "\t\t\t.faults = { ");
	for (i = 0; i < NK_MAX_FAULTS && faults[i].kind != NK_FAULT_NONE; i++)
		if (faults[i].kind == NK_FAULT_ZERO)
			nk_add(l, "NK_ZERO(%u), ", faults[i].call);
		else
			nk_add(l, "%s(%u, %ld), ", nk_fault_ids[faults[i].kind],
			       faults[i].call, faults[i].value);
	nk_add(l, "},");
}

static void nk_print(struct kunit *test, const struct nk_scenario *sc)
{
	const struct nk_server *ss = &sc->server;
	const struct nk_cache *cs = &sc->cache;
	struct nk_line l = {};
	unsigned int i;

	nk_add(&l, "\t{");
	nk_put(test, &l);
	nk_add(&l, "\t\t.name = \"%s\",", sc->name);
	nk_put(test, &l);
	nk_add(&l, "\t\t.size = %lld, .op = %s, .pos = %lld, .len = %zu,",
	       sc->size, nk_op_ids[sc->op], sc->pos, sc->len);
	nk_put(test, &l);
	nk_add(&l, "\t\t.folios = NK_ONLY(%s),",
	       sc->folios == NK_ONLY(NK_FOLIOS_LARGE) ? "NK_FOLIOS_LARGE" :
	       "NK_FOLIOS_SMALL");
	if (sc->crypt)
		nk_add(&l, " .crypt = %zu,", sc->crypt);
	if (sc->pre.len)
		nk_add(&l, " .pre = NK_RANGE(%lld, %lld),%s", sc->pre.start, sc->pre.len,
		       sc->pre_failed ? " .pre_failed = true," : "");
	nk_put(test, &l);
	nk_add(&l, "\t\t.server = { ");
	NK_FIELD(&l, "rsize", "%zu", ss->rsize);
	NK_FIELD(&l, "step", "%zu", ss->step);
	NK_FIELD(&l, "expand", "%zu", ss->expand);
	NK_FIELD(&l, "expand_how", "%u", ss->expand_how);
	NK_FIELD(&l, "clear_tail", "%d", ss->clear_tail);
	NK_FIELD(&l, "resize_at", "%u", ss->resize_at);
	NK_FIELD(&l, "resize_to", "%lld", ss->resize_to);
	NK_FIELD(&l, "init_error", "%d", ss->init_error);
	NK_FIELD(&l, "clamp_fail", "%u", ss->clamp_fail);
	NK_FIELD(&l, "cwb_regrab", "%u", ss->cwb_regrab);
	NK_FIELD(&l, "mix", "%#x", ss->mix);
	nk_put_faults(test, &l, ss->faults);
	nk_close(&l);
	nk_put(test, &l);
	nk_add(&l, "\t\t.cache = { ");
	NK_FIELD(&l, "absent", "%d", cs->absent);
	NK_FIELD(&l, "on", "%d", cs->on);
	NK_FIELD(&l, "begin_error", "%d", cs->begin_error);
	NK_FIELD(&l, "granule", "%zu", cs->granule);
	NK_FIELD(&l, "expand_how", "%u", cs->expand_how);
	NK_FIELD(&l, "stale", "%d", cs->stale);
	NK_FIELD(&l, "no_copy", "%d", cs->no_copy);
	NK_FIELD(&l, "prepare_write_error", "%d", cs->prepare_write_error);
	NK_FIELD(&l, "prepare_read_invalid", "%u", cs->prepare_read_invalid);
	NK_FIELD(&l, "cookie", "%d", cs->cookie);
	NK_FIELD(&l, "write_error", "%d", cs->write_error);
	if (cs->hole.len)
		nk_add(&l, ".hole = NK_RANGE(%lld, %lld), ", cs->hole.start,
		       cs->hole.len);
	if (cs->held[0].len) {
		nk_put(test, &l);
		nk_add(&l, "\t\t\t.held = { ");
		for (i = 0; i < NK_MAX_RANGES && cs->held[i].len; i++)
			nk_add(&l, "NK_RANGE(%lld, %lld), ", cs->held[i].start,
			       cs->held[i].len);
		nk_add(&l, "},");
	}
	nk_put_faults(test, &l, cs->faults);
	nk_close(&l);
	nk_put(test, &l);
	nk_add(&l, "\t\t.expect = { NK_ANY_CALLS, .may_fail = %s },",
	       sc->expect.may_fail ? "true" : "false");
	nk_put(test, &l);
	nk_add(&l, "\t},");
	nk_put(test, &l);
}

/* ---- the suite ---- */

/* A drawn scenario and its name */
struct nk_random_sc {
	struct nk_scenario sc;
	char name[32];
};

static const void *nk_random_params(const void *prev, char *desc)
{
	unsigned long batch = (unsigned long)prev;	/* the previous one + 1 */
	unsigned int first = batch * NK_BATCH;

	if (first >= random_count)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u-%u", first,
		 min(first + NK_BATCH, random_count) - 1);
	return (const void *)(batch + 1);
}

/*
 * One batch of scenarios.  Each scenario's failure is counted on its own,
 * by the harness's count of reported failures (nk_failures()).
 */
static void random_run(struct kunit *test)
{
	unsigned int first = ((unsigned long)test->param_value - 1) * NK_BATCH;
	unsigned int last = min(first + NK_BATCH, random_count);
	unsigned int i, failed = 0;
	struct nk_random_sc *r;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	for (i = first; i < last && failed < NK_MAX_FAILS; i++) {
		unsigned int before = nk_failures();

		/* the environment takes a copy: r is free again at once */
		nk_draw(&r->sc, r->name, random_seed, i);
		nk_run(test, &r->sc, NK_CTX_INLINE,
		       r->sc.folios == NK_ONLY(NK_FOLIOS_LARGE) ?
		       NK_FOLIOS_LARGE : NK_FOLIOS_SMALL);
		if (nk_failures() == before)
			continue;
		kunit_err(test, "netfs_random: seed %lu scenario %u failed%s\n",
			  random_seed, i, failed < NK_MAX_PRINTS ?
			  "; as a table entry:" : "");
		if (failed++ < NK_MAX_PRINTS)
			nk_print(test, &r->sc);
	}
	if (failed)
		KUNIT_FAIL(test,
			   "%u of the %u scenarios run failed (seed %lu, scenarios %u-%u%s)",
			   failed, i - first, random_seed, first, last - 1,
			   i < last ? ", stopped early" : "");
}

static struct kunit_case netfs_random_cases[] = {
	KUNIT_CASE_PARAM(random_run, nk_random_params),
	{}
};

static struct kunit_suite netfs_random_suite = {
	.name = "netfs_random",
	.suite_init = nk_suite_init,
	.suite_exit = nk_suite_exit,
	.test_cases = netfs_random_cases,
};

kunit_test_suites(&netfs_random_suite);
