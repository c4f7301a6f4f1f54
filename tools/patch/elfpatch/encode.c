/* SPDX-License-Identifier: MIT */
/* GElf structures (64-bit, host order) to the file's class and byte order,
 * through libelf's translation. */
#include "internal.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

static int encode(Elf *e, Elf_Type type, const void *mem, size_t memsize,
		  unsigned char *dst, size_t dstsize, unsigned encoding)
{
	Elf_Data src = { .d_buf = (void *)mem, .d_type = type, .d_size = memsize,
			 .d_version = EV_CURRENT };
	Elf_Data out = { .d_buf = dst, .d_size = dstsize, .d_version = EV_CURRENT };
	return gelf_xlatetof(e, &out, &src, encoding) ? 0 : -1;
}

int encode_phdrs(Elf *e, const GElf_Phdr *ph, size_t n, unsigned char *dst,
		 size_t dstsize, unsigned enc)
{
	int r;
	if (gelf_getclass(e) == ELFCLASS64) {
		Elf64_Phdr *m = calloc(n, sizeof *m);
		if (!m)
			return -1;
		for (size_t i = 0; i < n; i++)
			m[i] = (Elf64_Phdr){ ph[i].p_type, ph[i].p_flags, ph[i].p_offset, ph[i].p_vaddr,
					     ph[i].p_paddr, ph[i].p_filesz, ph[i].p_memsz, ph[i].p_align };
		r = encode(e, ELF_T_PHDR, m, n * sizeof *m, dst, dstsize, enc);
		free(m);
	} else {
		Elf32_Phdr *m = calloc(n, sizeof *m);
		if (!m)
			return -1;
		for (size_t i = 0; i < n; i++)
			m[i] = (Elf32_Phdr){ ph[i].p_type, (Elf32_Off)ph[i].p_offset, (Elf32_Addr)ph[i].p_vaddr,
					     (Elf32_Addr)ph[i].p_paddr, (Elf32_Word)ph[i].p_filesz,
					     (Elf32_Word)ph[i].p_memsz, ph[i].p_flags, (Elf32_Word)ph[i].p_align };
		r = encode(e, ELF_T_PHDR, m, n * sizeof *m, dst, dstsize, enc);
		free(m);
	}
	return r;
}

int encode_ehdr(Elf *e, const GElf_Ehdr *h, unsigned char *dst, size_t dstsize)
{
	unsigned enc = h->e_ident[EI_DATA];
	if (gelf_getclass(e) == ELFCLASS64) {
		Elf64_Ehdr m;
		memcpy(m.e_ident, h->e_ident, EI_NIDENT);
		m.e_type = h->e_type, m.e_machine = h->e_machine, m.e_version = h->e_version;
		m.e_entry = h->e_entry, m.e_phoff = h->e_phoff, m.e_shoff = h->e_shoff;
		m.e_flags = h->e_flags, m.e_ehsize = h->e_ehsize, m.e_phentsize = h->e_phentsize;
		m.e_phnum = h->e_phnum, m.e_shentsize = h->e_shentsize, m.e_shnum = h->e_shnum;
		m.e_shstrndx = h->e_shstrndx;
		return encode(e, ELF_T_EHDR, &m, sizeof m, dst, dstsize, enc);
	}
	Elf32_Ehdr m;
	memcpy(m.e_ident, h->e_ident, EI_NIDENT);
	m.e_type = h->e_type, m.e_machine = h->e_machine, m.e_version = h->e_version;
	m.e_entry = (Elf32_Addr)h->e_entry, m.e_phoff = (Elf32_Off)h->e_phoff;
	m.e_shoff = (Elf32_Off)h->e_shoff, m.e_flags = h->e_flags, m.e_ehsize = h->e_ehsize;
	m.e_phentsize = h->e_phentsize, m.e_phnum = h->e_phnum, m.e_shentsize = h->e_shentsize;
	m.e_shnum = h->e_shnum, m.e_shstrndx = h->e_shstrndx;
	return encode(e, ELF_T_EHDR, &m, sizeof m, dst, dstsize, enc);
}

int encode_shdr(Elf *e, const GElf_Shdr *s, unsigned char *dst, size_t dstsize, unsigned enc)
{
	if (gelf_getclass(e) == ELFCLASS64) {
		Elf64_Shdr m = { s->sh_name, s->sh_type, s->sh_flags, s->sh_addr, s->sh_offset,
				 s->sh_size, s->sh_link, s->sh_info, s->sh_addralign, s->sh_entsize };
		return encode(e, ELF_T_SHDR, &m, sizeof m, dst, dstsize, enc);
	}
	Elf32_Shdr m = { s->sh_name, s->sh_type, (Elf32_Word)s->sh_flags, (Elf32_Addr)s->sh_addr,
			 (Elf32_Off)s->sh_offset, (Elf32_Word)s->sh_size, s->sh_link, s->sh_info,
			 (Elf32_Word)s->sh_addralign, (Elf32_Word)s->sh_entsize };
	return encode(e, ELF_T_SHDR, &m, sizeof m, dst, dstsize, enc);
}

int encode_dyn(Elf *e, const GElf_Dyn *d, size_t n, unsigned char *dst, size_t dstsize,
	       unsigned enc)
{
	int r;
	if (gelf_getclass(e) == ELFCLASS64) {
		r = encode(e, ELF_T_DYN, d, n * sizeof *d, dst, dstsize, enc);	/* GElf_Dyn is Elf64_Dyn */
	} else {
		Elf32_Dyn *m = calloc(n ? n : 1, sizeof *m);
		if (!m)
			return -1;
		for (size_t i = 0; i < n; i++)
			m[i] = (Elf32_Dyn){ (Elf32_Sword)d[i].d_tag, { (Elf32_Word)d[i].d_un.d_val } };
		r = encode(e, ELF_T_DYN, m, n * sizeof *m, dst, dstsize, enc);
		free(m);
	}
	return r;
}

int encode_sym(Elf *e, const GElf_Sym *s, unsigned char *dst, size_t dstsize, unsigned enc)
{
	if (gelf_getclass(e) == ELFCLASS64)
		return encode(e, ELF_T_SYM, s, sizeof *s, dst, dstsize, enc);	/* GElf_Sym is Elf64_Sym */
	Elf32_Sym m = { s->st_name, (Elf32_Addr)s->st_value, (Elf32_Word)s->st_size, s->st_info,
			s->st_other, s->st_shndx };
	return encode(e, ELF_T_SYM, &m, sizeof m, dst, dstsize, enc);
}
