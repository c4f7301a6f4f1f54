/* SPDX-License-Identifier: MIT */
/* The grow steps (tools/patch/elfpatch/grow.h) one by one, on front_elf.h's
 * linker-shaped executables, and the two layouts through grow_plan. */
#include "helpers.h"

#include "front_elf.h"
#include "../../common/elf/record.h"
#include "../../tools/patch/elfpatch/grow.h"

#define CL "/usr/bin/cudaload"

struct fx {
	struct front_elf e;
	struct loaded l;
	struct patch_plan plan;
	struct grow g;
	char why[256];
	unsigned char nb[128];
	size_t nblen;
};

static struct fx *fx_new(const struct front_spec *s)
{
	static const char rec[] = CL "\0" RECORD_MAGIC FE_LDSO;
	struct fx *f = calloc(1, sizeof *f);
	cr_assert(f);
	front_elf_build(&f->e, s);
	elfpatch_init();
	cr_assert_eq(loaded_read(f->e.buf, f->e.len, &f->l, f->why, sizeof f->why), 0, "%s", f->why);
	f->plan.keep = f->e.len;
	memcpy(f->nb, rec, sizeof rec);
	f->nblen = sizeof rec;
	grow_start(&f->g, f->e.buf, f->e.len, &f->l, f->nb, f->nblen, &f->plan, f->why, sizeof f->why);
	return f;
}

/* The steps before last, which must be done, then last's answer. */
static enum grow_result fx_run(struct fx *f, grow_step *last)
{
	for (size_t i = 0; i < grow_nsteps; i++) {
		enum grow_result r = grow_steps[i](&f->g);
		if (grow_steps[i] == last)
			return r;
		cr_assert_eq(r, GROW_DONE, "step %zu before the one tested: %s", i, f->why);
	}
	cr_assert_fail("no such step");
	return GROW_FAILED;
}

static void fx_free(struct fx *f)
{
	grow_end(&f->g);
	patch_plan_free(&f->plan);
	loaded_free(&f->l);
	free(f);
}

static bool moved(const struct grow *g, size_t index)
{
	for (size_t i = 0; i < g->nmv; i++)
		if (g->mv[i].index == index)
			return true;
	return false;
}

/* The plan's edit at off, which must be there. */
static const struct plan_edit *edit_at(const struct patch_plan *plan, uint64_t off)
{
	for (int i = 0; i < plan->n_edits; i++)
		if (plan->edits[i].off == off)
			return &plan->edits[i];
	cr_assert_fail("no edit at %llu", (unsigned long long)off);
	return NULL;
}

static const Elf64_Phdr *new_ph(const struct fx *f, size_t i)
{
	return (const Elf64_Phdr *)(f->plan.edits[0].bytes + sizeof(Elf64_Ehdr)) + i;
}

static const Elf64_Shdr *new_sh(const struct fx *f, size_t new_index)
{
	const struct plan_edit *e = edit_at(&f->plan, ((const Elf64_Ehdr *)f->e.buf)->e_shoff);
	return (const Elf64_Shdr *)e->bytes + new_index;
}

static const enum fe_sec interp_late[] = { FE_NOTE, FE_GNU_HASH, FE_DYNSYM, FE_DYNSTR, FE_RODATA,
					   FE_INTERP, FE_END };

/* ---- grow_shape ----------------------------------------------------------- */

Test(grow_shape, a_linker_layout)
{
	struct fx *f = fx_new(&(struct front_spec){ 0 });
	cr_assert_eq(fx_run(f, grow_shape), GROW_DONE);
	cr_assert_eq(f->g.phend, f->e.phend);
	cr_assert_eq(f->g.need, f->e.phend + sizeof(Elf64_Phdr), "room for one more entry");
	cr_assert_eq(f->g.n, f->e.phnum + 1);
	cr_assert_eq(f->g.delta, FE_BASE);
	cr_assert_eq(f->g.enc, ELFDATA2LSB);
	fx_free(f);
}

