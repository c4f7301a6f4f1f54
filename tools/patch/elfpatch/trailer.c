/* SPDX-License-Identifier: MIT */
/* The restore trailer every patched file ends with, and the hash that lets
 * --restore prove it gives back the original:
 *
 *   "CLREST01" u64 orig_size u64 orig_hash u32 n { u64 off u32 len bytes[len] }*n
 *   u64 start "CLREST01"
 *
 * all little-endian whatever the ELF's byte order (docs/design.md §9). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define TRAILER_MAGIC "CLREST01"	/* 8 bytes */
#define TRAILER_MAGIC_LEN 8
#define HEAD_LEN (TRAILER_MAGIC_LEN + 20)	/* magic, size, hash, count */

static void put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* FNV-1a over 64-bit little-endian words (then the odd bytes): as strong a
 * check as byte-wise FNV for this purpose, eight times fewer multiplies.
 * Pieces hashed in turn must split at multiples of 8 to give the same sum,
 * so hash_feed keeps a small carry buffer. */
static uint64_t fnv1a_words(uint64_t h, const unsigned char *p, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8)
		h = (h ^ get_le(p + i, 8)) * 0x100000001b3ULL;
	for (; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

void hash_feed(struct hasher *hs, const unsigned char *p, size_t n)
{
	while (n && hs->nc) {	/* complete a word left over from the last piece */
		hs->carry[hs->nc++] = *p++;
		n--;
		if (hs->nc == 8) {
			hs->h = fnv1a_words(hs->h, hs->carry, 8);
			hs->nc = 0;
		}
	}
	if (hs->nc)
		return;	/* the piece was used up completing the carried word */
	size_t whole = n & ~(size_t)7;
	hs->h = fnv1a_words(hs->h, p, whole);
	memcpy(hs->carry, p + whole, n - whole);
	hs->nc = n - whole;
}

uint64_t hash_end(struct hasher *hs)
{
	return fnv1a_words(hs->h, hs->carry, hs->nc);
}

static int hash_piece(void *ctx, const unsigned char *p, size_t n)
{
	static const unsigned char zeros[4096];
	while (!p && n) {
		size_t k = n < sizeof zeros ? n : sizeof zeros;
		hash_feed(ctx, zeros, k);
		n -= k;
	}
	if (p)
		hash_feed(ctx, p, n);
	return 0;
}

uint64_t patch_plan_hash(const unsigned char *img, const struct patch_plan *plan)
{
	struct hasher hs = { FNV_START, { 0 }, 0 };
	return patch_plan_walk(img, plan, hash_piece, &hs) == 0 ? hash_end(&hs) : 0;
}

int trailer_read(const unsigned char *img, size_t len, uint64_t *orig_size,
		 uint64_t *start_out, struct patch_plan *plan)
{
	if (len < 16 + HEAD_LEN ||
	    memcmp(img + len - TRAILER_MAGIC_LEN, TRAILER_MAGIC, TRAILER_MAGIC_LEN) != 0)
		return -1;
	uint64_t start = get_le(img + len - 16, 8);
	if (start > len - 16 - HEAD_LEN ||
	    memcmp(img + start, TRAILER_MAGIC, TRAILER_MAGIC_LEN) != 0)
		return -1;
	const unsigned char *p = img + start + TRAILER_MAGIC_LEN, *end = img + len - 16;
	uint64_t orig = get_le(p, 8);
	if (plan)
		plan->orig_hash = get_le(p + 8, 8);
	uint32_t n = (uint32_t)get_le(p + 16, 4);
	p += 20;
	if (orig > start || n > PLAN_MAX_EDITS)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		if (end - p < 12)
			return -1;
		uint64_t off = get_le(p, 8);
		uint32_t elen = (uint32_t)get_le(p + 8, 4);
		p += 12;
		if ((uint64_t)(end - p) < elen || off > orig || elen > orig - off)
			return -1;
		if (plan) {
			struct plan_edit *e = &plan->edits[plan->n_edits];
			e->bytes = malloc(elen ? elen : 1);
			if (!e->bytes)
				return -1;
			memcpy(e->bytes, p, elen);
			e->off = off;
			e->len = elen;
			plan->n_edits++;
		}
		p += elen;
	}
	if (p != end)
		return -1;
	*orig_size = orig;
	if (start_out)
		*start_out = start;
	return 0;
}

unsigned char *trailer_make(const unsigned char *img, uint64_t orig_size,
			    const struct patch_plan *plan, uint64_t start, size_t *out_len)
{
	size_t n = HEAD_LEN + 8 + TRAILER_MAGIC_LEN;
	for (int i = 0; i < plan->n_edits; i++)
		n += 12 + plan->edits[i].len;
	unsigned char *t = malloc(n), *p = t;
	if (!t)
		return NULL;
	memcpy(p, TRAILER_MAGIC, TRAILER_MAGIC_LEN);
	put_le(p + 8, orig_size, 8);
	struct hasher hs = { FNV_START, { 0 }, 0 };
	hash_feed(&hs, img, orig_size);
	put_le(p + 16, hash_end(&hs), 8);
	put_le(p + 24, (uint64_t)plan->n_edits, 4);
	p += HEAD_LEN;
	for (int i = 0; i < plan->n_edits; i++) {
		put_le(p, plan->edits[i].off, 8);
		put_le(p + 8, plan->edits[i].len, 4);
		memcpy(p + 12, img + plan->edits[i].off, plan->edits[i].len);
		p += 12 + plan->edits[i].len;
	}
	put_le(p, start, 8);
	memcpy(p + 8, TRAILER_MAGIC, TRAILER_MAGIC_LEN);
	*out_len = n;
	return t;
}
