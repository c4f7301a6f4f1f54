/* SPDX-License-Identifier: MIT */
/* Growing a file whose new PT_INTERP string does not fit the old one: the
 * front layout as steps over struct grow, and the append layout (grow.h). */
#include "grow.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

void load_span(const struct loaded *l, struct load_span *s)
{
	*s = (struct load_span){ .align = GROW_DEFAULT_ALIGN, .last = -1 };
	for (size_t i = 0; i < l->phnum; i++) {
		const GElf_Phdr *p = &l->ph[i];
		if (p->p_type != PT_LOAD)
			continue;
		if (!s->first)
			s->first = p;
		if (p->p_align > s->align)
			s->align = p->p_align;
		if (p->p_vaddr + p->p_memsz > s->maxend)
			s->maxend = p->p_vaddr + p->p_memsz;
		s->last = (int)i;
	}
}

__attribute__((format(printf, 2, 3)))
static enum grow_result grow_fail(struct grow *g, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	why_vfail(g->why, g->cap, fmt, ap);
	va_end(ap);
	return GROW_FAILED;
}

/* Section types whose address only program headers and dynamic tags hold:
 * safe to move (code never refers to them). */
static bool movable_type(uint32_t type)
{
	switch (type) {
	case SHT_NOTE: case SHT_HASH: case SHT_GNU_HASH: case SHT_DYNSYM:
	case SHT_STRTAB: case SHT_GNU_versym: case SHT_GNU_verneed: case SHT_GNU_verdef:
	case SHT_RELA: case SHT_REL: case 19 /* SHT_RELR */:
		return true;
	default:
		return false;
	}
}

/* Dynamic tags that hold the address of one of those sections. */
static bool pointer_tag(int64_t tag)
{
	switch (tag) {
	case DT_HASH: case DT_GNU_HASH: case DT_STRTAB: case DT_SYMTAB: case DT_RELA:
	case DT_REL: case DT_JMPREL: case DT_VERSYM: case DT_VERNEED: case DT_VERDEF:
	case 36 /* DT_RELR */:
		return true;
	default:
		return false;
	}
}

static bool is_moved(const struct grow *g, size_t index)
{
	for (size_t i = 0; i < g->nmv; i++)
		if (g->mv[i].index == index)
			return true;
	return false;
}

void grow_start(struct grow *g, const unsigned char *img, size_t len, const struct loaded *l,
		const unsigned char *nb, size_t nblen, struct patch_plan *plan,
		char *why, size_t cap)
{
	memset(g, 0, sizeof *g);
	g->img = img;
	g->len = len;
	g->l = l;
	g->pi = &l->ph[l->interp];
	g->nb = nb;
	g->nblen = nblen;
	g->plan = plan;
	g->why = why;
	g->cap = cap;
}

void grow_end(struct grow *g)
{
	free(g->ph);
	free(g->dyn);
	free(g->newidx);
	g->ph = NULL;
	g->dyn = NULL;
	g->newidx = NULL;
}

enum grow_result grow_shape(struct grow *g)
{
	const struct loaded *l = g->l;
	g->ehsize = gelf_fsize(l->elf, ELF_T_EHDR, 1, EV_CURRENT);
	g->entsize = l->eh.e_phentsize;
	g->n = l->phnum + 1;
	g->enc = l->eh.e_ident[EI_DATA];
	if (l->eh.e_phoff != g->ehsize || l->phnum + 1 >= PN_XNUM)
		return GROW_OTHER_SHAPE;	/* not right after the header, or full */
	g->phend = g->ehsize + l->phnum * g->entsize;
	g->need = g->ehsize + g->n * g->entsize;
	load_span(l, &g->span);
	const GElf_Phdr *first = g->span.first;
	if (!first || first->p_offset != 0 || first->p_filesz < g->need ||
	    first->p_vaddr < first->p_offset || (first->p_vaddr - first->p_offset) % g->span.align != 0)
		return GROW_OTHER_SHAPE;	/* no first PT_LOAD mapping the bigger table */
	g->delta = first->p_vaddr;
	return GROW_DONE;
}