Test(grow_shape, other_shapes)
{
	struct fx *f = fx_new(&(struct front_spec){ 0 });
	f->l.eh.e_phoff = 0x200;	/* a table not right after the header */
	cr_assert_eq(fx_run(f, grow_shape), GROW_OTHER_SHAPE);
	fx_free(f);

	f = fx_new(&(struct front_spec){ 0 });
	f->l.ph[f->e.ph[FE_PH_TEXT]].p_offset = 0x1000;	/* the first PT_LOAD not at 0 */
	cr_assert_eq(fx_run(f, grow_shape), GROW_OTHER_SHAPE);
	fx_free(f);

	f = fx_new(&(struct front_spec){ 0 });
	f->l.ph[f->e.ph[FE_PH_TEXT]].p_filesz = f->e.phend;	/* no room for the bigger table */
	cr_assert_eq(fx_run(f, grow_shape), GROW_OTHER_SHAPE);
	fx_free(f);

	f = fx_new(&(struct front_spec){ 0 });
	f->l.ph[f->e.ph[FE_PH_TEXT]].p_vaddr += 0x10;	/* address and offset not congruent */
	cr_assert_eq(fx_run(f, grow_shape), GROW_OTHER_SHAPE);
	fx_free(f);
}

/* ---- grow_find_moved ------------------------------------------------------ */

Test(grow_find_moved, the_sections_the_table_grows_into)
{
	struct fx *f = fx_new(&(struct front_spec){ 0 });
	cr_assert_eq(fx_run(f, grow_find_moved), GROW_DONE);
	cr_assert_eq(f->g.nmv, 2);
	cr_assert(moved(&f->g, f->e.idx[FE_INTERP]) && moved(&f->g, f->e.idx[FE_NOTE]));
	cr_assert(!moved(&f->g, f->e.idx[FE_GNU_HASH]), "what follows the new table's end stays");
	cr_assert_eq(f->g.lo, f->e.off[FE_INTERP]);
	cr_assert_eq(f->g.hi, f->e.off[FE_NOTE] + f->e.size[FE_NOTE]);
	cr_assert_eq(f->g.zero_end, f->g.hi, "the block ends past the bigger table");
	cr_assert_gt(f->g.hi, f->g.need);
	fx_free(f);
}

Test(grow_find_moved, a_segment_over_moved_bytes_moves_whole)
{
	/* PT_NOTE covers both notes; only the first is in the table's way */
	static const enum fe_sec order[] = { FE_INTERP, FE_NOTE, FE_NOTE2, FE_GNU_HASH, FE_DYNSYM,
					     FE_DYNSTR, FE_RODATA, FE_END };
	struct fx *f = fx_new(&(struct front_spec){ .order = order });
	cr_assert_eq(fx_run(f, grow_find_moved), GROW_DONE);
	cr_assert_geq(f->e.off[FE_NOTE2], f->g.need, "the second note was not in the way");
	cr_assert(moved(&f->g, f->e.idx[FE_NOTE2]), "but it moves with its segment");
	cr_assert_eq(f->g.hi, f->e.off[FE_NOTE2] + f->e.size[FE_NOTE2]);
	fx_free(f);
}

