/* SPDX-License-Identifier: MIT */
/*
 * What the files of tools/patch/elfpatch/ share, grouped by the file that defines
 * it: the file as libelf read it (load.c), the bounds helpers every reader
 * uses, the class and byte-order encoders (encode.c), the restore trailer
 * and its hash (trailer.c), the plan's edits (plan.c) and the walk over a
 * plan (write.c).  The layout strategies have their own header, grow.h.
 *
 * Not an interface for anything outside tools/patch/elfpatch/ but its unit tests:
 * callers use ../elfpatch.h and usescuda.h (this folder's).
 */
#ifndef CUDALOAD_ELFPATCH_INTERNAL_H
#define CUDALOAD_ELFPATCH_INTERNAL_H

#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../../../common/base/why.h"
#include "../elfpatch.h"
#include "usescuda.h"

/* n bytes at off lie inside an image of len bytes (no overflow). */
static inline bool in_image(size_t len, uint64_t off, uint64_t n)
{
	return off <= len && n <= len - off;
}

/* Two non-empty ranges share a byte. */
static inline bool overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return an && bn && a < b + bn && b < a + an;
}

/* ---- load.c: reading through libelf, with our own bounds checks ---------- */

struct loaded {
	Elf *elf;
	GElf_Ehdr eh;
	GElf_Phdr *ph;		/* phnum entries, every PT_LOAD inside the image */
	size_t phnum;
	int interp;		/* index of the first PT_INTERP, or -1 */
	int dynamic;		/* index of the first PT_DYNAMIC, or -1 */
};

/* Read img as an ELF file: the headers and tables bounds-checked, the
 * program headers copied.  0, or -1 with a reason; loaded_free either way. */
int loaded_read(unsigned char *img, size_t len, struct loaded *l, char *why, size_t cap);
void loaded_free(struct loaded *l);

/* The file offset of a virtual address, through the PT_LOADs' file bytes. */
bool vaddr_to_off(const struct loaded *l, uint64_t vaddr, uint64_t *off);

/* elfpatch_inspect, keeping the loaded file for the caller (who frees it
 * with loaded_free whatever this returns). */
int inspect_loaded(unsigned char *img, size_t len, struct loaded *l,
		   struct elf_facts *out, char *why, size_t cap);

/* ---- usescuda.c: the rule, on a file already loaded ----------------------- */

/* usescuda_image without reading the file again (see ../usescuda.h). */
void usescuda_loaded(const unsigned char *img, size_t len, const struct loaded *l,
		     unsigned checks, struct cuda_use *out);

/* ---- encode.c: GElf structures to the file's class and byte order -------- */

/* Each 0, or -1 (libelf's error).  enc is ELFDATA2LSB or ELFDATA2MSB;
 * dstsize the bytes at dst, n entries of the file's size. */
int encode_ehdr(Elf *e, const GElf_Ehdr *h, unsigned char *dst, size_t dstsize);
int encode_phdrs(Elf *e, const GElf_Phdr *ph, size_t n, unsigned char *dst,
		 size_t dstsize, unsigned enc);
int encode_shdr(Elf *e, const GElf_Shdr *s, unsigned char *dst, size_t dstsize, unsigned enc);
int encode_dyn(Elf *e, const GElf_Dyn *d, size_t n, unsigned char *dst, size_t dstsize,
	       unsigned enc);
int encode_sym(Elf *e, const GElf_Sym *s, unsigned char *dst, size_t dstsize, unsigned enc);

/* ---- trailer.c: the restore trailer and its hash ------------------------- */

#define FNV_START 0xcbf29ce484222325ULL

/* FNV-1a over 64-bit words, fed in pieces of any size: the same sum as one
 * piece of the whole. */
struct hasher {
	uint64_t h;
	unsigned char carry[8];
	size_t nc;
};

void hash_feed(struct hasher *hs, const unsigned char *p, size_t n);
uint64_t hash_end(struct hasher *hs);

/* Hash of the file a plan produces, without producing it (0 for a plan
 * patch_plan_walk refuses). */
uint64_t patch_plan_hash(const unsigned char *img, const struct patch_plan *plan);

/* Parse the trailer at the end of img: 0 with the original size (and the
 * trailer's start, when start_out is not NULL), or -1 when there is none or
 * it is damaged.  With a plan, also its edits (copies) and orig_hash. */
int trailer_read(const unsigned char *img, size_t len, uint64_t *orig_size,
		 uint64_t *start_out, struct patch_plan *plan);

/* A trailer (malloc'd, *out_len bytes) recording the original bytes under
 * each of plan's edits, for a file whose trailer will start at start. */
unsigned char *trailer_make(const unsigned char *img, uint64_t orig_size,
			    const struct patch_plan *plan, uint64_t start, size_t *out_len);

/* ---- plan.c -------------------------------------------------------------- */

/* A new zeroed edit of len bytes at off, or NULL (too many, out of memory). */
struct plan_edit *add_edit(struct patch_plan *plan, uint64_t off, uint32_t len);

/* ---- write.c ------------------------------------------------------------- */

/* Visit the planned file piece by piece, in file order: kept bytes between
 * edits, the edits, the padding (p NULL: n zeros), the tail.  Stops at the
 * first non-zero return of fn and returns it; -EINVAL for overlapping edits
 * or one past the kept bytes. */
int patch_plan_walk(const unsigned char *img, const struct patch_plan *plan,
	      int (*fn)(void *ctx, const unsigned char *p, size_t n), void *ctx);

#endif
