/* SPDX-License-Identifier: MIT */
/* Helpers for the unit tests: scratch directories, files, and a tiny ELF
 * builder so tests can make (and then break) real ELF files byte by byte. */
#ifndef CUDALOAD_TEST_HELPERS_H
#define CUDALOAD_TEST_HELPERS_H

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdbool.h>
#include <elf.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static inline int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(p);
}

static inline void rm_rf(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static inline char *scratch_dir(void)
{
	char *d = strdup("/tmp/cudaload-unit-XXXXXX");
	cr_assert(mkdtemp(d) != NULL);
	return d;
}

static inline void mkdirs(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	}
	mkdir(buf, 0755);
}

/* Write len bytes to dir/rel, making parent directories. */
static inline void put_file(const char *dir, const char *rel, const void *data, size_t len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s%s", dir, rel);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	mkdirs(path);
	*slash = '/';
	FILE *f = fopen(path, "wb");
	cr_assert(f != NULL, "cannot create %s", path);
	cr_assert(fwrite(data, 1, len, f) == len);
	fclose(f);
}

static inline void put_text(const char *dir, const char *rel, const char *text)
{
	put_file(dir, rel, text, strlen(text));
}

/* ---- a minimal ELF64 little-endian builder ---------------------------------- */

struct test_elf {
	unsigned char buf[8192];
	size_t len;
	size_t phoff, shoff;	/* where the tables went, for poking */
	size_t interp_off, note_off;
};

struct test_elf_spec {
	uint16_t type, machine;
	const char *interp;	/* NULL: no PT_INTERP */
	size_t interp_len;	/* 0: strlen+1 */
	const char *note_owner;	/* NULL: no note section */
	const char *note_desc;
	const char *note_section;	/* default .note.cuda.fwd_compatibility */
	uint32_t note_type;		/* default 1 */
	bool note_type_0;		/* n_type 0, as NVIDIA ships its notes */
	bool note_segment;		/* also a PT_NOTE over it */
	unsigned note_align;		/* 4 (default) or 8: the section's alignment and padding */
	uint32_t note_descsz;		/* 0: strlen(note_desc); more: a descriptor cut short */
	size_t note_size;		/* 0: the note padded; more: NULs to that size */
	/* Shaped like a dynamic loader (common/elf/ldso.h): an executable PT_LOAD
	 * with the entry in it and a PT_DYNAMIC, holding a DT_NEEDED and a
	 * DT_FLAGS_1 when asked for. */
	bool loader;
	bool dyn_needed;
	uint64_t dyn_flags_1;
};

static inline size_t te_put(struct test_elf *e, const void *p, size_t n)
{
	size_t off = (e->len + 7) & ~(size_t)7;
	memset(e->buf + e->len, 0, off - e->len);
	memcpy(e->buf + off, p, n);
	e->len = off + n;
	return off;
}