Test(grow_find_moved, what_cannot_move)
{
	static const enum fe_sec rodata_first[] = { FE_RODATA, FE_INTERP, FE_NOTE, FE_DYNSYM, FE_DYNSTR,
						    FE_END };
	struct fx *f = fx_new(&(struct front_spec){ .order = rodata_first });
	cr_assert_eq(fx_run(f, grow_find_moved), GROW_OTHER_SHAPE, "data code may refer to");
	fx_free(f);

	f = fx_new(&(struct front_spec){ .note_flags = SHF_WRITE });
	cr_assert_eq(fx_run(f, grow_find_moved), GROW_OTHER_SHAPE, "a writable section");
	fx_free(f);

	f = fx_new(&(struct front_spec){ .note_flags = SHF_EXECINSTR });
	cr_assert_eq(fx_run(f, grow_find_moved), GROW_OTHER_SHAPE, "code");
	fx_free(f);

	/* a segment that starts inside the table */
	f = fx_new(&(struct front_spec){ 0 });
	GElf_Phdr *note = &f->l.ph[f->e.ph[FE_PH_NOTE]];
	note->p_offset = f->e.phend - 8;
	note->p_filesz += 8;
	cr_assert_eq(fx_run(f, grow_find_moved), GROW_OTHER_SHAPE);
	fx_free(f);

	/* the block must lie in the first PT_LOAD's file bytes */
	f = fx_new(&(struct front_spec){ 0 });
	f->l.ph[f->e.ph[FE_PH_TEXT]].p_filesz = f->e.phend + sizeof(Elf64_Phdr) + 1;
	cr_assert_eq(fx_run(f, grow_find_moved), GROW_OTHER_SHAPE);
	fx_free(f);
}

Test(grow_find_moved, without_section_headers_the_segments_decide)
{
	struct fx *f = fx_new(&(struct front_spec){ .no_section_headers = true, .gap = 8 });
	cr_assert_eq(fx_run(f, grow_find_moved), GROW_DONE);
	cr_assert_eq(f->g.shnum, 0);
	cr_assert_eq(f->g.nmv, 0, "no sections to name");
	cr_assert_eq(f->g.lo, f->e.off[FE_INTERP], "from PT_INTERP");
	cr_assert_eq(f->g.hi, f->e.off[FE_NOTE] + f->e.size[FE_NOTE], "to PT_NOTE's end");
	fx_free(f);

	/* the gap before them is taken over: it must hold nothing */
	f = fx_new(&(struct front_spec){ .no_section_headers = true, .gap = 8 });
	f->e.buf[f->e.phend + 3] = 1;
	cr_assert_eq(fx_run(f, grow_find_moved), GROW_OTHER_SHAPE);
	fx_free(f);
}

/* ---- grow_place ----------------------------------------------------------- */

Test(grow_place, past_the_file_and_all_memory)
{
	struct fx *f = fx_new(&(struct front_spec){ .bss = 0x3000 });
	cr_assert_eq(fx_run(f, grow_place), GROW_DONE);
	const GElf_Phdr *data = &f->l.ph[f->e.ph[FE_PH_DATA]];
	cr_assert_geq(f->g.x, f->e.len);
	cr_assert_geq(f->g.x + FE_BASE, data->p_vaddr + data->p_memsz, "past the bss");
	cr_assert_eq(f->g.x % 0x1000, f->g.lo % 0x1000, "the moved bytes keep their page offset");
	cr_assert_lt(f->g.x - (data->p_vaddr + data->p_memsz - FE_BASE), 0x1000, "the first such place");
	cr_assert_eq(f->g.dm, f->g.x - f->g.lo);
	cr_assert_eq(f->g.block, f->g.hi - f->g.lo);
	cr_assert_eq(f->g.interp_at, f->g.x + f->g.block, "the new string after the block");
	cr_assert_eq(f->g.seg_size, f->g.block + f->nblen);
	fx_free(f);
}

Test(grow_place, a_huge_bss_is_refused)
{
	struct fx *f = fx_new(&(struct front_spec){ .bss = 100ull << 20 });
	cr_assert_eq(fx_run(f, grow_place), GROW_FAILED);
	cr_assert_str_eq(f->why, "cannot grow: 100 MiB of padding needed past the bss");
	fx_free(f);
}

/* ---- grow_copy_block ------------------------------------------------------ */

