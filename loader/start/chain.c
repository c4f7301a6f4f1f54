/* SPDX-License-Identifier: MIT */
#include "chain.h"

/* The most of the start-up vector built on the stack (chain_enter). */
#define CHAIN_STACK_VECTOR (16 * 1024)

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../../common/elf/elfread.h"
#include "../../common/elf/ldso.h"
#include "../../common/base/sys.h"
#include "../libc/malloc.h"

/* arch/<arch>/chain.S: one block of code, on one page, the page that stays. */
__attribute__((noreturn))
void chain_jump(const size_t *vector, size_t words, void *sp, uintptr_t entry);
void chain_entry_trampoline(void);

extern const char __ehdr_start[];	/* from the linker: our own image */

/* All chain.S reads once the rest of the image is gone, at offsets chain.S
 * spells out.  It lies in our writable segment, which stays. */
#define CHAIN_UNMAP_MAX 4
struct chain_handover {
	uintptr_t program_entry;	/* the program's AT_ENTRY */
	char **env_slot;		/* the slot to put back, NULL: none */
	char *env_original;		/* what it held; NULL: the slot we added */
	uintptr_t unmap[CHAIN_UNMAP_MAX][2];	/* start, length (0: none) */
};
_Static_assert(offsetof(struct chain_handover, program_entry) == 0 &&
	       offsetof(struct chain_handover, env_slot) == 8 &&
	       offsetof(struct chain_handover, env_original) == 16 &&
	       offsetof(struct chain_handover, unmap) == 24 && CHAIN_UNMAP_MAX == 4,
	       "chain.S reads struct chain_handover at these offsets");
__attribute__((visibility("hidden"))) struct chain_handover chain_handover;

/* Called by chain_jump once the start-up vector is in place: nothing on the
 * heap is read again (the search list is on the stack, above the vector). */
__attribute__((visibility("hidden"))) void chain_release(void);
void chain_release(void)
{
	heap_release();
}

/* What of our image chain_jump unmaps before it enters ld.so under a limit
 * of the address space (RLIMIT_AS): the segments
 * that are not writable (code, read-only data), all but the page of the
 * hand-over's code, which cannot unmap the page it runs on and where the
 * trampoline runs later, and what lies before it in its segment: the ELF
 * header and the notes, for the hand-over's code comes right after them
 * (loader/hot.ld).  So with one segment of text what goes is one
 * range, one system call.  The writable segment stays: it holds
 * chain_handover.  ld.so and the program then have the address space they
 * have without cudaload, less those pages (RLIMIT_AS). */
static void arrange_image_unmap(void)
{
	/* Where the address space has no limit the image stays: giving it
	 * back costs a munmap and its TLB flush at every start (6 of the
	 * bench's 350 microseconds on its Jetson), and matters only near RLIMIT_AS. */
	struct rlimit as;
	if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur == RLIM_INFINITY)
		return;
	uintptr_t pg = getauxval(AT_PAGESZ) ? getauxval(AT_PAGESZ) : 4096;
	uintptr_t code = (uintptr_t)chain_jump & ~(pg - 1);
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)__ehdr_start;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(__ehdr_start + eh->e_phoff);
	uintptr_t base = 0;	/* the load bias: the segment at file offset 0 holds the ELF header */
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0)
			base = (uintptr_t)__ehdr_start - ph[i].p_vaddr;
	if (!base)
		return;	/* unmap nothing */
	unsigned n = 0;
	for (unsigned i = 0; i < eh->e_phnum && n < CHAIN_UNMAP_MAX; i++) {
		if (ph[i].p_type != PT_LOAD || (ph[i].p_flags & PF_W))
			continue;
		uintptr_t lo = (base + ph[i].p_vaddr) & ~(pg - 1);
		uintptr_t hi = (base + ph[i].p_vaddr + ph[i].p_memsz + pg - 1) & ~(pg - 1);
		if (code >= lo && code < hi)
			lo = code + pg;
		if (hi > lo) {
			uintptr_t *u = chain_handover.unmap[n++];
			u[0] = lo;
			u[1] = hi - lo;
		}
	}
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
	/* Its program headers where the kernel would say they are (the segment
	 * whose file bytes hold them): for a start as a command. */
	out->phdr = 0;
	out->phnum = l->n_ph;
	for (unsigned i = 0; i < l->n_ph && !out->phdr; i++) {
		const struct elf_phdr *ph = &l->ph[i];
		if (ph->type == PT_LOAD && l->phoff >= ph->offset &&
		    l->phoff - ph->offset + l->n_ph * sizeof(ElfW(Phdr)) <= ph->filesz)
			out->phdr = bias + ph->vaddr + (l->phoff - ph->offset);
	}
	return 0;
}