/* Sections over [phend, want_hi) join the block. */
static enum grow_result take_sections(struct grow *g, uint64_t want_hi, bool *grew)
{
	const struct loaded *l = g->l;
	for (size_t i = 1; i < g->shnum; i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(l->elf, i);
		if (!scn || !gelf_getshdr(scn, &sh))
			return grow_fail(g, "cannot read section header %zu", i);
		if (sh.sh_type == SHT_NOBITS || !sh.sh_size || is_moved(g, i) ||
		    !overlap(sh.sh_offset, sh.sh_size, g->phend, want_hi - g->phend))
			continue;
		bool interp = sh.sh_offset == g->pi->p_offset;
		if (sh.sh_offset < g->phend || !(sh.sh_flags & SHF_ALLOC) ||
		    (sh.sh_flags & (SHF_WRITE | SHF_EXECINSTR)) ||
		    (!interp && !movable_type(sh.sh_type)) || g->nmv == GROW_MOVE_MAX)
			return GROW_OTHER_SHAPE;	/* something we cannot move follows the table */
		g->mv[g->nmv++] = (struct moved){ i, sh.sh_offset, sh.sh_size };
		*grew = true;
	}
	return GROW_DONE;
}

/* The block covers the moved sections, and a segment over it moves whole
 * (its other sections too, on the next round). */
static enum grow_result take_segments(struct grow *g, uint64_t want_hi, bool *grew)
{
	const struct loaded *l = g->l;
	for (size_t i = 0; i < g->nmv; i++) {
		if (g->mv[i].off < g->lo)
			g->lo = g->mv[i].off, *grew = true;
		if (g->mv[i].off + g->mv[i].size > g->hi)
			g->hi = g->mv[i].off + g->mv[i].size, *grew = true;
	}
	for (size_t i = 0; i < l->phnum; i++) {
		const GElf_Phdr *p = &l->ph[i];
		if (p->p_type == PT_LOAD || p->p_type == PT_PHDR || !p->p_filesz)
			continue;
		if (!overlap(p->p_offset, p->p_filesz, g->phend, want_hi - g->phend))
			continue;
		if (p->p_offset < g->phend)
			return GROW_OTHER_SHAPE;	/* a segment across the table's end */
		if (p->p_offset < g->lo)
			g->lo = p->p_offset, *grew = true;
		if (p->p_offset + p->p_filesz > g->hi)
			g->hi = p->p_offset + p->p_filesz, *grew = true;
	}
	return GROW_DONE;
}

/* Without section headers the bytes between the table and the block, and
 * after the block up to the bigger table's end, must be zero: ours to take. */
static bool gaps_are_zero(const struct grow *g)
{
	for (uint64_t o = g->phend; o < g->lo && o < g->need; o++)
		if (g->img[o])
			return false;
	if (g->hi < g->need)
		for (uint64_t o = g->hi; o < g->need; o++)
			if (g->img[o])
				return false;
	return true;
}

/* What follows the table, up to where the bigger table ends: with section
 * headers, the sections there; without, the segments that describe bytes
 * there (PT_INTERP, notes).  Grown to a fixed point. */
enum grow_result grow_find_moved(struct grow *g)
{
	enum grow_result r = GROW_DONE;
	g->lo = g->need;
	g->hi = g->phend;
	if (elf_getshdrnum(g->l->elf, &g->shnum) != 0)
		g->shnum = 0;
	for (bool grew = true; grew && r == GROW_DONE;) {
		grew = false;
		uint64_t want_hi = g->hi > g->need ? g->hi : g->need;
		if ((r = take_sections(g, want_hi, &grew)) == GROW_DONE)
			r = take_segments(g, want_hi, &grew);
	}
	if (r != GROW_DONE)
		return r;
	if (g->lo < g->phend || g->hi <= g->lo)
		return GROW_OTHER_SHAPE;	/* nothing there to move: a table we cannot grow this way */
	if (!g->shnum && !gaps_are_zero(g))
		return GROW_OTHER_SHAPE;
	if (g->span.first->p_filesz < g->hi)
		return GROW_OTHER_SHAPE;	/* the block is not all in the first PT_LOAD */
	g->zero_end = g->hi > g->need ? g->hi : g->need;
	return GROW_DONE;
}