Test(grow_copy_block, the_moved_bytes_then_the_string)
{
	struct fx *f = fx_new(&(struct front_spec){ 0 });
	cr_assert_eq(fx_run(f, grow_copy_block), GROW_DONE);
	const struct patch_plan *p = &f->plan;
	cr_assert_eq(p->pad, f->g.x - f->e.len, "zeros up to the segment");
	cr_assert_eq(p->tail_len, f->g.seg_size);
	size_t at = f->e.off[FE_INTERP] - f->g.lo;
	for (size_t i = 0; i < sizeof FE_LDSO; i++)
		cr_assert_eq(p->tail[at + i], 0, "the old string leaves a hole");
	size_t rest = at + sizeof FE_LDSO;
	cr_assert_eq(memcmp(p->tail + rest, f->e.buf + f->g.lo + rest, f->g.block - rest), 0,
		     "the rest byte for byte");
	cr_assert_eq(memcmp(p->tail + f->g.block, f->nb, f->nblen), 0);
	fx_free(f);
}

/* ---- grow_headers --------------------------------------------------------- */

Test(grow_headers, the_bigger_table_in_place)
{
	struct fx *f = fx_new(&(struct front_spec){ 0 });
	cr_assert_eq(fx_run(f, grow_headers), GROW_DONE);
	cr_assert_eq(f->plan.n_edits, 1);
	const struct plan_edit *head = &f->plan.edits[0];
	cr_assert_eq(head->off, 0);
	cr_assert_eq(head->len, f->g.zero_end);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)head->bytes;
	cr_assert_eq(eh->e_phnum, f->e.phnum + 1);
	cr_assert_eq(eh->e_phoff, sizeof(Elf64_Ehdr), "the table stays where it was");
	cr_assert_eq(memcmp(eh, f->e.buf, offsetof(Elf64_Ehdr, e_phnum)), 0, "the rest of the header stays");

	const struct front_elf *e = &f->e;
	cr_assert_eq(new_ph(f, e->ph[FE_PH_PHDR])->p_filesz, (e->phnum + 1) * sizeof(Elf64_Phdr));
	const Elf64_Phdr *pi = new_ph(f, e->ph[FE_PH_INTERP]);
	cr_assert_eq(pi->p_offset, f->g.interp_at);
	cr_assert_eq(pi->p_vaddr, f->g.interp_at + FE_BASE);
	cr_assert_eq(pi->p_filesz, f->nblen);
	const Elf64_Phdr *note = new_ph(f, e->ph[FE_PH_NOTE] + 1);	/* after the new PT_LOAD */
	cr_assert_eq(note->p_type, PT_NOTE);
	cr_assert_eq(note->p_offset, e->off[FE_NOTE] + f->g.dm, "moved with its bytes");
	cr_assert_eq(note->p_vaddr, e->addr[FE_NOTE] + f->g.dm);
	cr_assert_eq(new_ph(f, e->ph[FE_PH_TEXT])->p_offset, 0, "PT_LOADs stay");
	const Elf64_Phdr *load = new_ph(f, e->ph[FE_PH_DATA] + 1);
	cr_assert_eq(load->p_type, PT_LOAD, "right after the last PT_LOAD");
	cr_assert_eq(load->p_flags, PF_R);
	cr_assert_eq(load->p_offset, f->g.x);
	cr_assert_eq(load->p_vaddr, f->g.x + FE_BASE);
	cr_assert_eq(load->p_filesz, f->g.seg_size);
	cr_assert_eq(load->p_align, 0x1000);
	for (size_t o = f->g.need; o < f->g.zero_end; o++)
		cr_assert_eq(head->bytes[o], 0, "zeros where the moved bytes were (%zu)", o);
	fx_free(f);
}

/* ---- grow_renumber -------------------------------------------------------- */

Test(grow_renumber, what_moved_goes_to_the_end)
{
	struct fx *f = fx_new(&(struct front_spec){ 0 });
	cr_assert_eq(fx_run(f, grow_renumber), GROW_DONE);
	const struct front_elf *e = &f->e;
	const size_t *ni = f->g.newidx;
	cr_assert_eq(f->g.interp_idx, e->idx[FE_INTERP]);
	cr_assert_eq(ni[0], 0);
	cr_assert_eq(ni[e->idx[FE_GNU_HASH]], 1, "the rest close up, in order");
	cr_assert_eq(ni[e->idx[FE_SHSTRTAB]], e->shnum - 3);
	cr_assert_eq(ni[e->idx[FE_NOTE]], e->shnum - 2, "the moved block");
	cr_assert_eq(ni[e->idx[FE_INTERP]], e->shnum - 1, ".interp last: it is last in the file");
	fx_free(f);
}

