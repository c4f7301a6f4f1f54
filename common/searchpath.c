/* SPDX-License-Identifier: MIT */
#include "searchpath.h"

#include <elf.h>
#include <stddef.h>

const char *const *searchpath_library_dirs(int machine)
{
	static const char *const x86_64[] = { "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", NULL };
	static const char *const aarch64[] = { "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", NULL };
	static const char *const other[] = { "/usr/lib64", "/usr/lib", NULL };
	return machine == EM_X86_64 ? x86_64 : machine == EM_AARCH64 ? aarch64 : other;
}
