// SPDX-License-Identifier: GPL-2.0-only
/*
 * netfs KUnit harness: what the fake server stores, and the content
 * encryption of the test files.
 *
 * A scenario with .crypt makes its files encrypted in blocks of that
 * size: the fake server stores (and the fake cache may only ever hold) the
 * ciphertext, xts(aes) with a key of the file's own and each block's
 * number as the IV, as fscrypt does.  It stores whole blocks: the
 * ciphertext ends at the content rounded up to a block.  The fake netfs's
 * decrypt hook (nk_crypto_ops) counts what it is given wrong, checks that
 * no folio of the block was unlocked uptodate before its plaintext was
 * there, and authenticates the block, as an AEAD would: what it decrypts
 * to must be the server's content at that place, so a corrupted block,
 * or one given at the wrong place, fails with -EBADMSG.  The fakes hold
 * a reference on every folio of the library's buffer that they read
 * into, until the case checks that theirs is the last one
 * (nk_check_buffers()).
 *
 * The library's API for this exists only with CONFIG_NETFS_CONTENT_CRYPTO
 * (our implementation): elsewhere the runner skips such scenarios.
 */

#include <crypto/skcipher.h>
#include <linux/highmem.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <asm/unaligned.h>

#include "harness.h"

#define NK_KEY_SIZE	64	/* AES-256-XTS: two keys */

/**
 * nk_crypt_file - make a new file encrypted, if its scenario says so
 * @ni: the file, its netfs context initialised
 *
 * Return: 0, or the crypto API's error.
 */
int nk_crypt_file(struct nk_inode *ni)
{
	size_t bs = ni->env->sc->crypt;
	struct nk_rng rng = { .s = ni->id };
	u8 key[NK_KEY_SIZE];
	int i;

	if (!bs)
		return 0;
	ni->tfm = crypto_alloc_sync_skcipher("xts(aes)", 0, 0);
	if (IS_ERR(ni->tfm)) {
		i = PTR_ERR(ni->tfm);
		ni->tfm = NULL;
		return i;
	}
	for (i = 0; i < NK_KEY_SIZE; i += 8)
		put_unaligned_le64(nk_rand(&rng), key + i);
#ifdef CONFIG_NETFS_CONTENT_CRYPTO
	ni->netfs.crypto_block_shift = ilog2(bs);
#endif
	return crypto_sync_skcipher_setkey(ni->tfm, key, sizeof(key));
}

/* En- or decrypt the file's block at @pos, in @blk (kmalloc'd), in place */
static int nk_cipher(struct nk_inode *ni, loff_t pos, u8 *blk, bool enc)
{
	SYNC_SKCIPHER_REQUEST_ON_STACK(req, ni->tfm);
	size_t bs = ni->env->sc->crypt;
	__le64 iv[2] = { cpu_to_le64(pos >> ilog2(bs)), 0 };
	struct scatterlist sg;
	int ret;

	sg_init_one(&sg, blk, bs);
	skcipher_request_set_sync_tfm(req, ni->tfm);
	skcipher_request_set_callback(req, 0, NULL, NULL);
	skcipher_request_set_crypt(req, &sg, &sg, bs, iv);
	ret = enc ? crypto_skcipher_encrypt(req) : crypto_skcipher_decrypt(req);
	skcipher_request_zero(req);
	return ret;
}

/* Where what the server stores of a file ends */
loff_t nk_stored_end(struct nk_inode *ni)
{
	loff_t content = READ_ONCE(ni->content);

	return ni->env->sc->crypt ? round_up(content, ni->env->sc->crypt) : content;
}

/**
 * nk_stored - what the fake server stores of a file
 * @ni: the file
 * @pos: from here
 * @buf: into here
 * @n: this many bytes
 * @served: with .corrupt applied (what it sends), or not (what it wrote)
 *
 * Its content (nk_expected()) for a plaintext file, else the ciphertext;
 * zeroes past nk_stored_end().  Process context.
 *
 * Return: 0, or a negative error.
 */
int nk_stored(struct nk_inode *ni, loff_t pos, u8 *buf, size_t n, bool served)
{
	const struct nk_range *bad = &ni->env->sc->corrupt;
	size_t bs = ni->env->sc->crypt;
	loff_t end = nk_stored_end(ni);
	int ret = 0;
	u8 *blk;

	if (!bs) {
		nk_expected(ni, pos, buf, n, false);
		return 0;
	}
	blk = kmalloc(bs, GFP_KERNEL);
	if (!blk)
		return -ENOMEM;
	while (n && !ret) {
		loff_t b = round_down(pos, bs);
		size_t off = pos - b, run = min_t(size_t, n, bs - off);

		if (b >= end) {
			memset(buf, 0, run);
		} else {
			nk_expected(ni, b, blk, bs, false);
			ret = nk_cipher(ni, b, blk, true);
			if (served && nk_in_range(bad, b, b + bs))
				blk[bs / 2] ^= 0x5a;
			memcpy(buf, blk + off, run);
		}
		buf += run;
		pos += run;
		n -= run;
	}
	kfree(blk);
	return ret;
}

/**
 * nk_check_stored - every page the fake cache holds is what the server stores
 * @env: the environment
 * @ni: the file
 *
 * What it stores is made a block at a time, for all the pages in it.
 */
