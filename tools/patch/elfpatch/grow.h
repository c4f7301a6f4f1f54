/* SPDX-License-Identifier: MIT */
/*
 * grow: room for a PT_INTERP string that does not fit the old one, in one
 * of two layouts (docs/design.md §9).
 *
 * Front (strip-safe), when the file's shape allows: binutils (strip,
 * objcopy) and elfutils rewrite a file from its section headers and always
 * put the program header table right after the ELF header, losing or moving
 * bytes only a segment covers.  So, like patchelf --set-interpreter, the
 * table stays where it is and takes one more entry over the sections that
 * follow it (.interp, notes, hash tables ...); those move, byte for byte,
 * into one new PT_LOAD after every existing segment, followed by the new
 * .interp.  Every byte of that segment belongs to a section, so the
 * rewriting tools keep it.  Their section headers go to the end of the
 * table (kept in file order); program headers, dynamic tags and symbols
 * follow them.
 *
 * Append, for any other shape (a table not after the header, something
 * immovable after it): a new program header table and the string in a new
 * PT_LOAD at the end.
 *
 * The front layout is a sequence of steps over one struct grow, each
 * answering GROW_DONE (go on), GROW_OTHER_SHAPE (the file has not the
 * shape: discard the plan, append instead) or GROW_FAILED (why says it).
 * The steps are declared here so that the unit tests can run them one by
 * one; grow_plan is what plan.c calls.
 */
#ifndef CUDALOAD_ELFPATCH_GROW_H
#define CUDALOAD_ELFPATCH_GROW_H

#include "internal.h"

#define GROW_MOVE_MAX 64		/* sections that may move */
#define GROW_MAX_PADDING (64u << 20)	/* growing past a huge bss is refused */
#define GROW_DEFAULT_ALIGN 0x1000

/* The PT_LOAD segments at a glance: the first, the largest alignment (at
 * least a page), where the highest one's memory ends, and the last's index
 * (-1: none). */
struct load_span {
	const GElf_Phdr *first;
	uint64_t align, maxend;
	int last;
};

void load_span(const struct loaded *l, struct load_span *s);

enum grow_result {
	GROW_DONE,
	GROW_OTHER_SHAPE,
	GROW_FAILED,
};

/* A section that moves (index 0: none, bytes only a segment covers). */
struct moved {
	size_t index;
	uint64_t off, size;
};

struct grow {
	/* what it works on (grow_start) */
	const unsigned char *img;
	size_t len;
	const struct loaded *l;
	const GElf_Phdr *pi;		/* the old PT_INTERP */
	const unsigned char *nb;	/* the new string, record included */
	size_t nblen;
	struct patch_plan *plan;	/* empty, keeping len bytes */
	char *why;
	size_t cap;

	/* the shape (grow_shape) */
	size_t ehsize, entsize, n;	/* n: program headers after the patch */
	unsigned enc;			/* ELFDATA2LSB or ELFDATA2MSB */
	uint64_t phend, need;		/* where the table ends now, and then */
	struct load_span span;
	uint64_t delta;			/* the first PT_LOAD's address, at offset 0 */

	/* what moves (grow_find_moved; grow_renumber adds .interp) */
	size_t shnum;			/* 0: no section headers */
	struct moved mv[GROW_MOVE_MAX];
	size_t nmv;
	uint64_t lo, hi;		/* the block that moves, [lo, hi) */
	uint64_t zero_end;		/* the edit at 0 covers [0, zero_end) */

	/* where it goes (grow_place) */
	uint64_t x;			/* the new segment's file offset */
	uint64_t dm;			/* how far the moved bytes go: x - lo */
	uint64_t block, interp_at, seg_size;

	/* the headers (grow_headers, grow_section_headers) */
	GElf_Ehdr eh;			/* the new ELF header */
	struct plan_edit *head;		/* the edit at 0: it, the table, zeros */

	/* the numbering (grow_renumber): shnum entries */
	size_t interp_idx;		/* .interp's section, 0: none */
	size_t *newidx;

	/* held by the steps, freed by grow_end */
	GElf_Phdr *ph;
	GElf_Dyn *dyn;
};

/* Ready g for the steps; l must have a PT_INTERP. */
void grow_start(struct grow *g, const unsigned char *img, size_t len, const struct loaded *l,
		const unsigned char *nb, size_t nblen, struct patch_plan *plan,
		char *why, size_t cap);

/* The steps, in order. */
typedef enum grow_result grow_step(struct grow *g);
grow_step grow_shape;		/* the table after the header, the first PT_LOAD at 0 over it */
grow_step grow_find_moved;	/* the sections and segments the bigger table takes over */
grow_step grow_place;		/* the new segment's offset: past the file and all memory */
grow_step grow_copy_block;	/* the tail: the moved bytes, then the new string */
grow_step grow_headers;		/* the ELF header and the bigger program header table */
grow_step grow_renumber;	/* section indices: what moved goes to the end */
grow_step grow_section_headers;	/* the section header table, renumbered and moved */
grow_step grow_dynamic;		/* dynamic tags that point at moved bytes */
grow_step grow_symbols;		/* symbols in moved sections, and every st_shndx */
grow_step grow_check_edits;	/* the edits do not overlap (restore stays exact) */

extern grow_step *const grow_steps[];
extern const size_t grow_nsteps;

/* Frees what the steps hold (not the plan). */
void grow_end(struct grow *g);

/* Every step until one is not GROW_DONE, then grow_end. */
enum grow_result grow_front(struct grow *g);

/* The append layout.  0, or -1 with a reason. */
int grow_append(size_t len, const struct loaded *l, const unsigned char *nb, size_t nblen,
		struct patch_plan *plan, char *why, size_t cap);

/* Plan the growth for the string nb (nblen bytes) into an empty plan
 * keeping len bytes: the front layout, else the append one.  0, or -1 with
 * a reason (the caller frees the plan). */
int grow_plan(const unsigned char *img, size_t len, const struct loaded *l,
	      const unsigned char *nb, size_t nblen, struct patch_plan *plan,
	      char *why, size_t cap);

#endif
