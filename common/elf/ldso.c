/* SPDX-License-Identifier: MIT */
#include "ldso.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfread.h"
#include "../base/identity.h"

const char *ldso_standard(int machine, int cls)
{
	switch (machine) {
	case EM_X86_64: return cls == ELFCLASS64 ? "/lib64/ld-linux-x86-64.so.2" : "/libx32/ld-linux-x32.so.2";
	case EM_AARCH64: return "/lib/ld-linux-aarch64.so.1";
	case EM_386: return "/lib/ld-linux.so.2";
	case EM_ARM: return "/lib/ld-linux-armhf.so.3";
	case EM_PPC64: return "/lib64/ld64.so.2";
	case EM_RISCV: return "/lib/ld-linux-riscv64-lp64d.so.1";
	default: return NULL;
	}
}

int ldso_minor_from_name(const char *path)
{
	int minor = 0;
	for (const char *p = path; (p = strstr(p, "2.")); p++) {
		/* "ld-2.31.so" or "glibc-2.40" */
		bool ld = p >= path + 3 && strncmp(p - 3, "ld-", 3) == 0;
		bool glibc = p >= path + 6 && strncmp(p - 6, "glibc-", 6) == 0;
		char *end;
		long m = (ld || glibc) && p[2] >= '0' && p[2] <= '9' ? strtol(p + 2, &end, 10) : 0;
		if (m > minor && m < 1000 && (*end == '.' || *end == '-' || *end == '/'))
			minor = (int)m;
	}
	return minor;
}

void ldso_release(struct ldso_info *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	l->n_ph = 0;
}

/* Mapping a loader needs its ELF header and program headers, and telling
 * cudaload from it its identity note: all in the first KiB.  Reading only
 * that keeps the start-up's memory small; the glibc version (exec mode)
 * lies further and gets the usual head. */
#define LDSO_MAP_HEAD 1024

static int inspect(struct ldso_info *l, const struct elf_file *ef, char *why, size_t whycap);

int ldso_inspect(struct ldso_info *l, char *why, size_t whycap)
{
	struct elf_file ef;
	unsigned char map_head[LDSO_MAP_HEAD];

	l->fd = -1;
	l->n_ph = 0;
	int fd = open_ro(l->path, 0);
	if (fd < 0) {
		int e = -fd;
		snprintf(why, whycap, "%s", strerror(e));
		return e == ENOENT || e == ENOTDIR || e == ELOOP || e == ENAMETOOLONG ? -ENOENT : -EACCES;
	}
	bool head_only = (l->keep && !l->command) || l->glibc_floor >= LDSO_ARGV0_GLIBC_MINOR;	/* inspect reads no more */
	int r = head_only ? elfread_open_fd_head(&ef, fd, map_head, sizeof map_head, why, whycap)
			  : elfread_open_fd(&ef, fd, why, whycap);
	r = r < 0 ? -ENOEXEC : inspect(l, &ef, why, whycap);
	elfread_release(&ef);
	if (r == 0 && l->keep) {
		l->fd = fd;
		return 0;
	}
	l->n_ph = 0;
	close(fd);
	return r;
}

/* Is this file shaped like a dynamic loader (ldso.h says which shape and
 * why)?  If not, false with the reason in why. */
static bool loader_shape(const struct elf_file *ef, const struct elf_phdr *ph, unsigned n,
			 bool named, char *why, size_t whycap)
{
	const char *no = NULL;
	bool dynamic = false, entry = false;
	for (unsigned i = 0; i < n && !no; i++) {
		if (ph[i].type == PT_INTERP)
			no = "names a loader of its own (PT_INTERP): a program or a library, not a dynamic loader";
		dynamic |= ph[i].type == PT_DYNAMIC;
		entry |= ef->entry != 0 && ph[i].type == PT_LOAD && (ph[i].flags & PF_X) && ef->entry >= ph[i].vaddr &&
			 ef->entry - ph[i].vaddr < ph[i].filesz;
	}
	bool needs = false;
	uint64_t flags_1 = 0;
	if (no)
		;
	else if (ef->type != ET_DYN)
		no = "not a shared object (ET_DYN): not a dynamic loader";
	else if (!dynamic)
		no = "no dynamic section: not a dynamic loader";
	else if (!entry)
		no = "no entry point in its code: a library, not a dynamic loader";
	else if (!named)
		;	/* a program's own PT_INTERP, the record of one, the standard path */
	else if (elfread_dynamic_role(ef, ph, n, &needs, &flags_1) < 0)
		no = "unreadable dynamic section";
	else if (needs)
		no = "needs other libraries (DT_NEEDED): a library, not a dynamic loader";
	else if (flags_1 & DF_1_PIE)
		no = "a position-independent program (DF_1_PIE), not a dynamic loader";
	if (no)
		snprintf(why, whycap, "%s", no);
	return !no;
}

