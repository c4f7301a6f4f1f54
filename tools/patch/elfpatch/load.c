/* SPDX-License-Identifier: MIT */
/* Reading a file image through libelf, with bounds checks of our own, and
 * elfpatch_inspect on top of it. */
#include "internal.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "../../../common/elf/elfread.h"
#include "../../../common/base/identity.h"

void elfpatch_init(void)
{
	elf_version(EV_CURRENT);
}

void loaded_free(struct loaded *l)
{
	free(l->ph);
	if (l->elf)
		elf_end(l->elf);
	memset(l, 0, sizeof *l);
}

int loaded_read(unsigned char *img, size_t len, struct loaded *l, char *why, size_t cap)
{
	memset(l, 0, sizeof *l);
	l->interp = l->dynamic = -1;
	/* what libelf would only call "invalid", said precisely */
	if (len < EI_NIDENT)
		return why_fail(why, cap, "truncated ELF header");
	if (img[EI_CLASS] != ELFCLASS32 && img[EI_CLASS] != ELFCLASS64)
		return why_fail(why, cap, "unknown ELF class %u", img[EI_CLASS]);
	if (img[EI_DATA] != ELFDATA2LSB && img[EI_DATA] != ELFDATA2MSB)
		return why_fail(why, cap, "unknown ELF byte order %u", img[EI_DATA]);
	if (len < (img[EI_CLASS] == ELFCLASS64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)))
		return why_fail(why, cap, "truncated ELF header");
	l->elf = elf_memory((char *)img, len);
	if (!l->elf || elf_kind(l->elf) != ELF_K_ELF)
		return why_fail(why, cap, "not a valid ELF file (%s)", elf_errmsg(-1));
	if (!gelf_getehdr(l->elf, &l->eh))
		return why_fail(why, cap, "truncated or bad ELF header (%s)", elf_errmsg(-1));
	/* libelf quietly drops tables it cannot read; check the raw header first */
	if (l->eh.e_phnum && l->eh.e_phnum != PN_XNUM &&
	    !in_image(len, l->eh.e_phoff, (uint64_t)l->eh.e_phnum * l->eh.e_phentsize))
		return why_fail(why, cap, "program headers lie outside the file");
	if ((!l->eh.e_shoff && l->eh.e_shnum) ||	/* a count without a table */
	    (l->eh.e_shoff &&
	    (l->eh.e_shentsize != gelf_fsize(l->elf, ELF_T_SHDR, 1, EV_CURRENT) ||
	     !in_image(len, l->eh.e_shoff, (uint64_t)(l->eh.e_shnum ? l->eh.e_shnum : 1) * l->eh.e_shentsize))))
		return why_fail(why, cap, "section headers lie outside the file or have a bad size");
	if (elf_getphdrnum(l->elf, &l->phnum) != 0)
		return why_fail(why, cap, "bad program header count (%s)", elf_errmsg(-1));
	/* Section headers are rewritten too (.interp): they must be sound. */
	size_t shnum;
	if (elf_getshdrnum(l->elf, &shnum) != 0)
		return why_fail(why, cap, "bad section header count (%s)", elf_errmsg(-1));
	size_t shentsize = gelf_fsize(l->elf, ELF_T_SHDR, 1, EV_CURRENT);
	if (shnum && (l->eh.e_shentsize != shentsize ||
		      !in_image(len, l->eh.e_shoff, (uint64_t)shnum * shentsize)))
		return why_fail(why, cap, "section headers lie outside the file or have a bad size");
	if (l->phnum == 0)
		return 0;
	size_t entsize = gelf_fsize(l->elf, ELF_T_PHDR, 1, EV_CURRENT);
	if (l->eh.e_phentsize != entsize)
		return why_fail(why, cap, "program header entry size %u, expected %zu",
			    (unsigned)l->eh.e_phentsize, entsize);
	if (!in_image(len, l->eh.e_phoff, (uint64_t)l->phnum * entsize))
		return why_fail(why, cap, "program headers lie outside the file");
	l->ph = calloc(l->phnum, sizeof *l->ph);
	if (!l->ph)
		return why_fail(why, cap, "out of memory");
	for (size_t i = 0; i < l->phnum; i++) {
		if (!gelf_getphdr(l->elf, (int)i, &l->ph[i]))
			return why_fail(why, cap, "cannot read program header %zu (%s)", i, elf_errmsg(-1));
		if (l->ph[i].p_type == PT_LOAD && !in_image(len, l->ph[i].p_offset, l->ph[i].p_filesz))
			return why_fail(why, cap, "segment %zu lies outside the file (truncated?)", i);
		if (l->ph[i].p_type == PT_INTERP && l->interp < 0)
			l->interp = (int)i;
		if (l->ph[i].p_type == PT_DYNAMIC && l->dynamic < 0)
			l->dynamic = (int)i;
	}
	return 0;
}