/* Past the file and past every segment's memory, at the same offset within
 * a page as the bytes it takes over, so every alignment holds. */
enum grow_result grow_place(struct grow *g)
{
	uint64_t align = g->span.align, maxend = g->span.maxend;
	uint64_t start = g->len > maxend - g->delta ? g->len : maxend - g->delta;
	uint64_t page = (start + align - 1) / align * align;
	g->x = page + g->lo % align;
	if (g->x - g->len > GROW_MAX_PADDING)
		return grow_fail(g, "cannot grow: %llu MiB of padding needed past the bss",
				 (unsigned long long)((g->x - g->len) >> 20));
	g->dm = g->x - g->lo;
	g->block = g->hi - g->lo;
	g->interp_at = g->x + g->block;
	g->seg_size = g->block + g->nblen;
	return GROW_DONE;
}

enum grow_result grow_copy_block(struct grow *g)
{
	struct patch_plan *plan = g->plan;
	plan->pad = g->x - g->len;	/* zeros, written as a hole */
	plan->tail = calloc(1, g->seg_size);
	if (!plan->tail)
		return grow_fail(g, "out of memory");
	memcpy(plan->tail, g->img + g->lo, g->block);
	memcpy(plan->tail + g->block, g->nb, g->nblen);
	plan->tail_len = g->seg_size;
	const GElf_Phdr *pi = g->pi;
	if (pi->p_offset >= g->lo && pi->p_offset + pi->p_filesz <= g->hi)
		memset(plan->tail + (pi->p_offset - g->lo), 0, pi->p_filesz);	/* the old string's hole */
	return GROW_DONE;
}

/* The program headers after the patch: PT_PHDR one entry bigger, PT_INTERP
 * on the new string, the segments over the block moved with it, and the new
 * PT_LOAD after the last one (PT_LOADs stay in address order). */
static void new_phdrs(struct grow *g)
{
	const struct loaded *l = g->l;
	for (size_t i = 0, k = 0; i < l->phnum; i++, k++) {
		g->ph[k] = l->ph[i];
		GElf_Phdr *p = &g->ph[k];
		if (p->p_type == PT_PHDR) {
			p->p_filesz = p->p_memsz = g->n * g->entsize;
		} else if ((int)i == l->interp) {
			p->p_offset = g->interp_at;
			p->p_vaddr = p->p_paddr = g->interp_at + g->delta;
			p->p_filesz = p->p_memsz = g->nblen;
		} else if (p->p_type != PT_LOAD && p->p_filesz && p->p_offset >= g->lo &&
			   p->p_offset + p->p_filesz <= g->hi) {
			p->p_offset += g->dm;
			p->p_vaddr += g->dm;
			p->p_paddr += g->dm;
		}
		if ((int)i == g->span.last)
			g->ph[++k] = (GElf_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = g->x,
						  .p_vaddr = g->x + g->delta, .p_paddr = g->x + g->delta,
						  .p_filesz = g->seg_size, .p_memsz = g->seg_size,
						  .p_align = g->span.align };
	}
}

/* One edit from 0: the header, the bigger table, zeros where the moved
 * bytes were. */
enum grow_result grow_headers(struct grow *g)
{
	Elf *elf = g->l->elf;
	g->head = add_edit(g->plan, 0, (uint32_t)g->zero_end);
	if (!g->head)
		return grow_fail(g, "out of memory");
	g->eh = g->l->eh;
	g->eh.e_phnum = (uint16_t)g->n;
	if (encode_ehdr(elf, &g->eh, g->head->bytes, g->ehsize) < 0)
		return grow_fail(g, "cannot encode the ELF header (%s)", elf_errmsg(-1));
	g->ph = calloc(g->n, sizeof *g->ph);
	if (!g->ph)
		return grow_fail(g, "out of memory");
	new_phdrs(g);
	if (encode_phdrs(elf, g->ph, g->n, g->head->bytes + g->ehsize, g->n * g->entsize, g->enc) < 0)
		return grow_fail(g, "cannot encode the new program headers (%s)", elf_errmsg(-1));
	return GROW_DONE;
}