Test(grow_renumber, interp_moves_when_not_in_the_way)
{
	struct fx *f = fx_new(&(struct front_spec){ .order = interp_late });
	cr_assert_eq(fx_run(f, grow_find_moved), GROW_DONE);
	cr_assert(!moved(&f->g, f->e.idx[FE_INTERP]));
	size_t before = f->g.nmv;
	cr_assert_eq(fx_run(f, grow_renumber), GROW_DONE);
	cr_assert_eq(f->g.nmv, before + 1);
	cr_assert(moved(&f->g, f->e.idx[FE_INTERP]), "its header must name the new string");
	cr_assert_eq(f->g.newidx[f->e.idx[FE_INTERP]], f->e.shnum - 1);
	fx_free(f);
}

Test(grow_renumber, tables_it_cannot_keep)
{
	struct fx *f = fx_new(&(struct front_spec){ 0 });
	f->l.eh.e_shoff = 0x100;	/* the section headers under the bigger table */
	cr_assert_eq(fx_run(f, grow_renumber), GROW_OTHER_SHAPE);
	fx_free(f);
}

/* ---- grow_section_headers ------------------------------------------------- */

Test(grow_section_headers, renumbered_and_moved)
{
	struct fx *f = fx_new(&(struct front_spec){ 0 });
	cr_assert_eq(fx_run(f, grow_section_headers), GROW_DONE);
	const struct front_elf *e = &f->e;
	const size_t *ni = f->g.newidx;
	const Elf64_Shdr *interp = new_sh(f, ni[e->idx[FE_INTERP]]);
	cr_assert_eq(interp->sh_offset, f->g.interp_at, ".interp names the new string");
	cr_assert_eq(interp->sh_addr, f->g.interp_at + FE_BASE);
	cr_assert_eq(interp->sh_size, f->nblen);
	const Elf64_Shdr *note = new_sh(f, ni[e->idx[FE_NOTE]]);
	cr_assert_eq(note->sh_type, SHT_NOTE);
	cr_assert_eq(note->sh_offset, e->off[FE_NOTE] + f->g.dm);
	cr_assert_eq(note->sh_addr, e->addr[FE_NOTE] + f->g.dm);
	const Elf64_Shdr *dynsym = new_sh(f, ni[e->idx[FE_DYNSYM]]);
	cr_assert_eq(dynsym->sh_offset, e->off[FE_DYNSYM], "what stays keeps its offset");
	cr_assert_eq(dynsym->sh_link, ni[e->idx[FE_DYNSTR]], "links follow the numbering");
	cr_assert_eq(new_sh(f, ni[e->idx[FE_SYMTAB]])->sh_link, ni[e->idx[FE_STRTAB]]);
	cr_assert_eq(new_sh(f, 0)->sh_type, SHT_NULL);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f->plan.edits[0].bytes;
	cr_assert_eq(eh->e_shstrndx, ni[e->idx[FE_SHSTRTAB]], "the header names the string table anew");
	cr_assert_eq(eh->e_phnum, e->phnum + 1, "and keeps the bigger table");
	fx_free(f);
}

Test(grow_section_headers, group_sections_are_another_shape)
{
	struct fx *f = fx_new(&(struct front_spec){ .group = true });
	cr_assert_eq(fx_run(f, grow_section_headers), GROW_OTHER_SHAPE, "index tables it does not renumber");
	fx_free(f);
}

/* ---- grow_dynamic --------------------------------------------------------- */