bool vaddr_to_off(const struct loaded *l, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < l->phnum; i++) {
		const GElf_Phdr *p = &l->ph[i];
		if (p->p_type == PT_LOAD && vaddr >= p->p_vaddr && vaddr - p->p_vaddr < p->p_filesz) {
			*off = p->p_offset + (vaddr - p->p_vaddr);
			return true;
		}
	}
	return false;
}

/* Does it carry cudaload's identity note of this type (identity.h)? */
static bool has_identity(size_t len, const struct loaded *l, uint32_t type)
{
	for (size_t i = 0; i < l->phnum; i++) {
		const GElf_Phdr *p = &l->ph[i];
		if (p->p_type != PT_NOTE || !in_image(len, p->p_offset, p->p_filesz))
			continue;
		Elf_Data *data = elf_getdata_rawchunk(l->elf, (int64_t)p->p_offset, p->p_filesz, ELF_T_NHDR);
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off, next;
		while (data && off < data->d_size &&
		       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == type && nh.n_namesz == sizeof IDENTITY_NOTE_OWNER &&
			    memcmp((const char *)data->d_buf + name_off, IDENTITY_NOTE_OWNER,
				   sizeof IDENTITY_NOTE_OWNER) == 0)
				return true;
			off = next;
		}
	}
	return false;
}

int inspect_loaded(unsigned char *img, size_t len, struct loaded *l,
		   struct elf_facts *out, char *why, size_t cap)
{
	memset(out, 0, sizeof *out);
	memset(l, 0, sizeof *l);
	if (len >= 2 && img[0] == '#' && img[1] == '!') {
		out->kind = FOUND_SCRIPT;
		return 0;
	}
	if (len < SELFMAG || memcmp(img, ELFMAG, SELFMAG) != 0) {
		out->kind = FOUND_NOT_ELF;
		return 0;
	}
	if (loaded_read(img, len, l, why, cap) < 0)
		return -1;
	out->cls = gelf_getclass(l->elf);
	out->machine = l->eh.e_machine;
	if (l->interp >= 0) {
		const GElf_Phdr *p = &l->ph[l->interp];
		if (p->p_filesz < 2 || p->p_filesz > CL_PATH_MAX || !in_image(len, p->p_offset, p->p_filesz))
			return why_fail(why, cap, "PT_INTERP has a bad size or lies outside the file");
		const char *s = (const char *)img + p->p_offset;
		if (s[p->p_filesz - 1] != '\0' ||
		    elfread_split_interp(s, p->p_filesz, out->interp, sizeof out->interp,
				     out->recorded, sizeof out->recorded) < 0)
			return why_fail(why, cap, "PT_INTERP is not NUL-terminated");
		if (!out->interp[0])
			return why_fail(why, cap, "PT_INTERP names no interpreter");
	}
	switch (l->eh.e_type) {
	case ET_EXEC:
	case ET_DYN:
		if (l->phnum == 0)
			return why_fail(why, cap, "no program headers (a damaged file?)");
		out->kind = l->interp >= 0 ? FOUND_DYNAMIC
			  : has_identity(len, l, IDENTITY_NOTE_TYPE) ? FOUND_CUDALOAD
			  : l->eh.e_type == ET_EXEC ? FOUND_STATIC : FOUND_LIBRARY;
		out->own_program = out->kind == FOUND_DYNAMIC &&
				   has_identity(len, l, IDENTITY_NOTE_TYPE_TOOL);
		break;
	default:
		out->kind = FOUND_OBJECT;
		return 0;
	}
	/* a program's own device code and dlopen count; for the rest only
	 * what it links */
	struct cuda_use use;
	usescuda_loaded(img, len, l, out->kind == FOUND_DYNAMIC ? USESCUDA_ALL : USESCUDA_NEEDED, &use);
	out->uses_cuda = use.sign != CUDA_SIGN_NONE;
	memcpy(out->cuda_lib, use.why, sizeof out->cuda_lib);
	uint64_t orig;
	out->patched = out->recorded[0] && trailer_read(img, len, &orig, NULL, NULL) == 0;
	return 0;
}

int elfpatch_inspect(unsigned char *img, size_t len, struct elf_facts *out,
		     char *why, size_t whycap)
{
	struct loaded l;
	memset(&l, 0, sizeof l);
	int r = inspect_loaded(img, len, &l, out, why, whycap);
	loaded_free(&l);
	return r;
}
