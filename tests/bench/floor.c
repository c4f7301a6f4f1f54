/* SPDX-License-Identifier: MIT */
/*
 * floor: the cheapest program interpreter there can be, as the reference
 * `make bench` measures cudaload against.  No libc, no decision, no probe.
 *
 * Built with -DFLOOR_CHAIN: maps the loader named by -DLDSO into this
 * process and jumps to it, with AT_BASE changed (what nix-ld does, minus
 * everything that makes it useful).  Otherwise it only execve()s the loader
 * with the program's path (AT_EXECFN) and arguments.  Supports x86_64 and
 * aarch64; ld.so files that need more than 16 program headers, or that are
 * not ET_DYN, make it exit 127.
 */
#include <elf.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#ifndef LDSO
#error "build with -DLDSO='\"/path/to/ld.so\"'"
#endif

static long sys6(long n, long a, long b, long c, long d, long e, long f)
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;
	__asm__ volatile("syscall" : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = n, x0 __asm__("x0") = a, x1 __asm__("x1") = b,
		x2 __asm__("x2") = c, x3 __asm__("x3") = d, x4 __asm__("x4") = e, x5 __asm__("x5") = f;
	__asm__ volatile("svc 0" : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
#else
#error "floor: x86_64 or aarch64 only"
#endif
}

__attribute__((noreturn)) static void die(void)
{
	sys6(SYS_exit_group, 127, 0, 0, 0, 0, 0);
	__builtin_unreachable();
}

/* Called by _start with the initial stack pointer; returns where to jump. */
uintptr_t floor_main(size_t *sp);
uintptr_t floor_main(size_t *sp)
{
	size_t argc = sp[0];
	char **argv = (char **)(sp + 1), **envp = argv + argc + 1, **e = envp;
	while (*e)
		e++;
	size_t *auxv = (size_t *)(e + 1);

#ifndef FLOOR_CHAIN
	const char *execfn = NULL;
	for (size_t *a = auxv; a[0] != AT_NULL; a += 2)
		if (a[0] == AT_EXECFN)
			execfn = (const char *)a[1];
	char *av[64];
	size_t k = 0;
	av[k++] = (char *)LDSO;
	av[k++] = (char *)execfn;
	for (size_t i = 1; i < argc && k < 63; i++)
		av[k++] = argv[i];
	av[k] = NULL;
	sys6(SYS_execve, (long)LDSO, (long)av, (long)envp, 0, 0, 0);
	die();
#else
	size_t pg = 4096;
	for (size_t *a = auxv; a[0] != AT_NULL; a += 2)
		if (a[0] == AT_PAGESZ)
			pg = a[1];
	int fd = (int)sys6(SYS_openat, -100 /* AT_FDCWD */, (long)LDSO, 02000000 /* O_CLOEXEC */, 0, 0, 0);
	if (fd < 0)
		die();
	union {
		ElfW(Ehdr) eh;
		unsigned char b[sizeof(ElfW(Ehdr)) + 16 * sizeof(ElfW(Phdr))];
	} h;
	long n = sys6(SYS_read, fd, (long)&h, sizeof h, 0, 0, 0);
	if (n < (long)sizeof h.eh || h.eh.e_type != ET_DYN || h.eh.e_phnum > 16 ||
	    h.eh.e_phoff + (size_t)h.eh.e_phnum * sizeof(ElfW(Phdr)) > (size_t)n)
		die();
	const ElfW(Phdr) *ph = (const void *)(h.b + h.eh.e_phoff);
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	for (unsigned i = 0; i < h.eh.e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (ph[i].p_vaddr < lo)
			lo = ph[i].p_vaddr & ~(pg - 1);
		if (ph[i].p_vaddr + ph[i].p_memsz > hi)
			hi = ph[i].p_vaddr + ph[i].p_memsz;
	}
	/* The first segment is mapped over the whole span, which reserves it;
	 * the others are mapped over it. */
	const ElfW(Phdr) *first = NULL;
	for (unsigned i = 0; i < h.eh.e_phnum && !first; i++)
		if (ph[i].p_type == PT_LOAD)
			first = &ph[i];
	if (!first)
		die();
	long res = sys6(SYS_mmap, 0, (long)(hi - lo), PROT_READ, MAP_PRIVATE, fd,
			(long)(first->p_offset & ~(pg - 1)));
	if (res < 0 && res > -4096)
		die();
	uintptr_t bias = (uintptr_t)res - lo;
	for (unsigned i = 0; i < h.eh.e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || (&ph[i] == first && first->p_flags == PF_R &&
						  first->p_memsz == first->p_filesz))
			continue;
		int prot = (ph[i].p_flags & PF_R ? PROT_READ : 0) |
			   (ph[i].p_flags & PF_W ? PROT_WRITE : 0) |
			   (ph[i].p_flags & PF_X ? PROT_EXEC : 0);
		uintptr_t start = (bias + ph[i].p_vaddr) & ~(pg - 1);
		uintptr_t file_end = bias + ph[i].p_vaddr + ph[i].p_filesz;
		uintptr_t file_page_end = (file_end + pg - 1) & ~(pg - 1);
		uintptr_t mem_end = (bias + ph[i].p_vaddr + ph[i].p_memsz + pg - 1) & ~(pg - 1);
		if (sys6(SYS_mmap, (long)start, (long)(file_page_end - start), prot,
			 MAP_PRIVATE | MAP_FIXED, fd, (long)(ph[i].p_offset & ~(pg - 1))) < 0)
			die();
		if (ph[i].p_memsz > ph[i].p_filesz) {
			/* ld.so's bss: the rest of the last file page, then fresh pages */
			for (volatile char *p = (char *)file_end; p < (char *)file_page_end; p++)
				*p = 0;
			if (mem_end > file_page_end &&
			    sys6(SYS_mmap, (long)file_page_end, (long)(mem_end - file_page_end), prot,
				 MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0) < 0)
				die();
		}
	}
	sys6(SYS_close, fd, 0, 0, 0, 0, 0);
	for (size_t *a = auxv; a[0] != AT_NULL; a += 2)
		if (a[0] == AT_BASE)
			a[1] = bias;
	return bias + h.eh.e_entry;
#endif
}

/* Entry: call floor_main with the kernel's stack pointer, then jump to what
 * it returns on that same stack. */
#if defined(__x86_64__)
__asm__(".text\n.globl _start\n_start:\n"
	"	mov %rsp, %r12\n	mov %rsp, %rdi\n	and $-16, %rsp\n"
	"	call floor_main\n	mov %r12, %rsp\n	xor %edx, %edx\n	jmp *%rax\n");
#else
__asm__(".text\n.globl _start\n_start:\n"
	"	mov x19, sp\n	mov x0, sp\n	bl floor_main\n	mov sp, x19\n	br x0\n");
#endif