void nk_check_stored(struct nk_env *env, struct nk_inode *ni)
{
	size_t bs = max_t(size_t, env->sc->crypt, PAGE_SIZE), i;
	loff_t block = -1, pos;
	unsigned long index;
	u8 *page, *want;
	int ret = 0;

	want = kvmalloc(bs, GFP_KERNEL);
	if (!want) {
		nk_fail(env, "no memory to check the cache");
		return;
	}
	xa_for_each(&ni->store, index, page) {
		if (xa_is_value(page))
			continue;
		pos = (loff_t)index << PAGE_SHIFT;
		if (round_down(pos, bs) != block) {
			block = round_down(pos, bs);
			ret = nk_stored(ni, block, want, bs, true);
			if (ret)
				break;
		}
		for (i = 0; i < PAGE_SIZE; i++)
			if (page[i] != want[pos - block + i])
				break;
		if (i < PAGE_SIZE) {
			nk_fail(env, "cache: byte %lld is %#x, the server stores %#x",
				pos + i, page[i], want[pos - block + i]);
			break;
		}
	}
	nk_check(env, !ret, "cache: cannot tell what the server stores: %d", ret);
	kvfree(want);
}

/**
 * nk_note_buffer - the fakes read into a buffer that is not the page cache
 * @env: the environment
 * @iter: an ITER_XARRAY, at where they read to
 * @n: how far
 *
 * Each folio is held (once) until nk_check_buffers().  Any context.
 */
void nk_note_buffer(struct nk_env *env, const struct iov_iter *iter, size_t n)
{
	loff_t pos = iter->xarray_start + iter->iov_offset;
	XA_STATE(xas, iter->xarray, pos >> PAGE_SHIFT);
	struct folio *folio;

	if (!n)
		return;
	rcu_read_lock();
	xas_for_each(&xas, folio, (pos + n - 1) >> PAGE_SHIFT) {
		if (xas_retry(&xas, folio) || xa_is_value(folio))
			continue;
		if (!xa_insert_bh(&env->buffers, folio_pfn(folio), folio,
				  GFP_ATOMIC))
			folio_get(folio);
	}
	rcu_read_unlock();
}

/**
 * nk_check_buffers - the library let go of every buffer folio the fakes saw
 * @env: the environment, its requests freed
 * @check: report a folio that is still held by someone else
 *
 * The fakes' references go too.
 */
void nk_check_buffers(struct nk_env *env, bool check)
{
	struct folio *folio;
	unsigned long pfn;

	xa_for_each(&env->buffers, pfn, folio) {
		nk_check(env, !check || folio_ref_count(folio) == 1,
			 "a bounce folio of %zu bytes has %d references after its request was freed",
			 folio_size(folio), folio_ref_count(folio) - 1);
		xa_erase_bh(&env->buffers, pfn);
		folio_put(folio);
	}
}

#ifdef CONFIG_NETFS_CONTENT_CRYPTO
struct nk_plain_walk {
	struct nk_inode *ni;
	u8 *scratch;			/* a page */
	bool ok;
};

/*
 * An unlocked, uptodate folio must hold its plaintext, or what the test
 * wrote: not one that a write of the test is writing now.
 */
static bool nk_check_plain(struct folio *folio, void *arg)
{
	struct nk_plain_walk *w = arg;
	loff_t start = folio_pos(folio);
	size_t off;

	if (!folio_test_uptodate(folio) || folio_test_locked(folio) ||
	    nk_in_range(&w->ni->writing, start, start + folio_size(folio)))
		return true;
	for (off = 0; w->ok && off < folio_size(folio); off += PAGE_SIZE) {
		u8 *addr = kmap_local_folio(folio, off);

		nk_expected(w->ni, start + off, w->scratch, PAGE_SIZE, true);
		w->ok = !memcmp(addr, w->scratch, PAGE_SIZE);
		kunmap_local(addr);
	}
	return w->ok;
}

/*
 * The fake netfs's decrypt hook.  What it is given wrong is counted
 * (bad_decrypts, early), not reported: see harness.h.
 */
static int nk_decrypt(struct netfs_io_request *rreq, loff_t pos, size_t len,
		      struct iov_iter *source, struct iov_iter *dest)
{
	struct nk_inode *ni = NK_I(rreq->inode);
	struct nk_env *env = ni->env;
	size_t bs = env->sc->crypt;
	struct nk_plain_walk w = { .ni = ni, .ok = true };
	u8 *blk, *want;
	int ret;

	might_sleep();	/* fscrypt may wait for a crypto driver */
	atomic_inc(&env->n.decrypts);
	if (!in_task() || len != bs || (pos & (bs - 1)) ||
	    iov_iter_count(source) != len || iov_iter_count(dest) != len) {
		atomic_inc(&env->n.bad_decrypts);
		return -EINVAL;
	}
	blk = kmalloc(bs, GFP_KERNEL);
	want = kvmalloc(bs + PAGE_SIZE, GFP_KERNEL);
	ret = -ENOMEM;
	if (!blk || !want)
		goto out;

	w.scratch = want + bs;
	nk_walk_folios(rreq->mapping, pos, pos + len, nk_check_plain, &w);
	if (!w.ok)
		atomic_inc(&env->n.early);

	ret = -EFAULT;
	if (copy_from_iter(blk, len, source) != len)
		goto out;
	/* authenticate it, as an AEAD would: is it what the server wrote? */
	ret = nk_cipher(ni, pos, blk, false);
	nk_expected(ni, pos, want, bs, false);
	if (!ret && memcmp(blk, want, bs))
		ret = -EBADMSG;
	if (!ret && copy_to_iter(blk, len, dest) != len)
		ret = -EFAULT;
out:
	if (ret == -EFAULT)
		atomic_inc(&env->n.violations);
	kvfree(want);
	kfree(blk);
	return ret;
}

const struct netfs_crypto_ops nk_crypto_ops = {
	.decrypt	= nk_decrypt,
};
#endif