static const Elf64_Dyn *dyn_tag(const struct plan_edit *e, int64_t tag)
{
	for (const Elf64_Dyn *d = (const Elf64_Dyn *)e->bytes; d->d_tag != DT_NULL; d++)
		if (d->d_tag == tag)
			return d;
	cr_assert_fail("no tag %lld", (long long)tag);
	return NULL;
}

Test(grow_dynamic, pointers_into_the_block_follow_it)
{
	/* .note and .gnu.hash are in the way; .interp comes last */
	struct fx *f = fx_new(&(struct front_spec){ .order = interp_late });
	cr_assert_eq(fx_run(f, grow_dynamic), GROW_DONE);
	const struct front_elf *e = &f->e;
	cr_assert(moved(&f->g, e->idx[FE_GNU_HASH]));
	const struct plan_edit *d = edit_at(&f->plan, e->off[FE_DYNAMIC]);
	cr_assert_eq(d->len, e->size[FE_DYNAMIC]);
	cr_assert_eq(dyn_tag(d, DT_GNU_HASH)->d_un.d_ptr, e->addr[FE_GNU_HASH] + f->g.dm);
	cr_assert_eq(dyn_tag(d, DT_SYMTAB)->d_un.d_ptr, e->addr[FE_DYNSYM], "what stays keeps its address");
	cr_assert_eq(dyn_tag(d, DT_STRTAB)->d_un.d_ptr, e->addr[FE_DYNSTR]);
	cr_assert_eq(dyn_tag(d, DT_NEEDED)->d_un.d_val, 1, "values are not pointers");
	cr_assert_eq(dyn_tag(d, DT_SYMENT)->d_un.d_val, sizeof(Elf64_Sym));
	fx_free(f);
}

Test(grow_dynamic, no_edit_when_nothing_points_there)
{
	struct fx *f = fx_new(&(struct front_spec){ 0 });	/* .interp and .note move */
	cr_assert_eq(fx_run(f, grow_section_headers), GROW_DONE);
	int before = f->plan.n_edits;
	cr_assert_eq(grow_dynamic(&f->g), GROW_DONE);
	cr_assert_eq(f->plan.n_edits, before);
	fx_free(f);
}

/* ---- grow_symbols --------------------------------------------------------- */

Test(grow_symbols, indices_renumbered_values_moved)
{
	struct fx *f = fx_new(&(struct front_spec){ 0 });
	cr_assert_eq(fx_run(f, grow_symbols), GROW_DONE);
	const struct front_elf *e = &f->e;
	const size_t *ni = f->g.newidx;
	const Elf64_Sym *s = (const Elf64_Sym *)edit_at(&f->plan, e->off[FE_SYMTAB])->bytes;
	const Elf64_Sym *was = (const Elf64_Sym *)(e->buf + e->off[FE_SYMTAB]);
	cr_assert_eq(s[e->sym_note].st_shndx, ni[e->idx[FE_NOTE]], "a section symbol");
	cr_assert_eq(s[e->sym_note].st_value, e->addr[FE_NOTE] + f->g.dm);
	cr_assert_eq(s[e->sym_abi].st_value, e->addr[FE_NOTE] + f->g.dm, "__abi_tag");
	cr_assert_eq(s[e->sym_interp].st_shndx, ni[e->idx[FE_INTERP]]);
	cr_assert_eq(s[e->sym_interp].st_value, f->g.interp_at + FE_BASE + 5, "into the new string");
	cr_assert_eq(s[e->sym_msg].st_shndx, ni[e->idx[FE_RODATA]], "renumbered");
	cr_assert_eq(s[e->sym_msg].st_value, e->addr[FE_RODATA], "not moved");
	cr_assert_eq(memcmp(&s[e->sym_abs], &was[e->sym_abs], sizeof *s), 0, "SHN_ABS untouched");
	cr_assert_eq(memcmp(&s[0], &was[0], sizeof *s), 0);
	/* .dynsym stays: an edit of it renumbers msg */
	const Elf64_Sym *ds = (const Elf64_Sym *)edit_at(&f->plan, e->off[FE_DYNSYM])->bytes;
	cr_assert_eq(ds[e->dsym_msg].st_shndx, ni[e->idx[FE_RODATA]]);
	fx_free(f);
}

