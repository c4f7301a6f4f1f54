/* SPDX-License-Identifier: MIT */
/* The restore trailer and its hash (tools/patch/elfpatch/trailer.c). */
#include "helpers.h"

#include "../../tools/patch/elfpatch/internal.h"

static uint64_t hash_whole(const unsigned char *p, size_t n)
{
	struct hasher hs = { FNV_START, { 0 }, 0 };
	hash_feed(&hs, p, n);
	return hash_end(&hs);
}

Test(trailer, the_hash_of_pieces_is_the_hash_of_the_whole)
{
	unsigned char buf[1000];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	uint64_t whole = hash_whole(buf, sizeof buf);
	cr_assert_neq(whole, hash_whole(buf, sizeof buf - 1));
	static const size_t steps[] = { 1, 3, 7, 8, 9, 13, 64, 333 };
	for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
		struct hasher hs = { FNV_START, { 0 }, 0 };
		for (size_t at = 0, k = 0; at < sizeof buf; k++) {
			size_t n = steps[(s + k) % (sizeof steps / sizeof steps[0])];
			n = n < sizeof buf - at ? n : sizeof buf - at;
			hash_feed(&hs, buf + at, n);
			at += n;
		}
		cr_assert_eq(hash_end(&hs), whole, "pieces starting at %zu", steps[s]);
	}
	/* FNV-1a over one little-endian word, by hand */
	unsigned char w[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	cr_assert_eq(hash_whole(w, 8), (FNV_START ^ 0x0807060504030201ULL) * 0x100000001b3ULL);
}

/* A file of len bytes with two edits planned, and its trailer appended. */
static unsigned char *with_trailer(const unsigned char *img, size_t len, struct patch_plan *plan,
				   size_t *out_len)
{
	memset(plan, 0, sizeof *plan);
	plan->keep = len;
	struct plan_edit *a = add_edit(plan, 4, 3), *b = add_edit(plan, 20, 5);
	cr_assert(a && b);
	memset(a->bytes, 'A', 3);
	memset(b->bytes, 'B', 5);
	size_t tlen;
	unsigned char *t = trailer_make(img, len, plan, len, &tlen);
	cr_assert(t);
	cr_assert_eq(tlen, 8 + 20 + 2 * 12 + 3 + 5 + 8 + 8);
	unsigned char *f = malloc(len + tlen);
	memcpy(f, img, len);
	memcpy(f + len, t, tlen);
	free(t);
	*out_len = len + tlen;
	return f;
}

Test(trailer, read_back_what_was_made)
{
	unsigned char img[64];
	for (size_t i = 0; i < sizeof img; i++)
		img[i] = (unsigned char)i;
	struct patch_plan made, read;
	size_t flen;
	unsigned char *f = with_trailer(img, sizeof img, &made, &flen);
	cr_assert_eq(memcmp(f + sizeof img, "CLREST01", 8), 0);
	cr_assert_eq(memcmp(f + flen - 8, "CLREST01", 8), 0);

	uint64_t orig, start;
	memset(&read, 0, sizeof read);
	cr_assert_eq(trailer_read(f, flen, &orig, &start, &read), 0);
	cr_assert_eq(orig, sizeof img);
	cr_assert_eq(start, sizeof img);
	cr_assert_eq(read.orig_hash, hash_whole(img, sizeof img));
	cr_assert_eq(read.n_edits, 2);
	cr_assert_eq(read.edits[0].off, 4);
	cr_assert_eq(read.edits[0].len, 3);
	cr_assert_eq(memcmp(read.edits[0].bytes, img + 4, 3), 0, "the original bytes, not the edit's");
	cr_assert_eq(read.edits[1].off, 20);
	cr_assert_eq(memcmp(read.edits[1].bytes, img + 20, 5), 0);
	cr_assert_eq(trailer_read(f, flen, &orig, NULL, NULL), 0, "without a plan: only checked");

	/* the restore plan hashes to the original */
	read.keep = orig;
	cr_assert_eq(patch_plan_hash(f, &read), read.orig_hash);
	patch_plan_free(&read);
	patch_plan_free(&made);
	free(f);
}

Test(trailer, damage_is_refused)
{
	unsigned char img[64] = { 0 };
	struct patch_plan made;
	size_t flen;
	unsigned char *f = with_trailer(img, sizeof img, &made, &flen);
	patch_plan_free(&made);
	uint64_t orig;
	const struct {
		size_t off;	/* from the end of the file */
		unsigned char x;
		const char *what;
	} pokes[] = {
		{ 1, 0x01, "the closing magic" },
		{ 16, 0x01, "the start offset" },
		{ 10, 0x80, "a start offset past the file" },
		{ flen - sizeof img, 0x01, "the opening magic" },
		{ flen - sizeof img - 8, 0x80, "an original size past the trailer" },
		{ flen - sizeof img - 24, 0x21, "more edits than a plan holds" },
		{ flen - sizeof img - 24, 0x01, "one edit more than there is" },
		{ flen - sizeof img - 24, 0x03, "one edit fewer: bytes left over" },
		{ flen - sizeof img - 28 - 8, 0x80, "an edit's length past the trailer" },
		{ flen - sizeof img - 28, 0x70, "an edit past the original size" },
	};
	for (size_t i = 0; i < sizeof pokes / sizeof pokes[0]; i++) {
		f[flen - pokes[i].off] ^= pokes[i].x;
		cr_assert_eq(trailer_read(f, flen, &orig, NULL, NULL), -1, "%s", pokes[i].what);
		f[flen - pokes[i].off] ^= pokes[i].x;
		cr_assert_eq(trailer_read(f, flen, &orig, NULL, NULL), 0);
	}
	cr_assert_eq(trailer_read(f, flen - 1, &orig, NULL, NULL), -1, "cut short");
	cr_assert_eq(trailer_read(f, 30, &orig, NULL, NULL), -1, "too short for a trailer");
	free(f);
}
