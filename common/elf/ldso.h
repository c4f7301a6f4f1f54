/* SPDX-License-Identifier: MIT */
/*
 * ldso: the real dynamic loader cudaload hands over to.
 *
 * Where it comes from (in order): CUDALOAD_LDSO, config ldso.<machine>, the
 * original interpreter recorded by cudaload-patch, the program's own
 * PT_INTERP when that is not cudaload, the standard path for the program's
 * machine.  What it supports is read from the file, not by running it:
 * glibc >= 2.33 and musl take --argv0; glibc <= 2.32 would take an unknown
 * option for the program name (docs/design.md §3), so it gets none.
 *
 * What is taken for a dynamic loader (docs/design.md §3), read from the
 * header, the program headers and the dynamic tags, never by running it:
 * ET_DYN (it loads anywhere), no PT_INTERP (the kernel starts it; libc.so.6
 * and PIE programs name one), a PT_DYNAMIC (it relocates itself), an entry
 * point inside an executable PT_LOAD (most libraries have none), no
 * DT_NEEDED (nothing could load what a loader needs) and no DF_1_PIE (a
 * static-pie program); the dynamic tags only for a loader a person named
 * (ldso_info.named).  glibc's ld.so and musl's libc.so (ld-musl-*) pass;
 * a typo naming libc.so.6, /bin/bash or libm.so.6 does not.
 */
#ifndef CUDALOAD_LDSO_H
#define CUDALOAD_LDSO_H

#include <stdbool.h>
#include <sys/stat.h>

#include "elfread.h"
#include "../base/sys.h"

enum ldso_kind { LDSO_UNKNOWN, LDSO_GLIBC, LDSO_MUSL };

/* Real loaders have about ten program headers; more is refused. */
#define LDSO_MAX_PHDRS 16

/* The first glibc 2.x whose ld.so takes --argv0. */
#define LDSO_ARGV0_GLIBC_MINOR 33

struct ldso_info {
	const char *path;	/* not copied: the caller keeps the string */
	const char *from;
	enum ldso_kind kind;
	int glibc_minor;	/* 0 when unknown */
	bool argv0;		/* takes --argv0 */
	int machine, cls;
	/* With keep set before ldso_inspect: the open file and what a caller
	 * needs to map it next (chain mode); see ldso_release. */
	bool keep;
	/* Set with keep before ldso_inspect: the loader mapped here runs as a
	 * command all the same (a set-id program's start, loader/start/handover.c), so
	 * whether it takes --argv0 is read as for exec mode. */
	bool command;
	/* Set before ldso_inspect for a loader a person named (CUDALOAD_LDSO,
	 * ldso.<machine>): its dynamic section is read too, which a loader
	 * named by a program (PT_INTERP, the record) or the system's standard
	 * path needs not be, at a system call every start. */
	bool named;
	/* Set before ldso_inspect: the glibc the program asks for at least
	 * (reach_glibc_floor).  From LDSO_ARGV0_GLIBC_MINOR on, --argv0 is
	 * known without reading the loader's version (a read, and a heap
	 * page, each exec start). */
	int glibc_floor;
	/* What the file itself said, read for the glibc version: 'g' glibc
	 * (glibc_minor is its version), 'm' musl, 'u' neither, '-' not read
	 * (its name or the program's glibc said enough, or keep). */
	char file_kind;
	int fd;
	int type;
	uint64_t entry;
	uint64_t phoff;		/* where its program headers lie in the file */
	struct elf_phdr ph[LDSO_MAX_PHDRS];	/* its program headers, n_ph of them */
	unsigned n_ph;
};

/* The conventional loader path for a machine and class, or NULL. */
const char *ldso_standard(int machine, int cls);

/* Open and read l->path.  0 on success; -ENOENT / -EACCES / -ENOEXEC with a
 * reason in why; -ELOOP when the file is a cudaload (identity.h);
 * -ENOEXEC also for an ELF file that is not shaped like a loader. */
int ldso_inspect(struct ldso_info *l, char *why, size_t whycap);

/* Settle l->kind, glibc_minor and argv0 as ldso_inspect does without
 * reading the file (its name, keep, glibc_floor), else from what the file
 * said when it was read (file_kind, file_minor: as ldso_info's file_kind
 * and glibc_minor; '-' for nothing): false when the file must be read.
 * For a file known to be unchanged since it was read (prepared.h). */
bool ldso_settle_known(struct ldso_info *l, char file_kind, int file_minor);

/* Close what keep held. */
void ldso_release(struct ldso_info *l);

/* glibc minor version from a file name such as "ld-2.31.so" or a Nix store
 * path ".../glibc-2.40-66/lib/ld-linux-x86-64.so.2"; 0 if none. */
int ldso_minor_from_name(const char *path);

#endif
