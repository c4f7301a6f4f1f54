/* SPDX-License-Identifier: MIT */
/* A small ELF64 little-endian executable laid out like a linker's: the
 * program header table right after the ELF header, the read-only sections
 * after it in an order the test chooses, .dynamic in a writable PT_LOAD,
 * then .symtab, .strtab, .shstrtab and the section headers.  For the
 * patcher's grow steps and the "uses CUDA" rule; helpers.h has the simpler
 * builder the other tests use. */
#ifndef CUDALOAD_TEST_FRONT_ELF_H
#define CUDALOAD_TEST_FRONT_ELF_H

#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define FE_BASE 0x400000ULL		/* the first PT_LOAD's address */
#define FE_LDSO "/lib64/ld-linux-x86-64.so.2"

/* Sections, by what they are; FE_END ends an order. */
enum fe_sec {
	FE_END,
	FE_INTERP, FE_NOTE, FE_NOTE2, FE_GNU_HASH, FE_DYNSYM, FE_DYNSTR, FE_RODATA, FE_FATBIN,
	FE_DYNAMIC, FE_GROUP, FE_SYMTAB, FE_STRTAB, FE_SHSTRTAB,
	FE_N
};

/* Program headers, in this order; PT_INTERP and the notes' only when there. */
enum fe_ph { FE_PH_PHDR, FE_PH_INTERP, FE_PH_TEXT, FE_PH_DATA, FE_PH_DYNAMIC, FE_PH_NOTE,
	     FE_PH_STACK, FE_PH_N };

struct front_spec {
	const enum fe_sec *order;	/* the read-only sections in file order; NULL:
					 * interp, note, gnu.hash, dynsym, dynstr, rodata */
	bool no_interp;			/* no PT_INTERP (and no .interp unless ordered) */
	bool no_section_headers;	/* e_shoff, e_shnum, e_shstrndx zeroed */
	bool group;			/* an SHT_GROUP section too */
	unsigned gap;			/* zero bytes between the table and the first section */
	uint64_t note_flags;		/* extra sh_flags for .note.ABI-tag */
	const char *needed;		/* DT_NEEDED name: default libc.so.6 */
	const char *rodata;		/* .rodata's string: default "hello" */
	uint64_t bss;			/* memory past the writable segment's file bytes */
	uint16_t type;			/* e_type: default ET_EXEC */
};

struct front_elf {
	unsigned char buf[16384];
	size_t len;
	size_t phnum, phend;		/* phend: where the table ends */
	int ph[FE_PH_N];		/* index of each program header, -1: none */
	size_t idx[FE_N];		/* section index, 0: absent */
	uint64_t off[FE_N], addr[FE_N], size[FE_N];
	size_t shnum;
	size_t sym_note, sym_abi, sym_interp, sym_msg, sym_abs;	/* .symtab entries */
	size_t dsym_msg;		/* the .dynsym entry defined in .rodata */
};