/* Does path hold "ld-musl-" (musl's loader, /lib/ld-musl-ARCH.so.1)?  With
 * strchr, not strstr, whose two-way search sets up tables each start. */
static bool names_musl(const char *path)
{
	for (const char *p = path; (p = strchr(p, 'l')); p++)
		if (strncmp(p, "ld-musl-", 8) == 0)
			return true;
	return false;
}

bool ldso_settle_known(struct ldso_info *l, char file_kind, int file_minor)
{
	if (names_musl(l->path)) {
		l->kind = LDSO_MUSL;
	} else if ((!l->keep || l->command) && l->glibc_floor >= LDSO_ARGV0_GLIBC_MINOR) {
		l->kind = LDSO_GLIBC;	/* the program's glibc, whose ld.so it is */
		l->glibc_minor = l->glibc_floor;
	} else if (file_kind == 'g') {
		l->kind = LDSO_GLIBC;
		l->glibc_minor = file_minor;
	} else if (file_kind == 'm') {
		l->kind = LDSO_MUSL;
	} else if (file_kind != 'u' && (!l->keep || l->command)) {
		return false;	/* read the file (one mapped for chain mode needs no --argv0) */
	}
	l->argv0 = l->kind == LDSO_MUSL || (l->kind == LDSO_GLIBC && l->glibc_minor >= LDSO_ARGV0_GLIBC_MINOR);
	return true;
}

/* What the header and program headers say; 0 or -errno. */
static int inspect(struct ldso_info *l, const struct elf_file *ef, char *why, size_t whycap)
{
	if (!(ef->mode & 0111)) {
		snprintf(why, whycap, "not executable");
		return -EACCES;
	}
	if (elfread_read_phdrs(ef, l->ph, LDSO_MAX_PHDRS, &l->n_ph, why, whycap) < 0)
		return -ENOEXEC;
	if (elfread_has_segment_note(ef, l->ph, l->n_ph, IDENTITY_NOTE_OWNER, IDENTITY_NOTE_TYPE)) {
		snprintf(why, whycap, "is cudaload itself, not a dynamic loader");
		return -ELOOP;
	}
	if (!loader_shape(ef, l->ph, l->n_ph, l->named, why, whycap))
		return -ENOEXEC;
	l->machine = ef->machine;
	l->cls = ef->cls;
	l->file_kind = '-';
	if (!ldso_settle_known(l, '-', 0)) {
		int minor = elfread_glibc_minor(ef, l->ph, l->n_ph);
		int by_name = ldso_minor_from_name(l->path);
		/* Old glibc versions its loader's file name (ld-2.31.so); the
		 * symbol versions alone only give a lower bound. */
		char *target = minor < LDSO_ARGV0_GLIBC_MINOR && by_name == 0 ? malloc(CL_PATH_MAX) : NULL;
		ssize_t n = target ? readlink(l->path, target, CL_PATH_MAX - 1) : -1;
		bool musl = false;
		if (n > 0) {
			target[n] = '\0';
			by_name = ldso_minor_from_name(target);
			musl = strstr(target, "musl") != NULL;
		}
		free(target);
		l->file_kind = musl ? 'm' : minor > 0 || by_name > 0 ? 'g' : 'u';
		ldso_settle_known(l, l->file_kind, by_name > minor ? by_name : minor);
	}
	l->type = ef->type;
	l->entry = ef->entry;
	l->phoff = ef->phoff;
	return 0;
}
