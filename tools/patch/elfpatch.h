/* SPDX-License-Identifier: MIT */
/*
 * elfpatch: the ELF side of cudaload-patch, on a file image in memory
 * (tools/patch/elfpatch/, one file per concern; internal.h says which).
 *
 * inspect says what a file is (dynamic executable, static, library, script,
 * not ELF, patched) from libelf's view of it plus our own bounds checks.
 * patch and restore compute a plan: the bytes of the original to keep, a few
 * in-place edits, and a tail to append.  Planning reads only the image;
 * patch_plan_write puts the planned file out through a descriptor the
 * caller opened (opening, renaming and syncing are the patcher's: files.c, batch.c).
 *
 * A patched file's PT_INTERP holds the record of common/elf/record.h
 * ("cudaload\0cudaload-orig:<original>\0"), which the loader reads from
 * memory.  When that does not fit the old PT_INTERP, the file grows so that
 * strip, objcopy, eu-strip and patchelf can still rewrite it: the program
 * header table stays right after the ELF header and takes one more entry;
 * the sections it grows into (.interp, notes, hash tables ...) move byte for
 * byte into one new PT_LOAD placed after every existing segment, followed by
 * the new .interp; their section headers go to the end of the table (kept in
 * file order), and program headers, dynamic tags and symbols follow them
 * (docs/design.md §9, elfpatch/grow.h).  A file of another shape (a table not
 * after the header, something immovable after it) gets a new program header
 * table in that segment instead.  Every patched file ends with a restore
 * trailer: the original size and the original bytes of each edited region,
 * so --restore gives back the file byte for byte; after a rewrite,
 * force_restore sets the original interpreter back in place.
 *
 * inspect also says whether a program uses CUDA, by the rule of usescuda.h:
 * a CUDA library in DT_NEEDED, embedded device code (.nv_fatbin,
 * .nvFatBinSegment: static cudart), or "libcuda.so" in read-only data (a
 * dlopen of the driver).
 */
#ifndef CUDALOAD_ELFPATCH_H
#define CUDALOAD_ELFPATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/base/sys.h"

enum elf_kind_found {
	FOUND_NOT_ELF,		/* includes empty and truncated-before-magic files */
	FOUND_SCRIPT,		/* #! */
	FOUND_OBJECT,		/* relocatable, core, unknown type */
	FOUND_LIBRARY,		/* ET_DYN without PT_INTERP */
	FOUND_STATIC,		/* ET_EXEC without PT_INTERP */
	FOUND_CUDALOAD,		/* cudaload itself (its identity note) */
	FOUND_DYNAMIC,		/* has PT_INTERP: what we patch */
};

struct elf_facts {
	enum elf_kind_found kind;
	int cls, machine;
	char interp[CL_PATH_MAX];
	char recorded[CL_PATH_MAX];	/* original interpreter when patched */
	bool patched;			/* record and restore trailer present */
	bool uses_cuda;
	char cuda_lib[64];		/* what says so: a DT_NEEDED, device code, a dlopen */
	bool own_program;		/* one of cudaload's helpers (identity.h) */
};

#define PLAN_MAX_EDITS 32

struct plan_edit {
	uint64_t off;
	uint32_t len;
	unsigned char *bytes;
};

struct patch_plan {
	uint64_t keep;			/* bytes of the original image kept */
	struct plan_edit edits[PLAN_MAX_EDITS];
	int n_edits;
	uint64_t pad;			/* zeros after the kept bytes (a hole on disk) */
	unsigned char *tail;		/* appended after them */
	size_t tail_len;
	bool grew;			/* a new segment was added */
	uint64_t orig_hash;		/* restore: what the result must hash to */
};

void elfpatch_init(void);

/* 0, or -1 with a reason (a malformed file; not a "skip"). */
int elfpatch_inspect(unsigned char *img, size_t len, struct elf_facts *out,
		     char *why, size_t whycap);

/* Plan to give a dynamic executable the interpreter `interp` (recording the
 * old one).  0, or -1 with a reason. */
int elfpatch_plan_patch(unsigned char *img, size_t len, const char *interp,
			struct patch_plan *plan, char *why, size_t whycap);

/* Plan to undo a patch.  0, or -1 with a reason. */
int elfpatch_plan_restore(unsigned char *img, size_t len, struct patch_plan *plan,
			  char *why, size_t whycap);

/* After a rewrite (strip, objcopy, patchelf) a byte-identical restore is
 * impossible: set the recorded original interpreter back in place instead
 * (PT_INTERP keeps its size, NUL padded; the rest of the layout stays). */
int elfpatch_plan_force_restore(unsigned char *img, size_t len, struct patch_plan *plan,
				char *why, size_t whycap);

/* Size of the file the plan produces, and the file itself (malloc'd). */
uint64_t patch_plan_size(const struct patch_plan *plan);
unsigned char *patch_plan_render(const unsigned char *img, const struct patch_plan *plan);

/* Write the planned file to fd.  0, or -errno. */
int patch_plan_write(int fd, const unsigned char *img, const struct patch_plan *plan);

void patch_plan_free(struct patch_plan *plan);

/* Does a DT_NEEDED name say the program uses CUDA?  (The documented rule;
 * the whole of it is in usescuda.h.) */
bool elfpatch_needed_is_cuda(const char *name);

#endif