static inline uint64_t fe_align(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static inline void fe_section(struct front_elf *e, enum fe_sec s, const void *data, size_t n,
			      uint64_t align, uint64_t *off, bool alloc, uint64_t addr_base)
{
	*off = fe_align(*off, align);
	memcpy(e->buf + *off, data, n);
	e->off[s] = *off;
	e->addr[s] = alloc ? addr_base + *off : 0;
	e->size[s] = n;
	*off += n;
}

static inline void front_elf_build(struct front_elf *e, const struct front_spec *s)
{
	static const enum fe_sec default_order[] = { FE_INTERP, FE_NOTE, FE_GNU_HASH, FE_DYNSYM,
						     FE_DYNSTR, FE_RODATA, FE_END };
	const enum fe_sec *order = s->order ? s->order : default_order;
	memset(e, 0, sizeof *e);
	for (int i = 0; i < FE_PH_N; i++)
		e->ph[i] = -1;

	bool present[FE_N] = { false };
	for (const enum fe_sec *o = order; *o != FE_END; o++)
		present[*o] = true;
	if (s->no_interp)
		present[FE_INTERP] = false;
	bool has_note = present[FE_NOTE] || present[FE_NOTE2];

	/* the program headers there will be */
	size_t nph = 0;
	e->ph[FE_PH_PHDR] = (int)nph++;
	if (!s->no_interp)
		e->ph[FE_PH_INTERP] = (int)nph++;
	e->ph[FE_PH_TEXT] = (int)nph++;
	e->ph[FE_PH_DATA] = (int)nph++;
	e->ph[FE_PH_DYNAMIC] = (int)nph++;
	if (has_note)
		e->ph[FE_PH_NOTE] = (int)nph++;
	e->ph[FE_PH_STACK] = (int)nph++;
	e->phnum = nph;
	e->phend = sizeof(Elf64_Ehdr) + nph * sizeof(Elf64_Phdr);

	/* section indices: null, the ordered ones, .dynamic, (group), .symtab, .strtab, .shstrtab */
	size_t k = 1;
	for (const enum fe_sec *o = order; *o != FE_END; o++)
		if (present[*o])
			e->idx[*o] = k++;
	e->idx[FE_DYNAMIC] = k++;
	if (s->group)
		e->idx[FE_GROUP] = k++;
	e->idx[FE_SYMTAB] = k++;
	e->idx[FE_STRTAB] = k++;
	e->idx[FE_SHSTRTAB] = k++;
	e->shnum = k;

	const char *needed = s->needed ? s->needed : "libc.so.6";
	char dynstr[128];
	size_t dl = 0;
	dynstr[dl++] = '\0';
	size_t n_needed = dl;
	dl += (size_t)sprintf(dynstr + dl, "%s", needed) + 1;
	size_t n_puts = dl;
	dl += (size_t)sprintf(dynstr + dl, "puts") + 1;
	size_t n_msg = dl;
	dl += (size_t)sprintf(dynstr + dl, "msg") + 1;

	/* the read-only sections, in order */
	uint64_t off = e->phend + s->gap;
	for (const enum fe_sec *o = order; *o != FE_END; o++) {
		if (!present[*o])
			continue;
		switch (*o) {
		case FE_INTERP:
			fe_section(e, *o, FE_LDSO, sizeof FE_LDSO, 1, &off, true, FE_BASE);
			break;
		case FE_NOTE: {
			uint32_t note[8] = { 4, 16, NT_GNU_ABI_TAG, 0x00554e47 /* "GNU\0" */, 0, 3, 2, 0 };
			fe_section(e, *o, note, sizeof note, 4, &off, true, FE_BASE);
			break;
		}
		case FE_NOTE2: {
			uint32_t note[8] = { 4, 16, NT_GNU_BUILD_ID, 0x00554e47, 1, 2, 3, 4 };
			fe_section(e, *o, note, sizeof note, 4, &off, true, FE_BASE);
			break;
		}
		case FE_GNU_HASH: {
			uint32_t hash[8] = { 1, 1, 1, 6, 0, 0, 0, 0 };
			fe_section(e, *o, hash, sizeof hash, 8, &off, true, FE_BASE);
			break;
		}
		case FE_DYNSYM:
			off = fe_align(off, 8);
			e->off[*o] = off;	/* filled once .rodata's address is known */
			e->addr[*o] = FE_BASE + off;
			e->size[*o] = 3 * sizeof(Elf64_Sym);
			off += e->size[*o];
			break;
		case FE_DYNSTR:
			fe_section(e, *o, dynstr, dl, 1, &off, true, FE_BASE);
			break;
		case FE_RODATA: {
			const char *ro = s->rodata ? s->rodata : "hello";
			fe_section(e, *o, ro, strlen(ro) + 1, 8, &off, true, FE_BASE);
			break;
		}
		case FE_FATBIN:
			fe_section(e, *o, "\x50\xed\x55\xba", 4, 8, &off, true, FE_BASE);
			break;
		default:
			break;
		}
	}
	uint64_t text_end = off;
	if (present[FE_DYNSYM]) {
		Elf64_Sym ds[3] = { { 0 } };
		ds[1] = (Elf64_Sym){ .st_name = (uint32_t)n_puts, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC) };
		if (present[FE_RODATA])
			ds[2] = (Elf64_Sym){ .st_name = (uint32_t)n_msg,
					     .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT),
					     .st_shndx = (uint16_t)e->idx[FE_RODATA],
					     .st_value = e->addr[FE_RODATA], .st_size = 6 };
		memcpy(e->buf + e->off[FE_DYNSYM], ds, sizeof ds);
		e->dsym_msg = 2;
	}

	/* .dynamic, writable, at the same offset within the page one page up */
	uint64_t data_base = FE_BASE + 0x1000;
	Elf64_Dyn dyn[8];
	size_t nd = 0;
	dyn[nd++] = (Elf64_Dyn){ DT_NEEDED, { n_needed } };
	if (present[FE_GNU_HASH])
		dyn[nd++] = (Elf64_Dyn){ DT_GNU_HASH, { e->addr[FE_GNU_HASH] } };
	if (present[FE_DYNSTR])
		dyn[nd++] = (Elf64_Dyn){ DT_STRTAB, { e->addr[FE_DYNSTR] } };
	if (present[FE_DYNSYM])
		dyn[nd++] = (Elf64_Dyn){ DT_SYMTAB, { e->addr[FE_DYNSYM] } };
	dyn[nd++] = (Elf64_Dyn){ DT_STRSZ, { dl } };
	dyn[nd++] = (Elf64_Dyn){ DT_SYMENT, { sizeof(Elf64_Sym) } };
	dyn[nd++] = (Elf64_Dyn){ DT_DEBUG, { 0 } };
	dyn[nd++] = (Elf64_Dyn){ DT_NULL, { 0 } };
	fe_section(e, FE_DYNAMIC, dyn, nd * sizeof *dyn, 8, &off, true, data_base);

	if (s->group) {
		uint32_t grp[2] = { GRP_COMDAT, (uint32_t)e->idx[FE_RODATA] };
		fe_section(e, FE_GROUP, grp, sizeof grp, 4, &off, false, 0);
	}

	char strtab[64];
	size_t sl = 0;
	strtab[sl++] = '\0';
	size_t n_abi = sl;
	sl += (size_t)sprintf(strtab + sl, "__abi_tag") + 1;
	size_t n_isym = sl;
	sl += (size_t)sprintf(strtab + sl, "interp_sym") + 1;
	size_t n_smsg = sl;
	sl += (size_t)sprintf(strtab + sl, "msg") + 1;
	size_t n_abs = sl;
	sl += (size_t)sprintf(strtab + sl, "abs") + 1;

	Elf64_Sym sym[6] = { { 0 } };
	size_t ns = 1;
	if (present[FE_NOTE]) {
		e->sym_note = ns;
		sym[ns++] = (Elf64_Sym){ .st_info = ELF64_ST_INFO(STB_LOCAL, STT_SECTION),
					 .st_shndx = (uint16_t)e->idx[FE_NOTE], .st_value = e->addr[FE_NOTE] };
		e->sym_abi = ns;
		sym[ns++] = (Elf64_Sym){ .st_name = (uint32_t)n_abi, .st_info = ELF64_ST_INFO(STB_LOCAL, STT_OBJECT),
					 .st_shndx = (uint16_t)e->idx[FE_NOTE], .st_value = e->addr[FE_NOTE],
					 .st_size = 32 };
	}
	if (present[FE_INTERP]) {
		e->sym_interp = ns;
		sym[ns++] = (Elf64_Sym){ .st_name = (uint32_t)n_isym, .st_info = ELF64_ST_INFO(STB_LOCAL, STT_OBJECT),
					 .st_shndx = (uint16_t)e->idx[FE_INTERP], .st_value = e->addr[FE_INTERP] + 5 };
	}
	if (present[FE_RODATA]) {
		e->sym_msg = ns;
		sym[ns++] = (Elf64_Sym){ .st_name = (uint32_t)n_smsg, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT),
					 .st_shndx = (uint16_t)e->idx[FE_RODATA], .st_value = e->addr[FE_RODATA] };
	}
	e->sym_abs = ns;
	sym[ns++] = (Elf64_Sym){ .st_name = (uint32_t)n_abs, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_NOTYPE),
				 .st_shndx = SHN_ABS, .st_value = 42 };
	fe_section(e, FE_SYMTAB, sym, ns * sizeof *sym, 8, &off, false, 0);
	fe_section(e, FE_STRTAB, strtab, sl, 1, &off, false, 0);

	static const char *const names[FE_N] = {
		[FE_INTERP] = ".interp", [FE_NOTE] = ".note.ABI-tag", [FE_NOTE2] = ".note.gnu.build-id",
		[FE_GNU_HASH] = ".gnu.hash", [FE_DYNSYM] = ".dynsym", [FE_DYNSTR] = ".dynstr",
		[FE_RODATA] = ".rodata", [FE_FATBIN] = ".nv_fatbin", [FE_DYNAMIC] = ".dynamic",
		[FE_GROUP] = ".group", [FE_SYMTAB] = ".symtab", [FE_STRTAB] = ".strtab",
		[FE_SHSTRTAB] = ".shstrtab",
	};
	char shstr[256];
	size_t name_at[FE_N] = { 0 };
	size_t hl = 0;
	shstr[hl++] = '\0';
	for (int i = 1; i < FE_N; i++) {
		name_at[i] = hl;
		hl += (size_t)sprintf(shstr + hl, "%s", names[i]) + 1;
	}
	fe_section(e, FE_SHSTRTAB, shstr, hl, 1, &off, false, 0);

	/* section headers */
	static const uint32_t types[FE_N] = {
		[FE_INTERP] = SHT_PROGBITS, [FE_NOTE] = SHT_NOTE, [FE_NOTE2] = SHT_NOTE,
		[FE_GNU_HASH] = SHT_GNU_HASH, [FE_DYNSYM] = SHT_DYNSYM, [FE_DYNSTR] = SHT_STRTAB,
		[FE_RODATA] = SHT_PROGBITS, [FE_FATBIN] = SHT_PROGBITS, [FE_DYNAMIC] = SHT_DYNAMIC,
		[FE_GROUP] = SHT_GROUP, [FE_SYMTAB] = SHT_SYMTAB, [FE_STRTAB] = SHT_STRTAB,
		[FE_SHSTRTAB] = SHT_STRTAB,
	};
	uint64_t shoff = fe_align(off, 8);
	Elf64_Shdr *sh = (Elf64_Shdr *)(e->buf + shoff);
	for (int i = 1; i < FE_N; i++) {
		if (!e->idx[i])
			continue;
		Elf64_Shdr *h = &sh[e->idx[i]];
		bool alloc = i <= FE_DYNAMIC;
		*h = (Elf64_Shdr){ .sh_name = (uint32_t)name_at[i], .sh_type = types[i],
				   .sh_flags = alloc ? SHF_ALLOC : 0, .sh_addr = e->addr[i],
				   .sh_offset = e->off[i], .sh_size = e->size[i], .sh_addralign = 1 };
	}
	sh[e->idx[FE_DYNAMIC]].sh_flags |= SHF_WRITE;
	sh[e->idx[FE_DYNAMIC]].sh_entsize = sizeof(Elf64_Dyn);
	sh[e->idx[FE_DYNAMIC]].sh_link = (uint32_t)e->idx[FE_DYNSTR];
	if (e->idx[FE_NOTE])
		sh[e->idx[FE_NOTE]].sh_flags |= s->note_flags;
	if (e->idx[FE_DYNSYM]) {
		sh[e->idx[FE_DYNSYM]].sh_entsize = sizeof(Elf64_Sym);
		sh[e->idx[FE_DYNSYM]].sh_link = (uint32_t)e->idx[FE_DYNSTR];
		sh[e->idx[FE_DYNSYM]].sh_info = 1;
	}
	if (e->idx[FE_GNU_HASH])
		sh[e->idx[FE_GNU_HASH]].sh_link = (uint32_t)e->idx[FE_DYNSYM];
	if (s->group) {
		sh[e->idx[FE_GROUP]].sh_link = (uint32_t)e->idx[FE_SYMTAB];
		sh[e->idx[FE_GROUP]].sh_entsize = 4;
	}
	sh[e->idx[FE_SYMTAB]].sh_entsize = sizeof(Elf64_Sym);
	sh[e->idx[FE_SYMTAB]].sh_link = (uint32_t)e->idx[FE_STRTAB];
	sh[e->idx[FE_SYMTAB]].sh_info = (uint32_t)ns;
	e->len = shoff + e->shnum * sizeof(Elf64_Shdr);

	/* program headers */
	Elf64_Phdr *ph = (Elf64_Phdr *)(e->buf + sizeof(Elf64_Ehdr));
	ph[e->ph[FE_PH_PHDR]] = (Elf64_Phdr){ PT_PHDR, PF_R, sizeof(Elf64_Ehdr), FE_BASE + sizeof(Elf64_Ehdr),
					      FE_BASE + sizeof(Elf64_Ehdr), nph * sizeof(Elf64_Phdr),
					      nph * sizeof(Elf64_Phdr), 8 };
	if (e->ph[FE_PH_INTERP] >= 0)
		ph[e->ph[FE_PH_INTERP]] = (Elf64_Phdr){ PT_INTERP, PF_R, e->off[FE_INTERP], e->addr[FE_INTERP],
							e->addr[FE_INTERP], sizeof FE_LDSO, sizeof FE_LDSO, 1 };
	ph[e->ph[FE_PH_TEXT]] = (Elf64_Phdr){ PT_LOAD, PF_R, 0, FE_BASE, FE_BASE, text_end, text_end, 0x1000 };
	uint64_t dsz = e->size[FE_DYNAMIC];
	ph[e->ph[FE_PH_DATA]] = (Elf64_Phdr){ PT_LOAD, PF_R | PF_W, e->off[FE_DYNAMIC], e->addr[FE_DYNAMIC],
					      e->addr[FE_DYNAMIC], dsz, dsz + s->bss, 0x1000 };
	ph[e->ph[FE_PH_DYNAMIC]] = (Elf64_Phdr){ PT_DYNAMIC, PF_R | PF_W, e->off[FE_DYNAMIC], e->addr[FE_DYNAMIC],
						 e->addr[FE_DYNAMIC], dsz, dsz, 8 };
	if (has_note) {
		/* one PT_NOTE over the notes, which the order keeps together */
		enum fe_sec a = present[FE_NOTE] ? FE_NOTE : FE_NOTE2;
		enum fe_sec b = present[FE_NOTE2] && e->off[FE_NOTE2] > e->off[a] ? FE_NOTE2 : a;
		uint64_t nsz = e->off[b] + e->size[b] - e->off[a];
		ph[e->ph[FE_PH_NOTE]] = (Elf64_Phdr){ PT_NOTE, PF_R, e->off[a], e->addr[a], e->addr[a], nsz, nsz, 4 };
	}
	ph[e->ph[FE_PH_STACK]] = (Elf64_Phdr){ PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 0, 16 };

	Elf64_Ehdr eh = { 0 };
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = s->type ? s->type : ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_entry = FE_BASE;
	eh.e_phoff = sizeof(Elf64_Ehdr);
	eh.e_ehsize = sizeof eh;
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = (uint16_t)nph;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	if (!s->no_section_headers) {
		eh.e_shoff = shoff;
		eh.e_shnum = (uint16_t)e->shnum;
		eh.e_shstrndx = (uint16_t)e->idx[FE_SHSTRTAB];
	}
	memcpy(e->buf, &eh, sizeof eh);
}

#endif
