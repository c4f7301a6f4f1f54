/* SPDX-License-Identifier: MIT */
#include "chain.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../common/elfread.h"
#include "../common/ldso.h"
#include "../common/sys.h"

/* arch/<arch>/chain.S */
__attribute__((noreturn))
void chain_jump(const size_t *vector, size_t words, void *sp, uintptr_t entry);
void chain_entry_trampoline(void);

/* Read by the trampoline and chain_restore_env. */
__attribute__((visibility("hidden"))) uintptr_t chain_program_entry;
static char **env_slot;
static char *env_original;

/* Called by the trampoline just before the program's own entry, when ld.so
 * has set up its own thread pointer: it must not touch libc. */
__attribute__((visibility("hidden"))) void chain_restore_env(void);
void chain_restore_env(void)
{
	*env_slot = env_original;	/* NULL: the slot we added ends the list again */
}

static int prot_of(uint32_t flags)
{
	return (flags & PF_R ? PROT_READ : 0) | (flags & PF_W ? PROT_WRITE : 0) |
	       (flags & PF_X ? PROT_EXEC : 0);
}

/* The reservation maps the file over the whole span with the first
 * segment's protection, each page at the same distance from the first
 * segment in the file as in memory.  A later segment with that protection,
 * no bss, and the same distance (ld.so's read-only data) is already in
 * place: mapping it again would only cost a system call. */
static bool in_reservation(const struct elf_phdr *ph, const struct elf_phdr *first, size_t pg)
{
	uint64_t m = ~(uint64_t)(pg - 1);
	return first && prot_of(ph->flags) == prot_of(first->flags) && ph->memsz == ph->filesz &&
	       ph->vaddr >= first->vaddr &&
	       (ph->offset & m) - (first->offset & m) == (ph->vaddr & m) - (first->vaddr & m);
}

/* Map each PT_LOAD at bias.  mapped: one that is already in place (the
 * reservation), or NULL.  Pages between segments are left inaccessible. */
static int map_segments(int fd, const struct elf_phdr *phs, unsigned n, uintptr_t bias,
			size_t pg, const struct elf_phdr *mapped, char *why, size_t cap)
{
	uintptr_t prev_end = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct elf_phdr *ph = &phs[i];
		if (ph->type != PT_LOAD || ph->memsz == 0)
			continue;
		int prot = prot_of(ph->flags);
		uintptr_t start = (bias + ph->vaddr) & ~(pg - 1);
		uintptr_t file_end = bias + ph->vaddr + ph->filesz;
		uintptr_t mem_end = bias + ph->vaddr + ph->memsz;
		uintptr_t file_page_end = (file_end + pg - 1) & ~(pg - 1);
		bool bss = ph->memsz > ph->filesz;
		if (prev_end && start > prev_end)
			mprotect((void *)prev_end, start - prev_end, PROT_NONE);
		prev_end = (mem_end + pg - 1) & ~(pg - 1);
		if (ph == mapped || in_reservation(ph, mapped, pg)) {
			/* already mapped with its protection, without a bss */
		} else if (ph->filesz) {
			void *p = mmap((void *)start, file_page_end - start, prot | (bss ? PROT_WRITE : 0),
				       MAP_PRIVATE | MAP_FIXED, fd, (off_t)(ph->offset & ~(uint64_t)(pg - 1)));
			if (p == MAP_FAILED) {
				snprintf(why, cap, "cannot map segment %u: %s", i, strerror(errno));
				return -1;
			}
			/* the rest of the last file page belongs to the bss */
			if (bss && file_page_end > file_end)
				memset((void *)file_end, 0, file_page_end - file_end);
			if (bss && !(prot & PROT_WRITE))
				mprotect((void *)start, file_page_end - start, prot);
		} else {
			file_page_end = start;
		}
		if (mem_end > file_page_end &&
		    mmap((void *)file_page_end, ((mem_end + pg - 1) & ~(pg - 1)) - file_page_end, prot,
			 MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0) == MAP_FAILED) {
			snprintf(why, cap, "cannot map the bss of segment %u: %s", i, strerror(errno));
			return -1;
		}
	}
	return 0;
}

