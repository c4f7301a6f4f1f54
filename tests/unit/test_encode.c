/* SPDX-License-Identifier: MIT */
/* The encoders (tools/patch/elfpatch/encode.c) in each class and byte order:
 * what they write, libelf reads back as it was. */
#include "helpers.h"

#include "../../tools/patch/elfpatch/internal.h"

struct target {
	unsigned char img[64];
	Elf *elf;
	int cls;
	unsigned enc;
};

static void target_open(struct target *t, int cls, unsigned enc)
{
	memset(t, 0, sizeof *t);
	memcpy(t->img, ELFMAG, SELFMAG);
	t->img[EI_CLASS] = (unsigned char)cls;
	t->img[EI_DATA] = (unsigned char)enc;
	t->img[EI_VERSION] = EV_CURRENT;
	t->cls = cls;
	t->enc = enc;
	elfpatch_init();
	t->elf = elf_memory((char *)t->img, sizeof t->img);
	cr_assert(t->elf && gelf_getclass(t->elf) == cls, "%s", elf_errmsg(-1));
}

/* Back to memory, in the file's class, host order. */
static void decode(const struct target *t, Elf_Type type, const unsigned char *src, size_t n,
		   void *dst, size_t dstsize)
{
	Elf_Data s = { .d_buf = (void *)src, .d_type = type, .d_size = n, .d_version = EV_CURRENT };
	Elf_Data d = { .d_buf = dst, .d_size = dstsize, .d_version = EV_CURRENT };
	cr_assert(gelf_xlatetom(t->elf, &d, &s, t->enc), "%s", elf_errmsg(-1));
}

static const struct { int cls; unsigned enc; } kinds[] = {
	{ ELFCLASS64, ELFDATA2LSB }, { ELFCLASS64, ELFDATA2MSB },
	{ ELFCLASS32, ELFDATA2LSB }, { ELFCLASS32, ELFDATA2MSB },
};

Test(encode, program_headers)
{
	const GElf_Phdr ph[2] = {
		{ PT_LOAD, PF_R | PF_X, 0x1000, 0x401000, 0x401000, 0x2345, 0x3456, 0x1000 },
		{ PT_INTERP, PF_R, 0x318, 0x400318, 0x400318, 28, 28, 1 },
	};
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		struct target t;
		target_open(&t, kinds[k].cls, kinds[k].enc);
		unsigned char out[2 * sizeof(Elf64_Phdr)];
		size_t n = 2 * gelf_fsize(t.elf, ELF_T_PHDR, 1, EV_CURRENT);
		cr_assert_eq(encode_phdrs(t.elf, ph, 2, out, n, t.enc), 0);
		cr_assert_eq(out[t.enc == ELFDATA2MSB ? 3 : 0], PT_LOAD, "p_type first, in the file's order");
		if (t.cls == ELFCLASS64) {
			Elf64_Phdr m[2];
			decode(&t, ELF_T_PHDR, out, n, m, sizeof m);
			for (int i = 0; i < 2; i++)
				cr_assert(m[i].p_type == ph[i].p_type && m[i].p_flags == ph[i].p_flags &&
					  m[i].p_offset == ph[i].p_offset && m[i].p_vaddr == ph[i].p_vaddr &&
					  m[i].p_paddr == ph[i].p_paddr && m[i].p_filesz == ph[i].p_filesz &&
					  m[i].p_memsz == ph[i].p_memsz && m[i].p_align == ph[i].p_align,
					  "kind %zu entry %d", k, i);
		} else {
			Elf32_Phdr m[2];
			decode(&t, ELF_T_PHDR, out, n, m, sizeof m);
			for (int i = 0; i < 2; i++)
				cr_assert(m[i].p_type == ph[i].p_type && m[i].p_flags == ph[i].p_flags &&
					  m[i].p_offset == ph[i].p_offset && m[i].p_vaddr == ph[i].p_vaddr &&
					  m[i].p_paddr == ph[i].p_paddr && m[i].p_filesz == ph[i].p_filesz &&
					  m[i].p_memsz == ph[i].p_memsz && m[i].p_align == ph[i].p_align,
					  "kind %zu entry %d", k, i);
		}
		cr_assert_eq(encode_phdrs(t.elf, ph, 2, out, n - 1, t.enc), -1, "no room: refused");
		elf_end(t.elf);
	}
}

