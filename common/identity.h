/* SPDX-License-Identifier: MIT */
/*
 * identity: how a cudaload binary is told from a dynamic loader.
 *
 * Every cudaload carries an ELF note owned by "cudaload" in a PT_NOTE
 * segment.  A loader candidate that has it is cudaload (this one, a copy, or
 * another version) and must never be handed over to: that would loop.  The
 * note sits in the first page, so checking it costs no extra I/O.
 */
#ifndef CUDALOAD_IDENTITY_H
#define CUDALOAD_IDENTITY_H

#include <stdint.h>

#define IDENTITY_NOTE_OWNER "cudaload"
#define IDENTITY_NOTE_TYPE 0x434c	/* "CL" */

struct identity_note {
	uint32_t namesz, descsz, type;
	char name[12];	/* "cudaload\0", padded to 4 bytes */
};

#endif
