/* SPDX-License-Identifier: MIT */
/*
 * usescuda: the rule for which programs cudaload-patch patches in a
 * directory walk (README.md points here for the list).  An ELF file uses
 * CUDA when
 *
 *   - a DT_NEEDED names a CUDA library (the prefixes in
 *     elfpatch/usescuda.c: libcuda.so, libcudart.so, libcublas ...), read
 *     through PT_DYNAMIC, so files without section headers count too;
 *   - it embeds device code: a .nv_fatbin or .nvFatBinSegment section
 *     (static cudart, nvcc's and CMake's default);
 *   - its read-only data holds "libcuda.so" (it dlopens the driver): the
 *     .rodata* sections, or without any, every read-only, non-executable
 *     PT_LOAD.
 *
 * Checked in that order; the first sign found is the answer, with what
 * says so.  One file at a time, from an image in memory: a caller that
 * follows DT_NEEDED to libraries judges each of them the same way.
 */
#ifndef CUDALOAD_USESCUDA_H
#define CUDALOAD_USESCUDA_H

#include <stdbool.h>
#include <stddef.h>

/* Which signs to look for. */
enum {
	USESCUDA_NEEDED = 1,		/* a CUDA library in DT_NEEDED */
	USESCUDA_DEVICE_CODE = 2,	/* .nv_fatbin, .nvFatBinSegment */
	USESCUDA_DLOPEN = 4,		/* "libcuda.so" in read-only data */
	USESCUDA_ALL = 7,
};

enum cuda_sign {
	CUDA_SIGN_NONE,			/* nothing says it uses CUDA */
	CUDA_SIGN_NEEDED,
	CUDA_SIGN_DEVICE_CODE,
	CUDA_SIGN_DLOPEN,
};

struct cuda_use {
	enum cuda_sign sign;
	char why[64];	/* "libcudart.so.12", "device code in .nv_fatbin",
			 * "dlopens libcuda.so"; empty for CUDA_SIGN_NONE */
};

/* Does the ELF file in img use CUDA, by the signs in checks (USESCUDA_*)?
 * 0 with *out filled (sign CUDA_SIGN_NONE when nothing says so), or -1 with
 * a reason when img is not an ELF file libelf and our bounds checks accept.
 * Call elfpatch_init first. */
int usescuda_image(unsigned char *img, size_t len, unsigned checks, struct cuda_use *out,
		   char *why, size_t whycap);

/* Does a DT_NEEDED name say the file uses CUDA?  (Also in elfpatch.h.) */
bool elfpatch_needed_is_cuda(const char *name);

#endif
