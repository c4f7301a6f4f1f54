/* SPDX-License-Identifier: MIT */
/*
 * chain: hand over without a second execve (docs/design.md §6).
 *
 * The real ld.so is mapped into this process (the whole span reserved, each
 * PT_LOAD mapped, the bss zeroed) and entered on the original start-up
 * vector with AT_BASE set to ld.so's base and AT_PHDR/AT_PHNUM/AT_PHENT on
 * the program; with a search list, on a copy of it that also has
 * LD_LIBRARY_PATH.  ld.so parses that list at start-up and keeps it for
 * every later dlopen; AT_ENTRY points at a trampoline that puts the user's
 * environment back (the LD_LIBRARY_PATH slot restored, or the slot we added
 * turned into the end of the list) before the program's own entry runs, so
 * the program and its children see the environment they were given.
 * /proc/self/exe and argv[0] stay the program's.  Before ld.so runs, our
 * heap is unmapped, and under a limit of the address space (RLIMIT_AS) our
 * image too, all but the page of the hand-over code and the page of its
 * data.
 *
 * Per-architecture code (the jump and the trampoline) is in arch/<arch>/.
 */
#ifndef CUDALOAD_CHAIN_H
#define CUDALOAD_CHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct chain_ldso {
	uintptr_t base;		/* load bias */
	uintptr_t entry;
	uintptr_t phdr;		/* its program headers in memory, 0: not in a segment */
	size_t phnum;
};

struct ldso_info;

/* Map the loader ldso_inspect kept open (keep).  0, or -1 with a reason (not
 * ET_DYN, another machine, mapping failed); nothing is left mapped on failure. */
int chain_map(const struct ldso_info *l, int machine, struct chain_ldso *out,
	      char *why, size_t whycap);

/* Enter ld.so.  argv is the process's own argv (on the original stack),
 * auxv the process auxv; llp_entry is "LD_LIBRARY_PATH=..." or NULL to
 * leave the environment as it is (it is copied onto the stack, above the
 * vector).  With the variable there more than once,
 * llp_entry takes the place of the one ld.so reads: the first for musl's
 * (first set), the last for glibc's.  Returns only when out of memory (the
 * caller then uses exec mode). */
void chain_enter(const struct chain_ldso *ldso, char **argv, size_t *auxv,
		 const void *prog_phdr, size_t prog_phnum, size_t prog_phent,
		 char *llp_entry, bool first);

/* Enter ld.so as though the kernel had run it as a command, without an
 * exec: its arguments are lead (copied onto the stack; the last names the
 * program for ld.so to open) then the process's own argv[1..]; the
 * environment as it is; the auxiliary vector says ld.so is the program
 * (AT_PHDR, AT_PHNUM, AT_PHENT and AT_ENTRY its own, AT_BASE 0), the rest
 * as the kernel gave it (AT_SECURE included).  The program as the kernel
 * mapped it (prog_phdr) is unmapped first, since ld.so maps it again.  No
 * trampoline: the list is an argument, the environment untouched.
 * Returns only when out of memory or ld.so's program headers are not in
 * memory (chain_ldso.phdr 0). */
void chain_enter_command(const struct chain_ldso *ldso, char **argv, size_t *auxv,
			 const void *prog_phdr, size_t prog_phnum, size_t prog_phent,
			 const char *const *lead, size_t n_lead);

#endif