Test(grow_symbols, a_moved_table_is_fixed_in_the_copy)
{
	static const enum fe_sec dynsym_first[] = { FE_DYNSYM, FE_INTERP, FE_NOTE, FE_GNU_HASH, FE_DYNSTR,
						    FE_RODATA, FE_END };
	struct fx *f = fx_new(&(struct front_spec){ .order = dynsym_first });
	cr_assert_eq(fx_run(f, grow_symbols), GROW_DONE);
	const struct front_elf *e = &f->e;
	cr_assert(moved(&f->g, e->idx[FE_DYNSYM]));
	for (int i = 0; i < f->plan.n_edits; i++)
		cr_assert_neq(f->plan.edits[i].off, e->off[FE_DYNSYM], "no edit of the old place");
	const Elf64_Sym *ds = (const Elf64_Sym *)(f->plan.tail + (e->off[FE_DYNSYM] - f->g.lo));
	cr_assert_eq(ds[e->dsym_msg].st_shndx, f->g.newidx[e->idx[FE_RODATA]]);
	cr_assert_eq(ds[e->dsym_msg].st_value, e->addr[FE_RODATA]);
	const struct plan_edit *d = edit_at(&f->plan, e->off[FE_DYNAMIC]);
	cr_assert_eq(dyn_tag(d, DT_SYMTAB)->d_un.d_ptr, e->addr[FE_DYNSYM] + f->g.dm);
	fx_free(f);
}

Test(grow_symbols, a_symbol_table_at_the_interp_string)
{
	/* .interp, not in the way, made a symbol table whose one symbol names
	 * a section: it moves with the string, outside the copied block */
	struct fx *f = fx_new(&(struct front_spec){ .order = interp_late });
	Elf64_Shdr *sh = (Elf64_Shdr *)(f->e.buf + ((Elf64_Ehdr *)f->e.buf)->e_shoff) + f->e.idx[FE_INTERP];
	sh->sh_type = SHT_DYNSYM;
	sh->sh_entsize = sizeof(Elf64_Sym);
	unsigned char *s = f->e.buf + f->e.off[FE_INTERP];
	memset(s, 0, sizeof FE_LDSO);
	memcpy(s, "/l", 2);
	s[offsetof(Elf64_Sym, st_shndx)] = 1;
	loaded_free(&f->l);
	cr_assert_eq(loaded_read(f->e.buf, f->e.len, &f->l, f->why, sizeof f->why), 0, "%s", f->why);
	grow_start(&f->g, f->e.buf, f->e.len, &f->l, f->nb, f->nblen, &f->plan, f->why, sizeof f->why);
	cr_assert_eq(fx_run(f, grow_symbols), GROW_OTHER_SHAPE, "no copy of it to fix");
	fx_free(f);
}

/* ---- grow_check_edits ----------------------------------------------------- */

Test(grow_check_edits, overlapping_edits_are_another_shape)
{
	struct fx *f = fx_new(&(struct front_spec){ 0 });
	cr_assert_eq(fx_run(f, grow_symbols), GROW_DONE);
	cr_assert(!f->plan.grew);
	cr_assert_eq(grow_check_edits(&f->g), GROW_DONE);
	cr_assert(f->plan.grew);
	f->plan.grew = false;
	cr_assert(add_edit(&f->plan, f->g.zero_end - 4, 8));	/* shares bytes with the edit at 0 */
	cr_assert_eq(grow_check_edits(&f->g), GROW_OTHER_SHAPE, "restore records each byte once");
	cr_assert(!f->plan.grew);
	fx_free(f);
}

/* ---- the layouts together ------------------------------------------------- */

