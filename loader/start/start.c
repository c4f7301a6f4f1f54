/* SPDX-License-Identifier: MIT */
/* Compiled without the stack protector: it runs before libc sets the canary. */
#include "start.h"

#include <elf.h>
#include <link.h>

struct program_auxv start_program;

extern const ElfW(Ehdr) __ehdr_start;	/* from the linker: our own ELF header */

int __wrap___libc_start_main(int (*main)(int, char **, char **), int argc, char **argv,
			     void (*init)(void), void (*fini)(void), void (*ldso)(void));
int __real___libc_start_main(int (*main)(int, char **, char **), int argc, char **argv,
			     void (*init)(void), void (*fini)(void), void (*ldso)(void));

int __wrap___libc_start_main(int (*main)(int, char **, char **), int argc, char **argv,
			     void (*init)(void), void (*fini)(void), void (*ldso)(void))
{
	char **envp = argv + argc + 1;
	while (*envp)
		envp++;
	size_t *aux = (size_t *)(envp + 1);

	start_program.auxv = aux;
	for (; aux[0] != AT_NULL; aux += 2) {
		switch (aux[0]) {
		case AT_PHDR:
			start_program.phdr = (const void *)aux[1];
			aux[1] = (size_t)((const char *)&__ehdr_start + __ehdr_start.e_phoff);
			break;
		case AT_PHNUM:
			start_program.phnum = aux[1];
			aux[1] = __ehdr_start.e_phnum;
			break;
		case AT_PHENT:
			start_program.phent = aux[1];
			aux[1] = __ehdr_start.e_phentsize;
			break;
		}
	}
	return __real___libc_start_main(main, argc, argv, init, fini, ldso);
}