/* The environment the kernel laid out after argv, and its count. */
static inline char **env_of(char **argv, size_t *envc)
{
	char **envp = argv + ((size_t *)argv)[-1] + 1;
	size_t n = 0;
	while (envp[n])
		n++;
	*envc = n;
	return envp;
}

void chain_enter(const struct chain_ldso *ldso, char **argv, size_t *auxv,
		 const void *prog_phdr, size_t prog_phnum, size_t prog_phent,
		 char *llp_entry, bool first)
{
	size_t *sp = (size_t *)argv - 1;	/* argc, as the kernel laid it out */
	size_t argc = *sp, envc, auxw = 0;
	char **envp = env_of(argv, &envc);
	/* The auxiliary vector, where it lies, now tells ld.so about itself and
	 * the program: nothing of cudaload reads it again. */
	for (; auxv[auxw] != AT_NULL; auxw += 2) {
		switch (auxv[auxw]) {
		case AT_BASE: auxv[auxw + 1] = ldso->base; break;
		case AT_PHDR: auxv[auxw + 1] = (size_t)prog_phdr; break;
		case AT_PHNUM: auxv[auxw + 1] = prog_phnum; break;
		case AT_PHENT: auxv[auxw + 1] = prog_phent; break;
		case AT_ENTRY: chain_handover.program_entry = auxv[auxw + 1]; break;
		}
	}
	auxw += 2;
	arrange_image_unmap();

	/* No search list: the kernel's vector, as it is, is ld.so's, and the
	 * program's entry its own. */
	if (!llp_entry)
		chain_jump(sp, 0, sp, ldso->entry);

	/* Is LD_LIBRARY_PATH there already?  Then its slot is swapped, else one
	 * is added at the end of the list: a new vector, below the old one,
	 * and the list itself above it (musl's ld.so keeps pointing at it, and
	 * the heap is gone when the program runs). */
	size_t slot = envc;
	for (size_t i = 0; i < envc && !(first && slot < envc); i++)
		if (envp[i][0] == 'L' && strncmp(envp[i], "LD_LIBRARY_PATH=", 16) == 0)
			slot = i;	/* the one this ld.so reads (chain.h) */
	size_t added = slot == envc ? 1 : 0;

	size_t words = 1 + argc + 1 + envc + added + 1 + auxw;
	size_t list_bytes = strlen(llp_entry) + 1;
	size_t list_words = (list_bytes + sizeof(size_t) - 1) / sizeof(size_t);
	size_t *new_sp = (size_t *)(((uintptr_t)sp - (words + list_words) * sizeof(size_t) - 256) &
				    ~(uintptr_t)15);
	/* Built below this frame when it fits there, under the place it is
	 * copied to (chain_jump copies upwards, with nothing of the old stack
	 * in use after it); else on the heap, which costs a mapping. */
	size_t bytes = (words + list_words) * sizeof(size_t);
	size_t *v = bytes <= CHAIN_STACK_VECTOR ? __builtin_alloca(bytes) : NULL;
	if (!v || (uintptr_t)v + bytes > (uintptr_t)new_sp)
		v = malloc(bytes);
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
	memcpy(v + k, auxv, auxw * sizeof *v);
	for (size_t i = k; i < words; i += 2)
		if (v[i] == AT_ENTRY)
			v[i + 1] = (size_t)chain_entry_trampoline;	/* the list is taken out again */
	memcpy(v + words, llp_entry, list_bytes);

	chain_handover.env_slot = (char **)(new_sp + env_at + slot);
	chain_handover.env_original = added ? NULL : envp[slot];
	v[env_at + slot] = (size_t)(new_sp + words);
	chain_jump(v, words + list_words, new_sp, ldso->entry);
}

/* The program as the kernel mapped it, given back before ld.so maps it
 * again: each PT_LOAD, its bss included, where PT_PHDR tells the load
 * bias (without it, ld.so itself takes the bias to be 0, and the mapping
 * stays: a program at a fixed address is mapped over in place). */
