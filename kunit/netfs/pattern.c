// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs KUnit harness: the content of the test files.
 *
 * The byte at position pos of file id is nk_tile[(pos + id * NK_ID_STRIDE)
 * % NK_PERIOD].  NK_PERIOD is prime and every tile byte is non-zero, so
 * that misplaced data (even by whole pages), stale data, missing data and
 * zeroed data all show byte for byte.  The tile is followed by a copy of its
 * first NK_PATTERN_RUN bytes, so that nk_pattern() gives that many
 * contiguous bytes for copy_to_iter() and memcpy().
 *
 * What a file holds is the pattern below nk_inode.content, zeros from there
 * to i_size and in its sparse range (nk_inode.zeros, where the fake cache
 * holds a hole), and the pattern of NK_ALT_ID where the test wrote (the
 * overlay).  nk_content_run() is the one place that says what the
 * server's file holds.  nk_expected() builds that; nk_compare() checks data against it.
 * The cache is compared without the overlay: nothing here writes back, so
 * it must hold what the server holds.  When the server's file changes
 * length (nk_set_content()), a scenario that may_fail also accepts what
 * the file held before.
 */

#include <kunit/test.h>
#include <linux/math64.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "harness.h"

#define NK_PERIOD	65521U		/* prime: misplacements of whole pages show */
#define NK_ID_STRIDE	7919U

static u8 nk_tile[NK_PERIOD + NK_PATTERN_RUN];

void nk_init_pattern(void)
{
	struct nk_rng r = { .s = NK_PERIOD };
	unsigned int i;

	if (nk_tile[0])
		return;
	for (i = 0; i < NK_PERIOD; i++)
		nk_tile[i] = 1 + nk_below(&r, 255);
	memcpy(nk_tile + NK_PERIOD, nk_tile, NK_PATTERN_RUN);
}

/**
 * nk_new_id - the content id of a new test file
 *
 * Every file of the boot gets an id of its own, never NK_ALT_ID or
 * NK_ALT_ID + 1 (what writes and stale caches hold), and distinct from
 * the last NK_PERIOD - 3 files' ids.  So a page that the page cache
 * recycles from an earlier case never holds what the new file holds at
 * that position: a folio marked uptodate without being read shows, even
 * when the earlier case read the same range of a file of the same size.
 *
 * Return: the id, in [1, NK_PERIOD).
 */
unsigned int nk_new_id(void)
{
	static atomic_t last = ATOMIC_INIT(0);
	unsigned int id;

	do
		id = (unsigned int)atomic_inc_return(&last) % NK_PERIOD;
	while (!id || id == NK_ALT_ID || id == NK_ALT_ID + 1);
	return id;
}

const u8 *nk_pattern(unsigned int id, loff_t pos)
{
	u32 rem;

	div_u64_rem(pos + (u64)id * NK_ID_STRIDE, NK_PERIOD, &rem);
	return nk_tile + rem;
}

/**
 * nk_content_run - what the server's file holds at pos
 * @ni: the file
 * @pos: the position
 * @max: at most this many bytes
 * @src: set to the bytes, or to NULL where the file reads as zeroes (past
 *	its content, or in its sparse range ni->zeros)
 *
 * Return: how many bytes from @pos are alike (at least 1 if @max is).
 */
size_t nk_content_run(struct nk_inode *ni, loff_t pos, size_t max,
		      const u8 **src)
{
	loff_t content = READ_ONCE(ni->content);
	loff_t z_end = ni->zeros.start + ni->zeros.len;
	size_t run = min_t(size_t, max, NK_PATTERN_RUN);

	if (pos >= content || (ni->zeros.len && pos >= ni->zeros.start &&
			       pos < z_end)) {
		*src = NULL;
		if (pos < content)
			run = min_t(loff_t, run, z_end - pos);
		return run;
	}
	if (ni->zeros.len && pos < ni->zeros.start)
		run = min_t(loff_t, run, ni->zeros.start - pos);
	*src = nk_pattern(ni->id, pos);
	return min_t(loff_t, run, content - pos);
}

/* The expected content of [pos, pos + n) of a file, into buf. */
void nk_expected(struct nk_inode *ni, loff_t pos, u8 *buf, size_t n,
		 bool written)
{
	loff_t ov_len = written ? ni->overlay.len : 0;
	loff_t ov_end = ni->overlay.start + ov_len;
	size_t i = 0;

	while (i < n) {
		loff_t p = pos + i;
		size_t run = min_t(size_t, n - i, NK_PATTERN_RUN);

		if (ov_len && p >= ni->overlay.start && p < ov_end) {
			run = min_t(loff_t, run, ov_end - p);
			memcpy(buf + i, nk_pattern(NK_ALT_ID, p), run);
		} else {
			const u8 *src;

			if (ov_len && p < ni->overlay.start)
				run = min_t(loff_t, run, ni->overlay.start - p);
			run = nk_content_run(ni, p, run, &src);
			if (src)
				memcpy(buf + i, src, run);
			else
				memset(buf + i, 0, run);
		}
		i += run;
	}
}

/* Did the file hold byte b at pos at some time during a may_fail scenario? */
static bool nk_was_content(struct nk_env *env, struct nk_inode *ni, loff_t pos,
			   u8 b)
{
	return env->sc->expect.may_fail && pos >= READ_ONCE(ni->floor) &&
		(!b || b == *nk_pattern(ni->id, pos));
}

/*
 * Compare n bytes at pos with the expected content, with or without what
 * the test wrote; report the first bad one.
 */
bool nk_compare(struct nk_env *env, struct nk_inode *ni, const char *what,
		loff_t pos, const u8 *data, size_t n, u8 *scratch, bool written)
{
	size_t i, chunk;

	for (i = 0; i < n; i += chunk) {
		size_t j;

		chunk = min_t(size_t, n - i, PAGE_SIZE);
		nk_expected(ni, pos + i, scratch, chunk, written);
		if (!memcmp(data + i, scratch, chunk))
			continue;
		for (j = 0; j < chunk; j++)
			if (data[i + j] != scratch[j] &&
			    !nk_was_content(env, ni, pos + i + j, data[i + j]))
				break;
		if (j == chunk)
			continue;
		nk_check(env, false, "%s: byte %lld is %#x, expected %#x",
			 what, pos + i + j, data[i + j], scratch[j]);
		return false;
	}
	return true;
}

/**
 * nk_set_content - the server's file now ends at content
 * @ni: the file
 * @content: its new length (what lies beyond reads as zeroes)
 *
 * Bytes from the lowest length the file has had are zeroes at some time
 * and the pattern at another; a scenario that may_fail accepts either.
 */
void nk_set_content(struct nk_inode *ni, loff_t content)
{
	WRITE_ONCE(ni->floor, min3(ni->floor, ni->content, content));
	WRITE_ONCE(ni->content, content);
}
