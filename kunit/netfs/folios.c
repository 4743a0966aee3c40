// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs KUnit harness: byte ranges, and the page cache as the harness
 * walks it.
 *
 * The fakes and the checks all look at the folios of a range the same
 * way (nk_walk_folios()), usable in any context the fakes run in.
 */

#include <linux/cpu.h>
#include <linux/pagemap.h>
#include <linux/pagevec.h>
#include <linux/slab.h>

#include "harness.h"

/* Does the range r overlap [start, end)? */
bool nk_in_range(const struct nk_range *r, loff_t start, loff_t end)
{
	return r->len && start < r->start + r->len && end > r->start;
}

/* Round [*start, *start + *len) out to block at the ends how names. */
void nk_expand(loff_t *start, size_t *len, size_t block, unsigned int how)
{
	loff_t s = *start, e = *start + *len;

	if (!block)
		return;
	if (how & NK_EXPAND_START)
		s = round_down(s, block);
	if (how & NK_EXPAND_END)
		e = round_up(e, block);
	*start = s;
	*len = e - s;
}

/**
 * nk_walk_folios - call fn on every folio of mapping that overlaps a range
 * @mapping: the page cache
 * @start: the range's first byte
 * @end: the byte after it
 * @fn: called with a reference held; returns false to stop the walk
 * @arg: its argument
 *
 * Usable in any context the fakes run in, softirq included: the references
 * are dropped one by one, not with a batch release (which drains the LRU).
 */
void nk_walk_folios(struct address_space *mapping, loff_t start, loff_t end,
		    bool (*fn)(struct folio *folio, void *arg), void *arg)
{
	pgoff_t index = start >> PAGE_SHIFT;
	struct folio_batch fbatch;
	bool more = end > start;
	unsigned int i;

	folio_batch_init(&fbatch);
	while (more && filemap_get_folios(mapping, &index, (end - 1) >> PAGE_SHIFT,
					  &fbatch)) {
		for (i = 0; i < folio_batch_count(&fbatch); i++) {
			if (more)
				more = fn(fbatch.folios[i], arg);
			folio_put(fbatch.folios[i]);
		}
		folio_batch_init(&fbatch);
	}
}

static bool nk_extend_pre_left(struct folio *folio, void *arg)
{
	struct nk_range *r = arg;
	loff_t start = folio_pos(folio), end = start + folio_size(folio);

	if (folio_test_uptodate(folio))
		return true;
	if (r->len)
		end = max(end, r->start + r->len);
	r->start = r->len ? min(r->start, start) : start;
	r->len = end - r->start;
	return true;
}

/**
 * nk_note_pre_left - remember which folios a failed pre left behind
 * @env: the environment
 * @file: the file
 *
 * After a failed pre: the span of the folios it left not uptodate (with
 * the window's expansion, more than sc->pre says).
 */
void nk_note_pre_left(struct nk_env *env, struct file *file)
{
	env->pre_left = (struct nk_range){};
	nk_walk_folios(file->f_mapping, 0, LLONG_MAX, nk_extend_pre_left,
		       &env->pre_left);
}

/*
 * Folios just added to the page cache sit in per-CPU LRU batches, each of
 * which holds a reference, until that CPU drains them.  The reference count
 * check needs them drained on every CPU, and lru_add_drain_all() is not
 * exported: run a work item on each online CPU that releases a one-folio
 * batch, since releasing a batch drains the local CPU's LRU batches first.
 */
static void nk_drain_lru_fn(struct work_struct *work)
{
	struct folio_batch fbatch;

	folio_batch_init(&fbatch);
	folio_batch_add(&fbatch, folio_alloc(GFP_KERNEL | __GFP_NOFAIL, 0));
	folio_batch_release(&fbatch);
}

/**
 * nk_drain_lru - drain every CPU's LRU batches
 *
 * So that a folio's reference count is only the page cache's and its
 * users'.
 */
void nk_drain_lru(void)
{
	struct work_struct *works;
	int cpu;

	works = kcalloc(nr_cpu_ids, sizeof(*works), GFP_KERNEL | __GFP_NOFAIL);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		INIT_WORK(&works[cpu], nk_drain_lru_fn);
		queue_work_on(cpu, system_wq, &works[cpu]);
	}
	for_each_online_cpu(cpu)
		flush_work(&works[cpu]);
	cpus_read_unlock();
	kfree(works);
}
