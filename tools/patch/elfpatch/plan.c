/* SPDX-License-Identifier: MIT */
/* The three plans of elfpatch.h: patch (the record in place when it fits,
 * else grow.h's strategies), restore (the trailer's bytes back) and the
 * forced restore after a rewrite. */
#include "internal.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "../../../common/elf/record.h"
#include "grow.h"

struct plan_edit *add_edit(struct patch_plan *plan, uint64_t off, uint32_t len)
{
	if (plan->n_edits >= PLAN_MAX_EDITS)
		return NULL;
	struct plan_edit *e = &plan->edits[plan->n_edits];
	e->bytes = calloc(1, len ? len : 1);
	if (!e->bytes)
		return NULL;
	e->off = off;
	e->len = len;
	plan->n_edits++;
	return e;
}

/* Does the string share bytes with the headers?  (Only a crafted file does;
 * rewriting it in place would then rewrite them too.) */
static bool overlaps_tables(const struct loaded *l, const GElf_Phdr *pi)
{
	size_t ehsize = gelf_fsize(l->elf, ELF_T_EHDR, 1, EV_CURRENT);
	return overlap(pi->p_offset, pi->p_filesz, 0, ehsize) ||
	       overlap(pi->p_offset, pi->p_filesz, l->eh.e_phoff,
		       (uint64_t)l->phnum * l->eh.e_phentsize) ||
	       overlap(pi->p_offset, pi->p_filesz, l->eh.e_shoff,
		       (uint64_t)l->eh.e_shnum * l->eh.e_shentsize);
}

int elfpatch_plan_patch(unsigned char *img, size_t len, const char *interp,
			struct patch_plan *plan, char *why, size_t whycap)
{
	struct loaded l;
	struct elf_facts f;
	int r = -1;

	memset(plan, 0, sizeof *plan);
	memset(&l, 0, sizeof l);
	plan->keep = len;
	if (inspect_loaded(img, len, &l, &f, why, whycap) < 0)
		goto out;
	if (f.kind != FOUND_DYNAMIC) {
		why_fail(why, whycap, "not a dynamically linked executable");
		goto out;
	}
	if (f.recorded[0]) {
		why_fail(why, whycap, "already patched (original interpreter %s)", f.recorded);
		goto out;
	}
	if (strcmp(f.interp, interp) == 0) {
		r = 0;	/* nothing to change: the plan keeps the file as it is */
		goto out;
	}

	/* "<interp>\0cudaload-orig:<original>\0" */
	size_t il = strlen(interp), ml = strlen(RECORD_MAGIC), ol = strlen(f.interp);
	size_t nblen = il + 1 + ml + ol + 1;
	if (il == 0 || nblen > CL_PATH_MAX) {
		why_fail(why, whycap, "the new interpreter path is empty or too long");
		goto out;
	}
	unsigned char nb[CL_PATH_MAX];
	memcpy(nb, interp, il + 1);
	memcpy(nb + il + 1, RECORD_MAGIC, ml);
	memcpy(nb + il + 1 + ml, f.interp, ol + 1);

	const GElf_Phdr *pi = &l.ph[l.interp];
	if (nblen <= pi->p_filesz && !overlaps_tables(&l, pi)) {
		/* fits: rewrite the string where it is, the rest of it zeroed */
		struct plan_edit *e = add_edit(plan, pi->p_offset, (uint32_t)pi->p_filesz);
		if (!e) {
			why_fail(why, whycap, "out of memory");
			goto out;
		}
		memcpy(e->bytes, nb, nblen);
	} else if (grow_plan(img, len, &l, nb, nblen, plan, why, whycap) < 0) {
		goto out;
	}

	size_t tlen;
	unsigned char *t = trailer_make(img, len, plan, len + plan->pad + plan->tail_len, &tlen);
	unsigned char *tail = t ? realloc(plan->tail, plan->tail_len + tlen) : NULL;
	if (!tail) {
		free(t);
		why_fail(why, whycap, "out of memory");
		goto out;
	}
	memcpy(tail + plan->tail_len, t, tlen);
	free(t);
	plan->tail = tail;
	plan->tail_len += tlen;
	r = 0;
out:
	loaded_free(&l);
	if (r < 0)
		patch_plan_free(plan);
	return r;
}

int elfpatch_plan_restore(unsigned char *img, size_t len, struct patch_plan *plan,
			  char *why, size_t whycap)
{
	struct elf_facts f;
	uint64_t orig;

	memset(plan, 0, sizeof *plan);
	if (elfpatch_inspect(img, len, &f, why, whycap) < 0)
		return -1;
	if (!f.recorded[0])
		return why_fail(why, whycap, "not patched by cudaload-patch");
	if (trailer_read(img, len, &orig, NULL, plan) < 0) {
		patch_plan_free(plan);
		return why_fail(why, whycap, "cannot restore byte for byte: the restore record is missing "
				      "or damaged (the file was rewritten after patching, by strip, "
				      "objcopy or patchelf?); --restore --force sets the original "
				      "interpreter back");
	}
	plan->keep = orig;
	if (patch_plan_hash(img, plan) != plan->orig_hash) {
		patch_plan_free(plan);
		return why_fail(why, whycap, "cannot restore byte for byte: the file was changed after "
				      "patching (by strip, objcopy or patchelf?); --restore --force sets "
				      "the original interpreter back");
	}
	return 0;
}

int elfpatch_plan_force_restore(unsigned char *img, size_t len, struct patch_plan *plan,
				char *why, size_t whycap)
{
	struct loaded l;
	struct elf_facts f;
	int r = -1;

	memset(plan, 0, sizeof *plan);
	plan->keep = len;
	if (inspect_loaded(img, len, &l, &f, why, whycap) < 0)
		goto out;
	if (f.kind != FOUND_DYNAMIC || !f.recorded[0]) {
		why_fail(why, whycap, "not patched by cudaload-patch");
		goto out;
	}
	/* the original string where the record was, NUL padded: it is shorter */
	const GElf_Phdr *pi = &l.ph[l.interp];
	size_t ol = strlen(f.recorded);
	struct plan_edit *e = ol + 1 <= pi->p_filesz && !overlaps_tables(&l, pi)
		? add_edit(plan, pi->p_offset, (uint32_t)pi->p_filesz) : NULL;
	if (!e) {
		why_fail(why, whycap, "cannot write the original interpreter back");
		goto out;
	}
	memcpy(e->bytes, f.recorded, ol + 1);
	r = 0;
out:
	loaded_free(&l);
	if (r < 0)
		patch_plan_free(plan);
	return r;
}