Test(encode, elf_header)
{
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		struct target t;
		target_open(&t, kinds[k].cls, kinds[k].enc);
		GElf_Ehdr h = { 0 };
		memcpy(h.e_ident, t.img, EI_NIDENT);
		h.e_type = ET_DYN, h.e_machine = EM_AARCH64, h.e_version = EV_CURRENT;
		h.e_entry = 0x1040, h.e_phoff = 0x40, h.e_shoff = 0x3a98, h.e_flags = 5;
		h.e_ehsize = 64, h.e_phentsize = 56, h.e_phnum = 14, h.e_shentsize = 64;
		h.e_shnum = 31, h.e_shstrndx = 30;
		unsigned char out[sizeof(Elf64_Ehdr)];
		size_t n = gelf_fsize(t.elf, ELF_T_EHDR, 1, EV_CURRENT);
		cr_assert_eq(encode_ehdr(t.elf, &h, out, n), 0);
		cr_assert_eq(memcmp(out, t.img, EI_NIDENT), 0);
		Elf *back = elf_memory((char *)out, n);
		GElf_Ehdr r;
		cr_assert(back && gelf_getehdr(back, &r), "%s", elf_errmsg(-1));
		cr_assert_eq(memcmp(&r, &h, sizeof r), 0, "kind %zu", k);
		elf_end(back);
		elf_end(t.elf);
	}
}

Test(encode, section_header_dynamic_symbol)
{
	const GElf_Shdr s = { 27, SHT_DYNSYM, SHF_ALLOC, 0x4003c8, 0x3c8, 0x90, 6, 1, 8, 24 };
	const GElf_Dyn d[3] = { { DT_NEEDED, { 1 } }, { DT_STRTAB, { 0x400480 } }, { DT_NULL, { 0 } } };
	const GElf_Sym sym = { 11, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), STV_DEFAULT, 14, 0x401126, 0x2a };
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		struct target t;
		target_open(&t, kinds[k].cls, kinds[k].enc);
		unsigned char out[256];

		size_t n = gelf_fsize(t.elf, ELF_T_SHDR, 1, EV_CURRENT);
		cr_assert_eq(encode_shdr(t.elf, &s, out, n, t.enc), 0);
		GElf_Shdr rs;
		if (t.cls == ELFCLASS64) {
			Elf64_Shdr m;
			decode(&t, ELF_T_SHDR, out, n, &m, sizeof m);
			rs = (GElf_Shdr){ m.sh_name, m.sh_type, m.sh_flags, m.sh_addr, m.sh_offset,
					  m.sh_size, m.sh_link, m.sh_info, m.sh_addralign, m.sh_entsize };
		} else {
			Elf32_Shdr m;
			decode(&t, ELF_T_SHDR, out, n, &m, sizeof m);
			rs = (GElf_Shdr){ m.sh_name, m.sh_type, m.sh_flags, m.sh_addr, m.sh_offset,
					  m.sh_size, m.sh_link, m.sh_info, m.sh_addralign, m.sh_entsize };
		}
		cr_assert_eq(memcmp(&rs, &s, sizeof s), 0, "section header, kind %zu", k);

		n = 3 * gelf_fsize(t.elf, ELF_T_DYN, 1, EV_CURRENT);
		cr_assert_eq(encode_dyn(t.elf, d, 3, out, n, t.enc), 0);
		for (int i = 0; i < 3; i++) {
			int64_t tag;
			uint64_t val;
			if (t.cls == ELFCLASS64) {
				Elf64_Dyn m[3];
				decode(&t, ELF_T_DYN, out, n, m, sizeof m);
				tag = m[i].d_tag, val = m[i].d_un.d_val;
			} else {
				Elf32_Dyn m[3];
				decode(&t, ELF_T_DYN, out, n, m, sizeof m);
				tag = m[i].d_tag, val = m[i].d_un.d_val;
			}
			cr_assert(tag == d[i].d_tag && val == d[i].d_un.d_val, "dynamic %d, kind %zu", i, k);
		}

		n = gelf_fsize(t.elf, ELF_T_SYM, 1, EV_CURRENT);
		cr_assert_eq(encode_sym(t.elf, &sym, out, n, t.enc), 0);
		GElf_Sym rsym;
		if (t.cls == ELFCLASS64) {
			Elf64_Sym m;
			decode(&t, ELF_T_SYM, out, n, &m, sizeof m);
			rsym = m;
		} else {
			Elf32_Sym m;
			decode(&t, ELF_T_SYM, out, n, &m, sizeof m);
			rsym = (GElf_Sym){ m.st_name, m.st_info, m.st_other, m.st_shndx, m.st_value, m.st_size };
		}
		cr_assert_eq(memcmp(&rsym, &sym, sizeof sym), 0, "symbol, kind %zu", k);
		elf_end(t.elf);
	}
}