static void unmap_program(const void *phdr, size_t phnum, size_t phent)
{
	uintptr_t pg = getauxval(AT_PAGESZ) ? getauxval(AT_PAGESZ) : 4096;
	const unsigned char *p = phdr;
	const ElfW(Phdr) *self = NULL;
	if (!phdr || phent != sizeof(ElfW(Phdr)))
		return;
	for (size_t i = 0; i < phnum && !self; i++)
		if (((const ElfW(Phdr) *)(const void *)(p + i * phent))->p_type == PT_PHDR)
			self = (const void *)(p + i * phent);
	if (!self)
		return;
	uintptr_t bias = (uintptr_t)phdr - self->p_vaddr;
	/* [start, end) of each, read before the first munmap; segments that
	 * touch or share a page (in order, as ELF lays them out) are one
	 * range, one munmap (all of them, as most programs are linked) */
	uintptr_t ranges[16][2];
	size_t n = 0;
	for (size_t i = 0; i < phnum; i++) {
		const ElfW(Phdr) *ph = (const void *)(p + i * phent);
		if (ph->p_type != PT_LOAD || !ph->p_memsz)
			continue;
		uintptr_t lo = (bias + ph->p_vaddr) & ~(pg - 1);
		uintptr_t hi = (bias + ph->p_vaddr + ph->p_memsz + pg - 1) & ~(pg - 1);
		if (n && lo >= ranges[n - 1][0] && lo <= ranges[n - 1][1]) {
			if (hi > ranges[n - 1][1])
				ranges[n - 1][1] = hi;
		} else if (n < 16) {
			ranges[n][0] = lo;
			ranges[n++][1] = hi;
		}
	}
	for (size_t i = 0; i < n; i++)
		munmap((void *)ranges[i][0], ranges[i][1] - ranges[i][0]);
}

void chain_enter_command(const struct chain_ldso *ldso, char **argv, size_t *auxv,
			 const void *prog_phdr, size_t prog_phnum, size_t prog_phent,
			 const char *const *lead, size_t n_lead)
{
	if (!ldso->phdr)
		return;
	size_t *sp = (size_t *)argv - 1;	/* argc, as the kernel laid it out */
	size_t argc = *sp, envc, auxw = 0;
	char **envp = env_of(argv, &envc);
	while (auxv[auxw] != AT_NULL)
		auxw += 2;
	auxw += 2;
	arrange_image_unmap();

	/* argc, the lead then the program's own arguments, the environment,
	 * the auxiliary vector; above them the lead's strings (nothing on the
	 * heap or in our image is read once ld.so runs) */
	size_t nargs = n_lead + (argc > 1 ? argc - 1 : 0);
	size_t words = 1 + nargs + 1 + envc + 1 + auxw;
	size_t str_bytes = 0;
	for (size_t i = 0; i < n_lead; i++)
		str_bytes += strlen(lead[i]) + 1;
	size_t str_words = (str_bytes + sizeof(size_t) - 1) / sizeof(size_t);
	size_t bytes = (words + str_words) * sizeof(size_t);
	size_t *new_sp = (size_t *)(((uintptr_t)sp - bytes - 256) & ~(uintptr_t)15);
	size_t *v = bytes <= CHAIN_STACK_VECTOR ? __builtin_alloca(bytes) : NULL;
	if (!v || (uintptr_t)v + bytes > (uintptr_t)new_sp)
		v = malloc(bytes);
	if (!v)
		return;
	char *strs = (char *)(v + words), *at = (char *)(new_sp + words);
	size_t k = 0;
	v[k++] = nargs;
	for (size_t i = 0; i < n_lead; i++) {
		size_t len = strlen(lead[i]) + 1;
		memcpy(strs, lead[i], len);
		v[k++] = (size_t)at;	/* where the copy will lie */
		strs += len;
		at += len;
	}
	for (size_t i = 1; i < argc; i++)
		v[k++] = (size_t)argv[i];
	v[k++] = 0;
	for (size_t i = 0; i < envc; i++)
		v[k++] = (size_t)envp[i];
	v[k++] = 0;
	memcpy(v + k, auxv, auxw * sizeof *v);
	/* as the kernel's exec of ld.so would say: ld.so is the program, and
	 * has no interpreter */
	for (size_t i = k; i < words; i += 2) {
		switch (v[i]) {
		case AT_BASE: v[i + 1] = 0; break;
		case AT_PHDR: v[i + 1] = ldso->phdr; break;
		case AT_PHNUM: v[i + 1] = ldso->phnum; break;
		case AT_PHENT: v[i + 1] = sizeof(ElfW(Phdr)); break;
		case AT_ENTRY: v[i + 1] = ldso->entry; break;
		}
	}
	unmap_program(prog_phdr, prog_phnum, prog_phent);
	chain_jump(v, words + str_words, new_sp, ldso->entry);
}
