// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs KUnit harness: the test filesystem and the per-case environment.
 *
 * The test filesystem is mounted with kern_mount() once per suite, and
 * the workqueue that defers completions is made once per suite: an
 * unmount waits for an RCU grace period, and a workqueue brings its own
 * pool of workers, both too slow to pay for each case.  Each
 * file is an inode from new_inode() wrapped in a struct netfs_inode, with
 * a struct file from alloc_file_pseudo().  Its address_space_operations
 * are the netfs helpers, so that reads go through the real VFS, VM and
 * page cache.  The superblock has a real bdi (super_setup_bdi()), so that
 * readahead happens.
 *
 * The environment (struct nk_env) is everything one case needs: the
 * mount, the files, the workqueue for deferred completions, and the
 * records the fakes keep, and its own copy of the scenario.  This file
 * makes it and tears it down once the helper is quiet (io.c), or leaves
 * it alone when the case broke it.
 */

#include <crypto/skcipher.h>
#include <kunit/test.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "harness.h"

#define NK_MAGIC	0x6e6b7566

static struct inode *nk_alloc_inode(struct super_block *sb)
{
	struct nk_inode *ni = kzalloc(sizeof(*ni), GFP_KERNEL);

	if (!ni)
		return NULL;
	inode_init_once(&ni->netfs.inode);
	xa_init_flags(&ni->store, XA_FLAGS_LOCK_BH);
	return &ni->netfs.inode;
}

static void nk_free_inode(struct inode *inode)
{
	kfree(NK_I(inode));
}

static void nk_evict_inode(struct inode *inode)
{
	struct nk_inode *ni = NK_I(inode);
	unsigned long index;
	void *page;

	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	xa_for_each(&ni->store, index, page)
		if (!xa_is_value(page))
			kfree(page);
	xa_destroy(&ni->store);
	if (ni->tfm)
		crypto_free_sync_skcipher(ni->tfm);
}

/*
 * The suite's mount and workqueue (for deferred completions), and whether
 * a broken case left files on the one or work on the other
 */
static struct vfsmount *nk_mnt;
static struct workqueue_struct *nk_wq;
static bool nk_mnt_busy;

static const struct super_operations nk_sops = {
	.alloc_inode	= nk_alloc_inode,
	.free_inode	= nk_free_inode,
	.evict_inode	= nk_evict_inode,
	.statfs		= simple_statfs,
};

static int nk_fill_super(struct super_block *sb, void *data, int silent)
{
	struct inode *root;
	int ret;

	sb->s_maxbytes = MAX_LFS_FILESIZE;
	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	sb->s_magic = NK_MAGIC;
	sb->s_op = &nk_sops;
	sb->s_time_gran = 1;
	/* A real bdi: with init_pseudo()'s no-op bdi there is no readahead. */
	ret = super_setup_bdi(sb);
	if (ret)
		return ret;
	root = new_inode(sb);
	if (!root)
		return -ENOMEM;
	root->i_ino = 1;
	root->i_mode = S_IFDIR | 0755;
	root->i_op = &simple_dir_inode_operations;
	root->i_fop = &simple_dir_operations;
	set_nlink(root, 2);
	sb->s_root = d_make_root(root);
	return sb->s_root ? 0 : -ENOMEM;
}

static struct dentry *nk_mount(struct file_system_type *fs_type, int flags,
			       const char *dev_name, void *data)
{
	return mount_nodev(fs_type, flags, data, nk_fill_super);
}

static struct file_system_type nk_fs_type = {
	.owner		= THIS_MODULE,
	.name		= "netfs_kunit",
	.mount		= nk_mount,
	.kill_sb	= kill_anon_super,
};

static int nk_write_begin(struct file *file, struct address_space *mapping,
			  loff_t pos, unsigned int len, struct page **pagep,
			  void **fsdata)
{
	struct folio *folio;
	int ret;

	ret = netfs_write_begin(netfs_inode(mapping->host), file, mapping, pos,
				len, &folio, fsdata);
	if (ret < 0)
		return ret;
	*pagep = folio_file_page(folio, pos >> PAGE_SHIFT);
	return 0;
}

static int nk_write_end(struct file *file, struct address_space *mapping,
			loff_t pos, unsigned int len, unsigned int copied,
			struct page *page, void *fsdata)
{
	struct folio *folio = page_folio(page);
	struct inode *inode = mapping->host;

	if (!folio_test_uptodate(folio)) {
		if (copied < len) {
			copied = 0;
			goto out;
		}
		folio_mark_uptodate(folio);
	}
	if (pos + copied > i_size_read(inode))
		i_size_write(inode, pos + copied);
out:
	folio_unlock(folio);
	folio_put(folio);
	return copied;
}