int chain_map(const struct ldso_info *l, int machine, struct chain_ldso *out,
	      char *why, size_t cap)
{
	size_t pg = getauxval(AT_PAGESZ) ? getauxval(AT_PAGESZ) : 4096;

	if (l->type != ET_DYN || l->machine != machine) {
		snprintf(why, cap, l->type != ET_DYN ? "not ET_DYN" : "for another machine");
		return -1;
	}
	uint64_t lo = UINT64_MAX, hi = 0, align = pg;
	for (unsigned i = 0; i < l->n_ph; i++) {
		const struct elf_phdr *ph = &l->ph[i];
		if (ph->type != PT_LOAD)
			continue;
		if (ph->vaddr < lo)
			lo = ph->vaddr;
		if (ph->vaddr + ph->memsz > hi)
			hi = ph->vaddr + ph->memsz;
		if (ph->align > align && (ph->align & (ph->align - 1)) == 0)
			align = ph->align;
		if (ph->filesz > ph->memsz || ph->offset % pg != ph->vaddr % pg) {
			snprintf(why, cap, "segment %u is not mappable", i);
			return -1;
		}
	}
	if (lo >= hi || hi - lo > (1ull << 32)) {
		snprintf(why, cap, "no loadable segments");
		return -1;
	}
	lo &= ~(uint64_t)(pg - 1);
	hi = (hi + pg - 1) & ~(uint64_t)(pg - 1);

	/* The first segment mapped over the whole span reserves it in one
	 * call; the others are mapped over it.  When the segments ask for more
	 * than page alignment, an inaccessible reservation with slack is
	 * aligned first, the slack given back. */
	size_t span = (size_t)(hi - lo);
	const struct elf_phdr *first = NULL;
	for (unsigned i = 0; i < l->n_ph && !first; i++)
		if (l->ph[i].type == PT_LOAD && l->ph[i].memsz)
			first = &l->ph[i];
	uintptr_t start;
	if (align <= pg && first && first->filesz && first->memsz == first->filesz &&
	    (first->vaddr & ~(uint64_t)(pg - 1)) == lo) {
		char *res = mmap(NULL, span, prot_of(first->flags), MAP_PRIVATE, l->fd,
				 (off_t)(first->offset & ~(uint64_t)(pg - 1)));
		if (res == MAP_FAILED) {
			snprintf(why, cap, "cannot map %zu bytes: %s", span, strerror(errno));
			return -1;
		}
		start = (uintptr_t)res;
	} else {
		size_t slack = align > pg ? align : 0;
		char *res = mmap(NULL, span + slack, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (res == MAP_FAILED) {
			snprintf(why, cap, "cannot reserve %zu bytes: %s", span, strerror(errno));
			return -1;
		}
		start = ((uintptr_t)res + align - 1) & ~(uintptr_t)(align - 1);
		if (start > (uintptr_t)res)
			munmap(res, start - (uintptr_t)res);
		if ((uintptr_t)res + span + slack > start + span)
			munmap((void *)(start + span), (uintptr_t)res + span + slack - start - span);
		first = NULL;
	}
	uintptr_t bias = start - (uintptr_t)lo;
	if (map_segments(l->fd, l->ph, l->n_ph, bias, pg, first, why, cap) < 0) {
		munmap((void *)start, span);
		return -1;
	}
	out->base = bias;
	out->entry = bias + l->entry;
	return 0;
}

void chain_enter(const struct chain_ldso *ldso, char **argv, size_t *auxv,
		 const void *prog_phdr, size_t prog_phnum, size_t prog_phent,
		 char *llp_entry, bool first)
{
	size_t *sp = (size_t *)argv - 1;	/* argc, as the kernel laid it out */
	size_t argc = *sp;
	char **envp = argv + argc + 1;
	size_t envc = 0, auxw = 0;
	while (envp[envc])
		envc++;
	/* The auxiliary vector, where it lies, now tells ld.so about itself and
	 * the program: nothing of cudaload reads it again. */
	for (; auxv[auxw] != AT_NULL; auxw += 2) {
		switch (auxv[auxw]) {
		case AT_BASE: auxv[auxw + 1] = ldso->base; break;
		case AT_PHDR: auxv[auxw + 1] = (size_t)prog_phdr; break;
		case AT_PHNUM: auxv[auxw + 1] = prog_phnum; break;
		case AT_PHENT: auxv[auxw + 1] = prog_phent; break;
		}
	}
	auxw += 2;

	/* No search list: the kernel's vector, as it is, is ld.so's. */
	if (!llp_entry)
		chain_jump(sp, 0, sp, ldso->entry);

	/* Is LD_LIBRARY_PATH there already?  Then its slot is swapped, else one
	 * is added at the end of the list: a new vector, below the old one. */
	size_t slot = envc;
	for (size_t i = 0; i < envc && !(first && slot < envc); i++)
		if (strncmp(envp[i], "LD_LIBRARY_PATH=", 16) == 0)
			slot = i;	/* the one this ld.so reads (chain.h) */
	size_t added = slot == envc ? 1 : 0;

	size_t words = 1 + argc + 1 + envc + added + 1 + auxw;
	size_t *v = malloc(words * sizeof *v);
	if (!v)
		return;
	size_t k = 0;
	v[k++] = argc;
	for (size_t i = 0; i < argc; i++)
		v[k++] = (size_t)argv[i];
	v[k++] = 0;
	size_t env_at = k;
	for (size_t i = 0; i < envc; i++)
		v[k++] = (size_t)envp[i];
	if (added)
		v[k++] = 0;
	v[k++] = 0;
	for (size_t i = 0; i < auxw; i += 2, k += 2) {
		v[k] = auxv[i];
		v[k + 1] = auxv[i + 1];
		if (auxv[i] == AT_ENTRY) {
			chain_program_entry = auxv[i + 1];
			v[k + 1] = (size_t)chain_entry_trampoline;
		}
	}

	size_t *new_sp = (size_t *)(((uintptr_t)sp - words * sizeof *v - 256) & ~(uintptr_t)15);
	env_slot = (char **)(new_sp + env_at + slot);
	env_original = added ? NULL : envp[slot];
	v[env_at + slot] = (size_t)llp_entry;
	chain_jump(v, words, new_sp, ldso->entry);
}
