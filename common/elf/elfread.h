/* SPDX-License-Identifier: MIT */
/*
 * elfread: a bounds-checked reader of the few ELF facts cudaload needs.
 *
 * Reads through pread on an fd, only the bytes it needs (libcuda is tens of
 * MB): the header, the program headers, PT_INTERP with the cudaload record,
 * one note section, and the highest GLIBC_2.x version a loader defines.
 * Both classes and both byte orders are understood.  Every offset and count
 * taken from the file is checked against the file size before use; a bad
 * file yields -1 and a one-line reason in `why`, never a crash.
 */
#ifndef CUDALOAD_ELFREAD_H
#define CUDALOAD_ELFREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../base/sys.h"

struct elf_file {
	int fd;
	uint64_t size;		/* file size, the bound for every offset */
	mode_t mode;		/* a loader must be executable */
	int cls;		/* ELFCLASS32 / ELFCLASS64 */
	bool big_endian;
	int type;		/* ET_EXEC, ET_DYN, ... */
	int machine;		/* EM_* */
	uint64_t phoff, shoff;
	unsigned phnum, phentsize, shnum, shentsize, shstrndx;
	uint64_t entry;
	/* The file's first bytes, read once: header, program headers, and on
	 * most files the dynamic strings, version definitions and notes too.
	 * A buffer of the caller's, or one of ELF_HEAD bytes from the heap. */
	unsigned char *head;
	size_t head_len, head_cap;
	bool head_owned;
};
#define ELF_HEAD 8192

/* The program headers we care about, normalized. */
struct elf_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, filesz, memsz, align;
};

#define ELF_MAX_PHDRS 256

struct elf_program {
	struct elf_phdr ph[ELF_MAX_PHDRS];
	unsigned n;
	bool has_interp;
	bool has_dynamic;
	char interp[CL_PATH_MAX];	/* up to the first NUL */
	char recorded[CL_PATH_MAX];	/* original interpreter from the record, or "" */
};

/* Read and check the ELF header of an open file, holding its first
 * ELF_HEAD bytes on the heap.  Give them back with elfread_release (also after
 * a failure). */
int elfread_open_fd(struct elf_file *ef, int fd, char *why, size_t whycap);

/* The same with the caller's buffer for the head (a small one on the stack
 * touches less memory; what lies further is read when asked for). */
int elfread_open_fd_head(struct elf_file *ef, int fd, void *head, size_t head_cap,
		     char *why, size_t whycap);

/* Free what elfread_open_fd allocated (the fd stays open). */
void elfread_release(struct elf_file *ef);

/* The program headers alone, into phs (at most cap of them; more is an
 * error).  *n is their count. */
int elfread_read_phdrs(const struct elf_file *ef, struct elf_phdr *phs, unsigned cap,
		   unsigned *n, char *why, size_t whycap);

/* Program headers, PT_INTERP and the record after its first NUL. */
int elfread_read_program(const struct elf_file *ef, struct elf_program *out,
		     char *why, size_t whycap);

/* Descriptor of the first note owned by `owner` in the section named
 * `section`.  Returns its length (copied up to cap-1, NUL-terminated),
 * 0 when there is no such note, -1 on a malformed file.  A descriptor
 * whose size runs at most 3 bytes past its section, the bytes there being
 * text and then NULs (NVIDIA's Orin CUDA 13.2 libcuda), is cut to the
 * section, as NVIDIA's container toolkit reads it: *past (when not NULL)
 * is then by how many bytes, else 0. */
long elfread_find_note(const struct elf_file *ef, const char *section,
		   const char *owner, char *desc, size_t cap, unsigned *past,
		   char *why, size_t whycap);

/* Highest N for which the file defines symbol version GLIBC_2.N through
 * DT_VERDEF; 0 when it defines none, -1 on a malformed file. */
int elfread_glibc_minor(const struct elf_file *ef, const struct elf_phdr *phs, unsigned n);

/* The DT_RPATH and DT_RUNPATH strings ("" when absent), each cut to cap-1
 * bytes.  0, or -1 on a malformed file. */
int elfread_search_paths(const struct elf_file *ef, const struct elf_phdr *phs, unsigned n,
		     char *rpath, char *runpath, size_t cap);
/* PT_INTERP bytes (len of them, not necessarily NUL-terminated), read in
 * place: *interp the string up to the first NUL, *recorded the original
 * interpreter cudaload-patch recorded after it, or "".  -1 if there is no
 * NUL. */
int elfread_interp_parts(const char *bytes, size_t len, const char **interp, const char **recorded);
/* Interpret PT_INTERP bytes (not necessarily NUL-terminated): copy the
 * interpreter string and the recorded original, if any.  -1 if the segment
 * has no NUL (the kernel refuses such a file). */
int elfread_split_interp(const char *bytes, size_t len, char *interp, size_t icap,
		     char *recorded, size_t rcap);

/* What the dynamic section says of a file's role: *needs whether it has a
 * DT_NEEDED entry, *flags_1 the DT_FLAGS_1 value (0 without one).  1 when
 * read, 0 without a PT_DYNAMIC, -1 when it lies outside the file or is too
 * big. */
int elfread_dynamic_role(const struct elf_file *ef, const struct elf_phdr *phs, unsigned n,
			 bool *needs, uint64_t *flags_1);

/* Does a PT_NOTE segment hold a note owned by owner with this type?  (Used
 * to recognize cudaload itself; see identity.h.) */
bool elfread_has_segment_note(const struct elf_file *ef, const struct elf_phdr *phs, unsigned n,
			  const char *owner, uint32_t type);

/* The DT_NEEDED names in order, each NUL-terminated, into buf (cap bytes;
 * an empty name ends the list), and how many.  0, also without a dynamic
 * section; -1 when it or its strings cannot be read or do not fit. */
int elfread_needed(const struct elf_file *ef, const struct elf_phdr *phs, unsigned n,
	       char *buf, size_t cap, unsigned *count);

/* Name of an e_machine value ("x86_64", "aarch64", ...) or NULL. */
const char *elfread_machine_name(int machine);

/* The same for a message: the name, or "machine N" written into buf (the
 * caller's, so two in one message stay two). */
const char *elfread_machine_label(int machine, char *buf, size_t cap);

/* The reverse: EM_* of "x86_64", "aarch64", ...; -1 if unknown. */
int elfread_machine_from_name(const char *name);

#endif