/* What moved goes to the end of the section header table, so that it stays
 * in file order (patchelf, for one, walks it in index order from the start):
 * the moved block, then .interp, which moves too when it was not in the
 * way (its header must name the new string, whose bytes strip copies). */
enum grow_result grow_renumber(struct grow *g)
{
	const struct loaded *l = g->l;
	size_t shnum = g->shnum;
	if (!shnum)
		return GROW_DONE;
	size_t shentsize = gelf_fsize(l->elf, ELF_T_SHDR, 1, EV_CURRENT);
	if (!in_image(g->len, l->eh.e_shoff, shnum * shentsize) ||
	    overlap(l->eh.e_shoff, shnum * shentsize, 0, g->zero_end) || shnum >= SHN_LORESERVE)
		return GROW_OTHER_SHAPE;	/* a table the bigger one covers, or too many */
	g->newidx = calloc(shnum, sizeof *g->newidx);
	if (!g->newidx)
		return grow_fail(g, "out of memory");
	const GElf_Phdr *pi = g->pi;
	for (size_t i = 1; i < shnum && !g->interp_idx; i++) {
		GElf_Shdr sh;
		if (gelf_getshdr(elf_getscn(l->elf, i), &sh) && (sh.sh_flags & SHF_ALLOC) &&
		    sh.sh_type != SHT_NOBITS && sh.sh_offset == pi->p_offset && sh.sh_size == pi->p_filesz)
			g->interp_idx = i;
	}
	if (g->interp_idx && !is_moved(g, g->interp_idx)) {
		if (g->nmv == GROW_MOVE_MAX)
			return GROW_OTHER_SHAPE;
		g->mv[g->nmv++] = (struct moved){ g->interp_idx, pi->p_offset, pi->p_filesz };
	}
	size_t k = 1;
	for (size_t i = 1; i < shnum; i++)
		if (!is_moved(g, i))
			g->newidx[i] = k++;
	for (size_t i = 0; i < g->nmv; i++)
		if (g->mv[i].index != g->interp_idx)
			g->newidx[g->mv[i].index] = k++;
	if (g->interp_idx)
		g->newidx[g->interp_idx] = k++;
	return GROW_DONE;
}

/* The table rewritten in place: each header at its new index, the moved
 * ones at their new offsets (.interp on the new string), links and the
 * string table index following the numbering. */
enum grow_result grow_section_headers(struct grow *g)
{
	const struct loaded *l = g->l;
	Elf *elf = l->elf;
	size_t shnum = g->shnum;
	if (!shnum)
		return GROW_DONE;
	size_t shentsize = gelf_fsize(elf, ELF_T_SHDR, 1, EV_CURRENT);
	struct plan_edit *e = add_edit(g->plan, l->eh.e_shoff, (uint32_t)(shnum * shentsize));
	if (!e)
		return grow_fail(g, "out of memory");
	for (size_t i = 0; i < shnum; i++) {
		GElf_Shdr sh;
		if (!gelf_getshdr(elf_getscn(elf, i), &sh))
			return grow_fail(g, "cannot read section header %zu", i);
		if (sh.sh_type == SHT_GROUP || sh.sh_type == SHT_SYMTAB_SHNDX)
			return GROW_OTHER_SHAPE;	/* index tables we do not renumber */
		if (i && is_moved(g, i)) {
			if (sh.sh_offset == g->pi->p_offset && sh.sh_size == g->pi->p_filesz) {
				sh.sh_offset = g->interp_at;
				sh.sh_addr = g->interp_at + g->delta;
				sh.sh_size = g->nblen;
			} else {
				sh.sh_offset += g->dm;
				sh.sh_addr += g->dm;
			}
		}
		if (sh.sh_link && sh.sh_link < shnum)
			sh.sh_link = (GElf_Word)g->newidx[sh.sh_link];
		if (sh.sh_info && sh.sh_info < shnum &&
		    ((sh.sh_flags & SHF_INFO_LINK) || sh.sh_type == SHT_REL || sh.sh_type == SHT_RELA))
			sh.sh_info = (GElf_Word)g->newidx[sh.sh_info];
		if (encode_shdr(elf, &sh, e->bytes + g->newidx[i] * shentsize, shentsize, g->enc) < 0)
			return grow_fail(g, "cannot encode a section header");
	}
	/* the ELF header, encoded by grow_headers, names the string table by index */
	if (l->eh.e_shstrndx && l->eh.e_shstrndx < shnum) {
		g->eh.e_shstrndx = (uint16_t)g->newidx[l->eh.e_shstrndx];
		if (encode_ehdr(elf, &g->eh, g->head->bytes, g->ehsize) < 0)
			return grow_fail(g, "cannot encode the ELF header (%s)", elf_errmsg(-1));
	}
	return GROW_DONE;
}