static void nk_invalidate_folio(struct folio *folio, size_t offset, size_t len)
{
	folio_wait_fscache(folio);
}

static bool nk_release_folio(struct folio *folio, gfp_t gfp)
{
	if (folio_test_fscache(folio)) {
		/* a broken case's PG_fscache may never end: never wait on it */
		if (NK_I(folio->mapping->host)->env->broken)
			return false;
		if (!gfpflags_allow_blocking(gfp) || !(gfp & __GFP_FS))
			return false;
		folio_wait_fscache(folio);
	}
	return true;
}

/* netfs_readahead(), timed when a benchmark profiles it */
static void nk_readahead(struct readahead_control *ractl)
{
	struct nk_env *env = NK_I(ractl->mapping->host)->env;
	u64 t = env->prof.on ? ktime_get_ns() : 0;

	netfs_readahead(ractl);
	if (env->prof.on)
		env->prof.readahead += ktime_get_ns() - t;
}

static const struct address_space_operations nk_aops = {
	.read_folio		= netfs_read_folio,
	.readahead		= nk_readahead,
	.write_begin		= nk_write_begin,
	.write_end		= nk_write_end,
	.dirty_folio		= noop_dirty_folio,
	.invalidate_folio	= nk_invalidate_folio,
	.release_folio		= nk_release_folio,
};

static const struct file_operations nk_fops = {
	.llseek		= generic_file_llseek,
	.read_iter	= generic_file_read_iter,
	.write_iter	= generic_file_write_iter,
};

/* ---- the per-case environment ---- */

/**
 * nk_env_create - set up the environment of one case
 * @test: the case
 * @sc: the scenario the fakes follow
 * @ctx: the completion context
 * @folios: the folio size
 *
 * Return: the environment, or NULL (the case has failed).
 */
struct nk_env *nk_env_create(struct kunit *test, const struct nk_scenario *sc,
			     enum nk_ctx ctx, enum nk_folios folios)
{
	struct nk_env *env = kzalloc(sizeof(*env), GFP_KERNEL);

	if (!env)
		return NULL;
	env->test = test;
	env->calls = kvcalloc(NK_MAX_CALLS, sizeof(*env->calls), GFP_KERNEL);
	env->wq = nk_wq;
	env->mnt = nk_mnt;
	if (!env->calls || !env->mnt) {
		nk_fail(env, "cannot set up: %s", env->mnt ?
			"no memory" : "the suite has no mount");
		kvfree(env->calls);
		kfree(env);
		return NULL;
	}
	env->scenario = *sc;
	env->sc = &env->scenario;
	if (sc->crypt && sc->expect.bad.len) {
		struct nk_range *bad = &env->scenario.expect.bad;
		loff_t end = round_up(bad->start + bad->len, sc->crypt);

		bad->start = round_down(bad->start, sc->crypt);
		bad->len = end - bad->start;
	}
	env->ctx = ctx;
	env->folios = folios;
	spin_lock_init(&env->lock);
	INIT_LIST_HEAD(&env->rreqs);
	xa_init_flags(&env->buffers, XA_FLAGS_LOCK_BH);
	INIT_DELAYED_WORK(&env->release_work, nk_release_held_work);
#if IS_ENABLED(CONFIG_FSCACHE)
	/* all netfs_is_cache_enabled() reads: a cache object, not disabled */
	env->cookie.cache_priv = env;
#endif
	env->have_stats = nk_netfs_stats(&env->stat_rreq, &env->stat_sreq);
	return env;
}

/**
 * nk_new_file - make a file of the test filesystem
 * @env: the environment
 * @size: its size, all of it the pattern
 *
 * Return: the file (put by nk_env_destroy()), or an ERR_PTR, and then the
 * case has failed.
 */
struct file *nk_new_file(struct nk_env *env, loff_t size)
{
	struct inode *inode = new_inode(env->mnt->mnt_sb);
	struct nk_inode *ni;
	struct file *file;
	int err;

	if (!inode || env->nr_files >= NK_MAX_FILES) {
		iput(inode);
		nk_fail(env, "cannot make file %u: no memory", env->nr_files);
		return ERR_PTR(-ENOMEM);
	}
	ni = NK_I(inode);
	ni->env = env;
	ni->id = nk_new_id();
	ni->content = size;
	ni->floor = size;
	ni->zeros = env->sc->cache.hole;
	inode->i_ino = get_next_ino();
	inode->i_mode = S_IFREG | 0644;
	inode->i_flags |= S_NOATIME | S_NOCMTIME;
	inode->i_mapping->a_ops = &nk_aops;
	i_size_write(inode, size);
	netfs_inode_init(&ni->netfs, env->sc->cache.absent ?
			 &nk_netfs_ops_nocache : &nk_netfs_ops);
	err = nk_crypt_file(ni);
	if (err) {
		iput(inode);
		nk_fail(env, "cannot make file %u: xts(aes): %d", env->nr_files,
			err);
		return ERR_PTR(err);
	}
#if IS_ENABLED(CONFIG_FSCACHE)
	if (env->sc->cache.cookie)
		ni->netfs.cache = &env->cookie;
#endif
	if (env->folios == NK_FOLIOS_LARGE)
		mapping_set_large_folios(inode->i_mapping);

