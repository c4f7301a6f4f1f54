/* SPDX-License-Identifier: MIT */
/* Growing a file whose new PT_INTERP string does not fit the old one (the
 * two layouts of docs/design.md §9). */
#include "grow.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PADDING (64u << 20)		/* growing past a huge bss is refused */
#define DEFAULT_ALIGN 0x1000

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

/* The PT_LOAD segments at a glance: the first, the largest alignment (at
 * least a page), where the highest one's memory ends, and the last's index. */
struct load_span {
	const GElf_Phdr *first;
	uint64_t align, maxend;
	int last;
};

static void load_span(const struct loaded *l, struct load_span *s)
{
	*s = (struct load_span){ .align = DEFAULT_ALIGN, .last = -1 };
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

static int plan_grow(unsigned char *img, size_t len, struct loaded *l, const unsigned char *nb,
		     size_t nblen, struct patch_plan *plan, char *why, size_t cap)
{
	struct load_span span;
	load_span(l, &span);
	const GElf_Phdr *first = span.first;
	uint64_t align = span.align, maxend = span.maxend;
	int last_load = span.last;
	if (!first)
		return fail(why, cap, "no PT_LOAD segment to place the new interpreter after");
	if (first->p_vaddr < first->p_offset || (first->p_vaddr - first->p_offset) % align != 0)
		return fail(why, cap, "cannot grow: the first PT_LOAD's address and offset are not congruent");
	uint64_t delta = first->p_vaddr - first->p_offset;
	if (l->phnum + 1 >= PN_XNUM)
		return fail(why, cap, "too many program headers to add one");

	/* The new segment starts past the file and past every segment's memory. */
	uint64_t start = len > maxend - delta ? len : maxend - delta;
	uint64_t x = (start + align - 1) / align * align;
	if (x - len > MAX_PADDING)
		return fail(why, cap, "cannot grow: %llu MiB of padding needed past the bss",
			    (unsigned long long)((x - len) >> 20));
	size_t entsize = l->eh.e_phentsize, n = l->phnum + 1;
	size_t table = n * entsize;

	GElf_Phdr *ph = calloc(n, sizeof *ph);
	if (!ph)
		return fail(why, cap, "out of memory");
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
		if ((int)i == last_load) {	/* PT_LOADs stay in address order */
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
	if (!plan->tail || encode_phdrs(l->elf, ph, n, plan->tail, table, enc) < 0) {
		free(ph);
		return fail(why, cap, "cannot encode the new program headers (%s)", elf_errmsg(-1));
	}
	free(ph);
	memcpy(plan->tail + table, nb, nblen);
	plan->tail_len = table + nblen;

	GElf_Ehdr eh = l->eh;
	eh.e_phoff = x;
	eh.e_phnum = (uint16_t)n;
	size_t ehsize = gelf_fsize(l->elf, ELF_T_EHDR, 1, EV_CURRENT);
	struct plan_edit *e = add_edit(plan, 0, (uint32_t)ehsize);
	if (!e || encode_ehdr(l->elf, &eh, e->bytes, ehsize) < 0)
		return fail(why, cap, "cannot encode the ELF header (%s)", elf_errmsg(-1));

	GElf_Shdr sh;
	Elf_Scn *scn = interp_section(l->elf, &l->ph[l->interp], &sh);
	if (scn) {
		size_t shentsize = gelf_fsize(l->elf, ELF_T_SHDR, 1, EV_CURRENT);
		uint64_t off = l->eh.e_shoff + elf_ndxscn(scn) * (uint64_t)shentsize;
		if (!in_image(len, off, shentsize))
			return fail(why, cap, "section headers lie outside the file");
		sh.sh_offset = x + table;
		sh.sh_addr = x + table + delta;
		sh.sh_size = nblen;
		e = add_edit(plan, off, (uint32_t)shentsize);
		if (!e || encode_shdr(l->elf, &sh, e->bytes, shentsize, enc) < 0)
			return fail(why, cap, "cannot encode the .interp section header");
	}
	plan->grew = true;
	(void)img;
	return 0;
}

/* ---- growing the strip-safe way -------------------------------------------
 * binutils (strip, objcopy) and elfutils rewrite a file from its section
 * headers and always put the program header table right after the ELF
 * header: bytes that only a segment covers are lost or moved.  So, like
 * patchelf --set-interpreter, the table stays where it is and grows by one
 * entry into the space of the sections that follow it (.interp, notes, hash
 * tables ...); those move, byte for byte, into the new PT_LOAD at the end,
 * followed by the new .interp.  Every byte of that segment belongs to a
 * section, so the rewriting tools keep it (docs/design.md §9).
 * Returns 1 when the file does not have that shape (the caller then appends
 * a table instead), 0 when planned, -1 on an error. */

#define MOVE_MAX 64

struct moved {
	size_t index;		/* section index, or 0 for a segment-only block */
	uint64_t off, size;
};

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

static bool is_moved(const struct moved *mv, size_t n, size_t index)
{
	for (size_t i = 0; i < n; i++)
		if (mv[i].index == index)
			return true;
	return false;
}

/* Edits must not overlap (a crafted file can make its tables share bytes):
 * each original byte is recorded once, so restore stays exact. */
static bool edits_disjoint(const struct patch_plan *plan, size_t len)
{
	for (int i = 0; i < plan->n_edits; i++) {
		const struct plan_edit *a = &plan->edits[i];
		if (!in_image(len, a->off, a->len))
			return false;
		for (int k = i + 1; k < plan->n_edits; k++)
			if (overlap(a->off, a->len, plan->edits[k].off, plan->edits[k].len))
				return false;
	}
	return true;
}

static int plan_grow_front(unsigned char *img, size_t len, struct loaded *l,
			   const unsigned char *nb, size_t nblen, struct patch_plan *plan,
			   char *why, size_t cap)
{
	Elf *elf = l->elf;
	size_t ehsize = gelf_fsize(elf, ELF_T_EHDR, 1, EV_CURRENT);
	size_t entsize = l->eh.e_phentsize, n = l->phnum + 1;
	unsigned enc = l->eh.e_ident[EI_DATA];
	if (l->eh.e_phoff != ehsize || l->phnum + 1 >= PN_XNUM)
		return 1;
	uint64_t phend = ehsize + l->phnum * entsize, need = ehsize + n * entsize;

	struct load_span span;
	load_span(l, &span);
	const GElf_Phdr *first = span.first;
	uint64_t align = span.align, maxend = span.maxend;
	int last_load = span.last;
	if (!first || first->p_offset != 0 || first->p_filesz < need ||
	    first->p_vaddr < first->p_offset || (first->p_vaddr - first->p_offset) % align != 0)
		return 1;
	uint64_t delta = first->p_vaddr;

	/* What follows the table, up to where the bigger table ends: with
	 * section headers, the sections there; without, the segments that
	 * describe bytes there (PT_INTERP, notes), the rest must be zero. */
	struct moved mv[MOVE_MAX];
	size_t nmv = 0, shnum = 0;
	uint64_t lo = need, hi = phend;
	if (elf_getshdrnum(elf, &shnum) != 0)
		shnum = 0;
	for (bool grew = true; grew;) {
		grew = false;
		uint64_t want_hi = hi > need ? hi : need;
		for (size_t i = 1; i < shnum; i++) {
			GElf_Shdr sh;
			Elf_Scn *scn = elf_getscn(elf, i);
			if (!scn || !gelf_getshdr(scn, &sh))
				return fail(why, cap, "cannot read section header %zu", i);
			if (sh.sh_type == SHT_NOBITS || !sh.sh_size || is_moved(mv, nmv, i) ||
			    !overlap(sh.sh_offset, sh.sh_size, phend, want_hi - phend))
				continue;
			bool interp = l->interp >= 0 && sh.sh_offset == l->ph[l->interp].p_offset;
			if (sh.sh_offset < phend || !(sh.sh_flags & SHF_ALLOC) ||
			    (sh.sh_flags & (SHF_WRITE | SHF_EXECINSTR)) ||
			    (!interp && !movable_type(sh.sh_type)) || nmv == MOVE_MAX)
				return 1;	/* something we cannot move follows the table */
			mv[nmv++] = (struct moved){ i, sh.sh_offset, sh.sh_size };
			grew = true;
		}
		/* a segment over moved bytes moves whole: its other sections too */
		for (size_t i = 0; i < nmv; i++) {
			if (mv[i].off < lo)
				lo = mv[i].off, grew = true;
			if (mv[i].off + mv[i].size > hi)
				hi = mv[i].off + mv[i].size, grew = true;
		}
		for (size_t i = 0; i < l->phnum; i++) {
			const GElf_Phdr *p = &l->ph[i];
			if (p->p_type == PT_LOAD || p->p_type == PT_PHDR || !p->p_filesz)
				continue;
			if (!overlap(p->p_offset, p->p_filesz, phend, want_hi - phend))
				continue;
			if (p->p_offset < phend)
				return 1;
			if (p->p_offset < lo)
				lo = p->p_offset, grew = true;
			if (p->p_offset + p->p_filesz > hi)
				hi = p->p_offset + p->p_filesz, grew = true;
		}
	}
	if (lo < phend || hi <= lo)
		return 1;	/* nothing there to move: a table we cannot grow this way */
	if (!shnum) {
		/* no section headers: bytes between phend and need must be ours */
		for (uint64_t o = phend; o < lo && o < need; o++)
			if (img[o])
				return 1;
		if (hi < need)
			for (uint64_t o = hi; o < need; o++)
				if (img[o])
					return 1;
	}
	if (first->p_filesz < hi)
		return 1;
	uint64_t zero_end = hi > need ? hi : need;

	/* The new segment: past the file and past every segment's memory, at
	 * the same offset within a page as the bytes it takes over, so every
	 * alignment holds. */
	uint64_t start = len > maxend - delta ? len : maxend - delta;
	uint64_t page = (start + align - 1) / align * align;
	uint64_t x = page + lo % align;
	if (x - len > MAX_PADDING)
		return fail(why, cap, "cannot grow: %llu MiB of padding needed past the bss",
			    (unsigned long long)((x - len) >> 20));
	uint64_t dm = x - lo;			/* how far the moved bytes go */
	uint64_t block = hi - lo, interp_at = x + block;
	uint64_t seg_size = block + nblen;

	plan->pad = x - len;
	plan->tail = calloc(1, seg_size);
	if (!plan->tail)
		return fail(why, cap, "out of memory");
	memcpy(plan->tail, img + lo, block);
	memcpy(plan->tail + block, nb, nblen);
	plan->tail_len = seg_size;
	const GElf_Phdr *pi = &l->ph[l->interp];
	if (pi->p_offset >= lo && pi->p_offset + pi->p_filesz <= hi)
		memset(plan->tail + (pi->p_offset - lo), 0, pi->p_filesz);	/* the old string's hole */

	/* the header, the bigger table, zeros where the moved bytes were */
	struct plan_edit *e = add_edit(plan, 0, (uint32_t)zero_end);
	if (!e)
		return fail(why, cap, "out of memory");
	GElf_Ehdr eh = l->eh;
	eh.e_phnum = (uint16_t)n;
	if (encode_ehdr(elf, &eh, e->bytes, ehsize) < 0)
		return fail(why, cap, "cannot encode the ELF header (%s)", elf_errmsg(-1));
	GElf_Phdr *ph = calloc(n, sizeof *ph);
	if (!ph)
		return fail(why, cap, "out of memory");
	for (size_t i = 0, k = 0; i < l->phnum; i++, k++) {
		ph[k] = l->ph[i];
		GElf_Phdr *p = &ph[k];
		if (p->p_type == PT_PHDR) {
			p->p_filesz = p->p_memsz = n * entsize;
		} else if ((int)i == l->interp) {
			p->p_offset = interp_at;
			p->p_vaddr = p->p_paddr = interp_at + delta;
			p->p_filesz = p->p_memsz = nblen;
		} else if (p->p_type != PT_LOAD && p->p_filesz && p->p_offset >= lo &&
			   p->p_offset + p->p_filesz <= hi) {
			p->p_offset += dm;
			p->p_vaddr += dm;
			p->p_paddr += dm;
		}
		if ((int)i == last_load)	/* PT_LOADs stay in address order */
			ph[++k] = (GElf_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = x,
					       .p_vaddr = x + delta, .p_paddr = x + delta,
					       .p_filesz = seg_size, .p_memsz = seg_size,
					       .p_align = align };
	}
	int r = encode_phdrs(elf, ph, n, e->bytes + ehsize, n * entsize, enc);
	free(ph);
	if (r < 0)
		return fail(why, cap, "cannot encode the new program headers (%s)", elf_errmsg(-1));

	/* Section headers: what moved goes to the end of the table, so that
	 * the table stays in file order (patchelf, for one, walks it in index
	 * order from the start); links, the string table index and symbols
	 * follow the new numbering.  .interp now names the new string. */
	size_t *newidx = NULL;
	if (shnum) {
		size_t shentsize = gelf_fsize(elf, ELF_T_SHDR, 1, EV_CURRENT);
		if (!in_image(len, l->eh.e_shoff, shnum * shentsize) ||
		    overlap(l->eh.e_shoff, shnum * shentsize, 0, zero_end) || shnum >= SHN_LORESERVE)
			return 1;
		newidx = calloc(shnum, sizeof *newidx);
		if (!newidx)
			return fail(why, cap, "out of memory");
		/* .interp moves too when it was not in the way: its header
		 * must name the new string, whose bytes strip copies */
		size_t interp_idx = 0;
		for (size_t i = 1; i < shnum && !interp_idx; i++) {
			GElf_Shdr sh;
			if (gelf_getshdr(elf_getscn(elf, i), &sh) && (sh.sh_flags & SHF_ALLOC) &&
			    sh.sh_type != SHT_NOBITS && sh.sh_offset == pi->p_offset && sh.sh_size == pi->p_filesz)
				interp_idx = i;
		}
		if (interp_idx && !is_moved(mv, nmv, interp_idx)) {
			if (nmv == MOVE_MAX) {
				free(newidx);
				return 1;
			}
			mv[nmv++] = (struct moved){ interp_idx, pi->p_offset, pi->p_filesz };
		}
		/* numbered in file order: the moved block, then .interp after it */
		size_t k = 1;
		for (size_t i = 1; i < shnum; i++)
			if (!is_moved(mv, nmv, i))
				newidx[i] = k++;
		for (size_t i = 0; i < nmv; i++)
			if (mv[i].index != interp_idx)
				newidx[mv[i].index] = k++;
		if (interp_idx)
			newidx[interp_idx] = k++;
		e = add_edit(plan, l->eh.e_shoff, (uint32_t)(shnum * shentsize));
		if (!e) {
			free(newidx);
			return fail(why, cap, "out of memory");
		}
		for (size_t i = 0; i < shnum; i++) {
			GElf_Shdr sh;
			if (!gelf_getshdr(elf_getscn(elf, i), &sh)) {
				free(newidx);
				return fail(why, cap, "cannot read section header %zu", i);
			}
			if (sh.sh_type == SHT_GROUP || sh.sh_type == SHT_SYMTAB_SHNDX) {
				free(newidx);
				return 1;	/* index tables we do not renumber */
			}
			if (i && is_moved(mv, nmv, i)) {
				if (sh.sh_offset == pi->p_offset && sh.sh_size == pi->p_filesz) {
					sh.sh_offset = interp_at;
					sh.sh_addr = interp_at + delta;
					sh.sh_size = nblen;
				} else {
					sh.sh_offset += dm;
					sh.sh_addr += dm;
				}
			}
			if (sh.sh_link && sh.sh_link < shnum)
				sh.sh_link = (GElf_Word)newidx[sh.sh_link];
			if (sh.sh_info && sh.sh_info < shnum &&
			    ((sh.sh_flags & SHF_INFO_LINK) || sh.sh_type == SHT_REL || sh.sh_type == SHT_RELA))
				sh.sh_info = (GElf_Word)newidx[sh.sh_info];
			if (encode_shdr(elf, &sh, e->bytes + newidx[i] * shentsize, shentsize, enc) < 0) {
				free(newidx);
				return fail(why, cap, "cannot encode a section header");
			}
		}
		/* the ELF header, encoded above, names the string table by index */
		if (l->eh.e_shstrndx && l->eh.e_shstrndx < shnum) {
			eh.e_shstrndx = (uint16_t)newidx[l->eh.e_shstrndx];
			if (encode_ehdr(elf, &eh, plan->edits[0].bytes, ehsize) < 0) {
				free(newidx);
				return fail(why, cap, "cannot encode the ELF header (%s)", elf_errmsg(-1));
			}
		}
	}

	/* dynamic tags that point at moved bytes */
	if (l->dynamic >= 0) {
		const GElf_Phdr *d = &l->ph[l->dynamic];
		size_t dent = gelf_fsize(elf, ELF_T_DYN, 1, EV_CURRENT);
		Elf_Data *data = in_image(len, d->p_offset, d->p_filesz) && !overlap(d->p_offset, d->p_filesz, 0, zero_end)
			? elf_getdata_rawchunk(elf, (int64_t)d->p_offset, d->p_filesz, ELF_T_DYN) : NULL;
		size_t nd = data ? d->p_filesz / dent : 0;
		GElf_Dyn *dyn = calloc(nd ? nd : 1, sizeof *dyn);
		bool changed = false;
		if (!dyn) {
			free(newidx);
			return fail(why, cap, "out of memory");
		}
		for (size_t i = 0; i < nd; i++) {
			if (!gelf_getdyn(data, (int)i, &dyn[i])) {
				nd = i;
				break;
			}
			if (pointer_tag(dyn[i].d_tag) && dyn[i].d_un.d_ptr >= lo + delta &&
			    dyn[i].d_un.d_ptr < hi + delta) {
				dyn[i].d_un.d_ptr += dm;
				changed = true;
			}
		}
		if (changed) {
			e = add_edit(plan, d->p_offset, (uint32_t)(nd * dent));
			if (!e || encode_dyn(elf, dyn, nd, e->bytes, nd * dent, enc) < 0) {
				free(dyn);
				free(newidx);
				return fail(why, cap, "cannot encode the dynamic section");
			}
		}
		free(dyn);
	}

	/* Symbols: section indices renumbered, and the values of those defined
	 * in moved sections (__abi_tag, section symbols) moved with them.  A
	 * moved table is fixed in the copy, another by an edit of the table. */
	for (size_t i = 1; i < shnum; i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(elf, i);
		if (!scn || !gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !in_image(len, sh.sh_offset, sh.sh_size) || sh.sh_size > UINT32_MAX)
			continue;
		Elf_Data *data = elf_getdata_rawchunk(elf, (int64_t)sh.sh_offset, sh.sh_size, ELF_T_SYM);
		size_t ns = data ? sh.sh_size / sh.sh_entsize : 0;
		bool moved_table = is_moved(mv, nmv, i);
		unsigned char *table = NULL;
		for (size_t k = 0; k < ns; k++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)k, &sym))
				break;
			if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE || sym.st_shndx >= shnum)
				continue;
			GElf_Sym was = sym;
			sym.st_shndx = (uint16_t)newidx[sym.st_shndx];
			if (is_moved(mv, nmv, was.st_shndx)) {
				GElf_Shdr target;
				if (gelf_getshdr(elf_getscn(elf, was.st_shndx), &target) &&
				    target.sh_offset == pi->p_offset)
					sym.st_value = sym.st_value - target.sh_addr + interp_at + delta;
				else
					sym.st_value += dm;
			}
			if (sym.st_shndx == was.st_shndx && sym.st_value == was.st_value)
				continue;
			if (!table) {
				if (moved_table) {
					table = plan->tail + (sh.sh_offset - lo);
				} else if ((e = add_edit(plan, sh.sh_offset, (uint32_t)sh.sh_size))) {
					table = e->bytes;
					memcpy(table, img + sh.sh_offset, sh.sh_size);
				} else {
					free(newidx);
					return fail(why, cap, "out of memory");
				}
			}
			if (encode_sym(elf, &sym, table + k * sh.sh_entsize, sh.sh_entsize, enc) < 0) {
				free(newidx);
				return fail(why, cap, "cannot encode a symbol");
			}
		}
	}
	free(newidx);
	if (!edits_disjoint(plan, len))
		return 1;
	plan->grew = true;
	return 0;
}

int grow_plan(unsigned char *img, size_t len, struct loaded *l, const unsigned char *nb,
	      size_t nblen, struct patch_plan *plan, char *why, size_t cap)
{
	int g = plan_grow_front(img, len, l, nb, nblen, plan, why, cap);
	if (g > 0) {	/* an unusual shape: a new table at the end instead */
		patch_plan_free(plan);
		plan->keep = len;
		g = plan_grow(img, len, l, nb, nblen, plan, why, cap);
	}
	return g;
}