enum grow_result grow_dynamic(struct grow *g)
{
	const struct loaded *l = g->l;
	Elf *elf = l->elf;
	if (l->dynamic < 0)
		return GROW_DONE;
	const GElf_Phdr *d = &l->ph[l->dynamic];
	size_t dent = gelf_fsize(elf, ELF_T_DYN, 1, EV_CURRENT);
	/* one the bigger table covers is not read (the edit at 0 holds it) */
	Elf_Data *data = in_image(g->len, d->p_offset, d->p_filesz) &&
			 !overlap(d->p_offset, d->p_filesz, 0, g->zero_end)
		? elf_getdata_rawchunk(elf, (int64_t)d->p_offset, d->p_filesz, ELF_T_DYN) : NULL;
	size_t nd = data ? d->p_filesz / dent : 0;
	bool changed = false;
	g->dyn = calloc(nd ? nd : 1, sizeof *g->dyn);
	if (!g->dyn)
		return grow_fail(g, "out of memory");
	for (size_t i = 0; i < nd; i++) {
		if (!gelf_getdyn(data, (int)i, &g->dyn[i])) {
			nd = i;
			break;
		}
		if (pointer_tag(g->dyn[i].d_tag) && g->dyn[i].d_un.d_ptr >= g->lo + g->delta &&
		    g->dyn[i].d_un.d_ptr < g->hi + g->delta) {
			g->dyn[i].d_un.d_ptr += g->dm;
			changed = true;
		}
	}
	if (!changed)
		return GROW_DONE;
	struct plan_edit *e = add_edit(g->plan, d->p_offset, (uint32_t)(nd * dent));
	if (!e || encode_dyn(elf, g->dyn, nd, e->bytes, nd * dent, g->enc) < 0)
		return grow_fail(g, "cannot encode the dynamic section");
	return GROW_DONE;
}

/* One symbol table: section indices renumbered, and the values of symbols
 * defined in moved sections (__abi_tag, section symbols) moved with them.
 * A moved table is fixed in the copy, another by an edit of the table. */
static enum grow_result fix_symtab(struct grow *g, size_t index, const GElf_Shdr *sh)
{
	Elf *elf = g->l->elf;
	Elf_Data *data = elf_getdata_rawchunk(elf, (int64_t)sh->sh_offset, sh->sh_size, ELF_T_SYM);
	size_t ns = data ? sh->sh_size / sh->sh_entsize : 0;
	bool moved_table = is_moved(g, index);
	unsigned char *table = NULL;
	for (size_t k = 0; k < ns; k++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)k, &sym))
			break;
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE || sym.st_shndx >= g->shnum)
			continue;
		GElf_Sym was = sym;
		sym.st_shndx = (uint16_t)g->newidx[sym.st_shndx];
		if (is_moved(g, was.st_shndx)) {
			GElf_Shdr target;
			if (gelf_getshdr(elf_getscn(elf, was.st_shndx), &target) &&
			    target.sh_offset == g->pi->p_offset)
				sym.st_value = sym.st_value - target.sh_addr + g->interp_at + g->delta;
			else
				sym.st_value += g->dm;
		}
		if (sym.st_shndx == was.st_shndx && sym.st_value == was.st_value)
			continue;
		if (!table) {
			struct plan_edit *e;
			if (moved_table) {
				/* only .interp's section joins from outside the block, and
				 * the copy holds nothing of it: a symbol table there is a
				 * crafted file's (writing into the copy would overrun it) */
				if (sh->sh_offset < g->lo || sh->sh_offset + sh->sh_size > g->hi)
					return GROW_OTHER_SHAPE;
				table = g->plan->tail + (sh->sh_offset - g->lo);
			} else if ((e = add_edit(g->plan, sh->sh_offset, (uint32_t)sh->sh_size))) {
				table = e->bytes;
				memcpy(table, g->img + sh->sh_offset, sh->sh_size);
			} else {
				return grow_fail(g, "out of memory");
			}
		}
		if (encode_sym(elf, &sym, table + k * sh->sh_entsize, sh->sh_entsize, g->enc) < 0)
			return grow_fail(g, "cannot encode a symbol");
	}
	return GROW_DONE;
}