/* The section header named name in a rendered file. */
static const Elf64_Shdr *section(const unsigned char *img, const char *name)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
	const char *names = (const char *)img + sh[eh->e_shstrndx].sh_offset;
	for (size_t i = 0; i < eh->e_shnum; i++)
		if (strcmp(names + sh[i].sh_name, name) == 0)
			return &sh[i];
	cr_assert_fail("no section %s", name);
	return NULL;
}

Test(grow_front, patch_check_restore)
{
	struct front_elf *e = calloc(1, sizeof *e);
	front_elf_build(e, &(struct front_spec){ 0 });
	unsigned char *orig = malloc(e->len);
	memcpy(orig, e->buf, e->len);
	elfpatch_init();
	struct patch_plan plan;
	char why[256];
	cr_assert_eq(elfpatch_plan_patch(e->buf, e->len, CL, &plan, why, sizeof why), 0, "%s", why);
	cr_assert(plan.grew);
	size_t plen = (size_t)patch_plan_size(&plan);
	unsigned char *p = patch_plan_render(e->buf, &plan);
	patch_plan_free(&plan);

	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)p;
	cr_assert_eq(eh->e_phoff, sizeof *eh, "the strip-safe layout");
	cr_assert_eq(eh->e_phnum, e->phnum + 1);
	const Elf64_Shdr *interp = section(p, ".interp");
	cr_assert_str_eq((const char *)p + interp->sh_offset, CL);
	cr_assert_str_eq((const char *)p + interp->sh_offset + sizeof CL, RECORD_MAGIC FE_LDSO);
	const Elf64_Shdr *note = section(p, ".note.ABI-tag");
	cr_assert_eq(memcmp(p + note->sh_offset, orig + e->off[FE_NOTE], e->size[FE_NOTE]), 0,
		     "the note moved byte for byte");
	cr_assert_eq(note->sh_offset % 0x1000, e->off[FE_NOTE] % 0x1000);

	struct elf_facts f;
	cr_assert_eq(elfpatch_inspect(p, plen, &f, why, sizeof why), 0, "%s", why);
	cr_assert(f.patched);
	cr_assert_str_eq(f.interp, CL);
	cr_assert_str_eq(f.recorded, FE_LDSO);

	cr_assert_eq(elfpatch_plan_restore(p, plen, &plan, why, sizeof why), 0, "%s", why);
	cr_assert_eq(patch_plan_size(&plan), e->len);
	unsigned char *back = patch_plan_render(p, &plan);
	cr_assert_eq(memcmp(back, orig, e->len), 0, "restore is byte-identical");
	patch_plan_free(&plan);
	free(back);
	free(p);
	free(orig);
	free(e);
}

Test(grow_front, another_shape_appends_a_table_instead)
{
	struct fx *f = fx_new(&(struct front_spec){ .group = true });
	cr_assert_eq(grow_plan(f->e.buf, f->e.len, &f->l, f->nb, f->nblen, &f->plan, f->why, sizeof f->why),
		     0, "%s", f->why);
	const struct patch_plan *p = &f->plan;
	cr_assert(p->grew);
	cr_assert_eq(p->keep, f->e.len);
	cr_assert_eq(p->n_edits, 2, "the ELF header and .interp's header, nothing of the front attempt");
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)edit_at(p, 0)->bytes;
	cr_assert_eq(eh->e_phoff, f->e.len + p->pad, "a new table at the end");
	cr_assert_eq(p->tail_len, (f->e.phnum + 1) * sizeof(Elf64_Phdr) + f->nblen);
	fx_free(f);
}

Test(grow_front, every_step_in_order)
{
	static grow_step *const want[] = {
		grow_shape, grow_find_moved, grow_place, grow_copy_block, grow_headers,
		grow_renumber, grow_section_headers, grow_dynamic, grow_symbols, grow_check_edits,
	};
	cr_assert_eq(grow_nsteps, sizeof want / sizeof want[0]);
	for (size_t i = 0; i < grow_nsteps; i++)
		cr_assert_eq(grow_steps[i], want[i], "step %zu", i);
}