static inline void test_elf_build(struct test_elf *e, const struct test_elf_spec *s)
{
	memset(e, 0, sizeof *e);
	Elf64_Ehdr eh = { 0 };
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = s->type ? s->type : ET_DYN;
	eh.e_machine = s->machine ? s->machine : EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof eh;
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	e->len = sizeof eh;

	size_t ilen = 0;
	if (s->interp) {
		ilen = s->interp_len ? s->interp_len : strlen(s->interp) + 1;
		e->interp_off = te_put(e, s->interp, ilen);
	}
	char note[1024];
	size_t nlen = 0;
	if (s->note_owner) {
		/* padded from the note's start, as readelf reads a section of
		 * that alignment */
		size_t mask = s->note_align == 8 ? 7 : 3;
		uint32_t namesz = (uint32_t)strlen(s->note_owner) + 1;
		uint32_t descsz = (uint32_t)strlen(s->note_desc);
		uint32_t hdr[3] = { namesz, s->note_descsz ? s->note_descsz : descsz,
				    s->note_type_0 ? 0 : s->note_type ? s->note_type : 1 };
		memset(note, 0, sizeof note);
		memcpy(note, hdr, 12);
		memcpy(note + 12, s->note_owner, namesz);
		nlen = (12 + namesz + mask) & ~mask;
		memcpy(note + nlen, s->note_desc, descsz);
		nlen = (nlen + descsz + mask) & ~mask;
		if (s->note_size > nlen && s->note_size <= sizeof note)
			nlen = s->note_size;
		e->note_off = te_put(e, note, nlen);
	}
	const char *secname = s->note_section ? s->note_section : ".note.cuda.fwd_compatibility";
	char strtab[256];
	size_t slen = 0;
	strtab[slen++] = '\0';
	size_t name_shstrtab = slen;
	slen += (size_t)sprintf(strtab + slen, ".shstrtab") + 1;
	size_t name_note = slen;
	slen += (size_t)sprintf(strtab + slen, "%s", secname) + 1;
	size_t strtab_off = te_put(e, strtab, slen);
	Elf64_Dyn dyn[3] = { 0 };
	size_t ndyn = 0, dyn_off = 0;
	if (s->loader) {
		if (s->dyn_needed)
			dyn[ndyn++] = (Elf64_Dyn){ .d_tag = DT_NEEDED, .d_un.d_val = 0 };
		if (s->dyn_flags_1)
			dyn[ndyn++] = (Elf64_Dyn){ .d_tag = DT_FLAGS_1, .d_un.d_val = s->dyn_flags_1 };
		dyn[ndyn++] = (Elf64_Dyn){ .d_tag = DT_NULL };
		dyn_off = te_put(e, dyn, sizeof dyn[0] * ndyn);
	}

	Elf64_Phdr ph[4] = { 0 };
	int nph = 0;
	ph[nph].p_type = PT_LOAD;
	ph[nph].p_offset = 0;
	ph[nph].p_flags = s->loader ? PF_R | PF_X : PF_R;
	ph[nph].p_align = 0x1000;
	nph++;
	if (s->loader) {
		ph[nph].p_type = PT_DYNAMIC;
		ph[nph].p_offset = ph[nph].p_vaddr = dyn_off;
		ph[nph].p_filesz = ph[nph].p_memsz = sizeof dyn[0] * ndyn;
		ph[nph].p_align = 8;
		nph++;
		eh.e_entry = dyn_off;	/* inside the one PT_LOAD */
	}
	if (s->interp) {
		ph[nph].p_type = PT_INTERP;
		ph[nph].p_offset = ph[nph].p_vaddr = e->interp_off;
		ph[nph].p_filesz = ph[nph].p_memsz = ilen;
		nph++;
	}
	if (s->note_segment && s->note_owner) {
		ph[nph].p_type = PT_NOTE;
		ph[nph].p_offset = ph[nph].p_vaddr = e->note_off;
		ph[nph].p_filesz = ph[nph].p_memsz = nlen;
		ph[nph].p_align = 4;
		nph++;
	}
	e->phoff = te_put(e, ph, sizeof(Elf64_Phdr) * (size_t)nph);

	Elf64_Shdr sh[3] = { 0 };
	int nsh = 1;
	sh[nsh].sh_name = (uint32_t)name_shstrtab;
	sh[nsh].sh_type = SHT_STRTAB;
	sh[nsh].sh_offset = strtab_off;
	sh[nsh].sh_size = slen;
	nsh++;
	if (s->note_owner) {
		sh[nsh].sh_name = (uint32_t)name_note;
		sh[nsh].sh_type = SHT_NOTE;
		sh[nsh].sh_offset = e->note_off;
		sh[nsh].sh_size = nlen;
		sh[nsh].sh_addralign = s->note_align ? s->note_align : 4;
		nsh++;
	}
	e->shoff = te_put(e, sh, sizeof(Elf64_Shdr) * (size_t)nsh);

	/* the one PT_LOAD maps the whole file, like a small real program */
	Elf64_Phdr *load = (Elf64_Phdr *)(e->buf + e->phoff);
	load->p_filesz = load->p_memsz = e->len;
	eh.e_phoff = e->phoff;
	eh.e_phnum = (uint16_t)nph;
	eh.e_shoff = e->shoff;
	eh.e_shnum = (uint16_t)nsh;
	eh.e_shstrndx = 1;
	memcpy(e->buf, &eh, sizeof eh);
}

/* Write the ELF to a scratch file and return an open fd on it. */
static inline int test_elf_fd(const struct test_elf *e, size_t len)
{
	char path[] = "/tmp/cudaload-elf-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	unlink(path);
	cr_assert(write(fd, e->buf, len) == (ssize_t)len);
	return fd;
}

/* A libcuda file in root's dir, and libcuda.so.1 a link to it. */
static inline void put_lib(const char *root, const char *dir, const char *file,
			   const struct test_elf_spec *spec)
{
	struct test_elf e;
	char rel[512], path[4200], link[4200];
	test_elf_build(&e, spec);
	snprintf(rel, sizeof rel, "%s/%s", dir, file);
	put_file(root, rel, e.buf, e.len);
	snprintf(link, sizeof link, "%s%s/libcuda.so.1", root, dir);
	snprintf(path, sizeof path, "%s", file);
	if (strcmp(file, "libcuda.so.1") != 0)
		cr_assert_eq(symlink(path, link), 0);
}

#endif