enum grow_result grow_symbols(struct grow *g)
{
	for (size_t i = 1; i < g->shnum; i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(g->l->elf, i);
		if (!scn || !gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !in_image(g->len, sh.sh_offset, sh.sh_size) || sh.sh_size > UINT32_MAX)
			continue;
		enum grow_result r = fix_symtab(g, i, &sh);
		if (r != GROW_DONE)
			return r;
	}
	return GROW_DONE;
}

/* A crafted file can make its tables share bytes; each original byte must
 * be recorded once for restore to stay exact. */
enum grow_result grow_check_edits(struct grow *g)
{
	const struct patch_plan *plan = g->plan;
	for (int i = 0; i < plan->n_edits; i++) {
		const struct plan_edit *a = &plan->edits[i];
		if (!in_image(g->len, a->off, a->len))
			return GROW_OTHER_SHAPE;
		for (int k = i + 1; k < plan->n_edits; k++)
			if (overlap(a->off, a->len, plan->edits[k].off, plan->edits[k].len))
				return GROW_OTHER_SHAPE;
	}
	g->plan->grew = true;
	return GROW_DONE;
}

grow_step *const grow_steps[] = {
	grow_shape, grow_find_moved, grow_place, grow_copy_block, grow_headers,
	grow_renumber, grow_section_headers, grow_dynamic, grow_symbols, grow_check_edits,
};
const size_t grow_nsteps = sizeof grow_steps / sizeof grow_steps[0];

enum grow_result grow_front(struct grow *g)
{
	enum grow_result r = GROW_DONE;
	for (size_t i = 0; r == GROW_DONE && i < grow_nsteps; i++)
		r = grow_steps[i](g);
	grow_end(g);
	return r;
}

/* ---- the append layout ---------------------------------------------------- */

/* The .interp section header, if the file still has one for the old string. */
static Elf_Scn *interp_section(Elf *e, const GElf_Phdr *interp, GElf_Shdr *sh)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		if (!gelf_getshdr(scn, sh))
			return NULL;
		const char *name = elf_strptr(e, shstrndx, sh->sh_name);
		if (name && strcmp(name, ".interp") == 0 && sh->sh_offset == interp->p_offset)
			return scn;
	}
	return NULL;
}

int grow_append(size_t len, const struct loaded *l, const unsigned char *nb, size_t nblen,
		struct patch_plan *plan, char *why, size_t cap)
{
	struct load_span span;
	load_span(l, &span);
	const GElf_Phdr *first = span.first;
	uint64_t align = span.align, maxend = span.maxend;
	if (!first)
		return why_fail(why, cap, "no PT_LOAD segment to place the new interpreter after");
	if (first->p_vaddr < first->p_offset || (first->p_vaddr - first->p_offset) % align != 0)
		return why_fail(why, cap, "cannot grow: the first PT_LOAD's address and offset are not congruent");
	uint64_t delta = first->p_vaddr - first->p_offset;
	if (l->phnum + 1 >= PN_XNUM)
		return why_fail(why, cap, "too many program headers to add one");