	file = alloc_file_pseudo(inode, env->mnt, "netfs_kunit",
				 O_RDWR | O_LARGEFILE, &nk_fops);
	if (IS_ERR(file)) {
		iput(inode);
		nk_fail(env, "cannot make file %u: %ld", env->nr_files,
			PTR_ERR(file));
		return file;
	}
	/* alloc_file_pseudo() leaves ra_pages at 0: one-page readahead */
	file_ra_state_init(&file->f_ra, inode->i_mapping);
	env->files[env->nr_files++] = file;
	return file;
}

/**
 * nk_reset_records - forget the calls and requests seen so far
 * @env: the environment, quiescent
 *
 * Between the runs of a scenario that runs an operation first (pre,
 * twice): what the checks compare afterwards is the last run only.
 */
void nk_reset_records(struct nk_env *env)
{
	struct nk_rreq *r, *tmp;

	list_for_each_entry_safe(r, tmp, &env->rreqs, link) {
		list_del(&r->link);
		kfree(r);
	}
	env->nr_calls = 0;
	env->leftover = 0;
	/* what went wrong in the earlier run (violations...) still counts */
	env->n.issue = 0;
	env->n.cread = 0;
	env->n.cwrite = 0;
	atomic_set(&env->n.init, 0);
	atomic_set(&env->n.free, 0);
	atomic_set(&env->n.began, 0);
	atomic_set(&env->n.ended, 0);
	atomic_set(&env->n.cwb, 0);
	atomic_set(&env->n.clamps, 0);
	atomic_set(&env->n.prepares, 0);
}

/**
 * nk_env_destroy - tear down a case's environment
 * @env: the environment
 *
 * Puts the files and frees everything, once the helper is quiescent.
 * A broken environment (a folio left locked or PG_fscache, a
 * request that never completed, an operation that never returned) is left
 * as it is on purpose: tearing it down would wait forever or free what is
 * still in use, and the cases after this one must still run.
 */
void nk_env_destroy(struct nk_env *env)
{
	unsigned int i;

	if (env->broken || !nk_quiesce(env)) {
		nk_fail(env, "leaving the case's files behind");
		/* from now on nothing may report into the finished case */
		env->test = NULL;
		nk_mnt_busy = true;
		return;
	}
	for (i = 0; i < env->nr_files; i++)
		__fput_sync(env->files[i]);
	nk_reset_records(env);
	nk_check_buffers(env, false);
	kvfree(env->calls);
	kfree(env);
}

/**
 * nk_suite_init - make the test filesystem's mount and workqueue for a suite
 * @suite: the suite
 *
 * Return: 0 or an error.
 */
int nk_suite_init(struct kunit_suite *suite)
{
	int ret;

	nk_init_pattern();
	nk_wq = alloc_workqueue("netfs_kunit", WQ_UNBOUND, 0);
	if (!nk_wq)
		return -ENOMEM;
	ret = register_filesystem(&nk_fs_type);
	if (ret)
		goto out_wq;
	nk_mnt = kern_mount(&nk_fs_type);
	if (IS_ERR(nk_mnt)) {
		ret = PTR_ERR(nk_mnt);
		nk_mnt = NULL;
		unregister_filesystem(&nk_fs_type);
		goto out_wq;
	}
	nk_mnt_busy = false;
	return 0;
out_wq:
	destroy_workqueue(nk_wq);
	nk_wq = NULL;
	return ret;
}

/**
 * nk_suite_exit - unmount and unregister the test filesystem after a suite
 * @suite: the suite
 *
 * What a broken case left behind stays: unmounting would free inodes
 * still in use, and destroying the workqueue would wait for its work.
 */
void nk_suite_exit(struct kunit_suite *suite)
{
	if (!nk_mnt_busy) {
		kern_unmount(nk_mnt);
		destroy_workqueue(nk_wq);
	}
	nk_mnt = NULL;
	nk_wq = NULL;
	unregister_filesystem(&nk_fs_type);
	rcu_barrier();	/* inodes are freed after a grace period */
}

MODULE_DESCRIPTION("KUnit suites for the netfs read helpers");
MODULE_LICENSE("GPL");