	/* The new segment starts past the file and past every segment's memory. */
	uint64_t start = len > maxend - delta ? len : maxend - delta;
	uint64_t x = (start + align - 1) / align * align;
	if (x - len > GROW_MAX_PADDING)
		return why_fail(why, cap, "cannot grow: %llu MiB of padding needed past the bss",
			    (unsigned long long)((x - len) >> 20));
	size_t entsize = l->eh.e_phentsize, n = l->phnum + 1;
	size_t table = n * entsize;

	GElf_Phdr *ph = calloc(n, sizeof *ph);
	if (!ph)
		return why_fail(why, cap, "out of memory");
	for (size_t i = 0, k = 0; i < l->phnum; i++) {
		ph[k] = l->ph[i];
		if (ph[k].p_type == PT_PHDR) {
			ph[k].p_offset = x;
			ph[k].p_vaddr = ph[k].p_paddr = x + delta;
			ph[k].p_filesz = ph[k].p_memsz = table;
		} else if (ph[k].p_type == PT_INTERP) {
			ph[k].p_offset = x + table;
			ph[k].p_vaddr = ph[k].p_paddr = x + table + delta;
			ph[k].p_filesz = ph[k].p_memsz = nblen;
		}
		k++;
		if ((int)i == span.last) {	/* PT_LOADs stay in address order */
			ph[k] = (GElf_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = x,
					     .p_vaddr = x + delta, .p_paddr = x + delta,
					     .p_filesz = table + nblen, .p_memsz = table + nblen,
					     .p_align = align };
			k++;
		}
	}

	unsigned enc = l->eh.e_ident[EI_DATA];
	plan->pad = x - len;	/* zeros, written as a hole */
	plan->tail = calloc(1, table + nblen);
	int r = plan->tail ? encode_phdrs(l->elf, ph, n, plan->tail, table, enc) : -1;
	free(ph);
	if (r < 0)
		return why_fail(why, cap, "cannot encode the new program headers (%s)", elf_errmsg(-1));
	memcpy(plan->tail + table, nb, nblen);
	plan->tail_len = table + nblen;

	GElf_Ehdr eh = l->eh;
	eh.e_phoff = x;
	eh.e_phnum = (uint16_t)n;
	size_t ehsize = gelf_fsize(l->elf, ELF_T_EHDR, 1, EV_CURRENT);
	struct plan_edit *e = add_edit(plan, 0, (uint32_t)ehsize);
	if (!e || encode_ehdr(l->elf, &eh, e->bytes, ehsize) < 0)
		return why_fail(why, cap, "cannot encode the ELF header (%s)", elf_errmsg(-1));

	GElf_Shdr sh;
	Elf_Scn *scn = interp_section(l->elf, &l->ph[l->interp], &sh);
	if (scn) {
		size_t shentsize = gelf_fsize(l->elf, ELF_T_SHDR, 1, EV_CURRENT);
		uint64_t off = l->eh.e_shoff + elf_ndxscn(scn) * (uint64_t)shentsize;
		if (!in_image(len, off, shentsize))
			return why_fail(why, cap, "section headers lie outside the file");
		sh.sh_offset = x + table;
		sh.sh_addr = x + table + delta;
		sh.sh_size = nblen;
		e = add_edit(plan, off, (uint32_t)shentsize);
		if (!e || encode_shdr(l->elf, &sh, e->bytes, shentsize, enc) < 0)
			return why_fail(why, cap, "cannot encode the .interp section header");
	}
	plan->grew = true;
	return 0;
}

int grow_plan(const unsigned char *img, size_t len, const struct loaded *l,
	      const unsigned char *nb, size_t nblen, struct patch_plan *plan,
	      char *why, size_t cap)
{
	struct grow g;
	grow_start(&g, img, len, l, nb, nblen, plan, why, cap);
	enum grow_result r = grow_front(&g);
	if (r == GROW_OTHER_SHAPE) {	/* an unusual shape: a new table at the end instead */
		patch_plan_free(plan);
		plan->keep = len;
		return grow_append(len, l, nb, nblen, plan, why, cap);
	}
	return r == GROW_DONE ? 0 : -1;
}
