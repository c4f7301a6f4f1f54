/* SPDX-License-Identifier: MIT */
/*
 * identity: how cudaload's own programs are told from everything else.
 *
 * Every cudaload carries an ELF note owned by "cudaload" in a PT_NOTE
 * segment.  A loader candidate that has it is cudaload (this one, a copy, or
 * another version) and must never be handed over to: that would loop.  The
 * note sits in the first page, so checking it costs no extra I/O.
 *
 * cudaload's helper programs (cudaload-patch, cudaload-verify) carry the
 * same owner with another type: cudaload-patch never patches them, however
 * they are named or wherever they lie, since --verify must judge the system
 * driver with the system driver, not with cudaload's choice.
 */
#ifndef CUDALOAD_IDENTITY_H
#define CUDALOAD_IDENTITY_H

#include <stdint.h>

#define IDENTITY_NOTE_OWNER "cudaload"
#define IDENTITY_NOTE_TYPE 0x434c	/* "CL" */

#define IDENTITY_NOTE_TYPE_TOOL 0x4354	/* "CT" */

struct identity_note {
	uint32_t namesz, descsz, type;
	char name[12];	/* "cudaload\0", padded to 4 bytes */
};

/* Defines the note in a program: IDENTITY_NOTE(IDENTITY_NOTE_TYPE). */
#define IDENTITY_NOTE(note_type)                                                        \
	__attribute__((used, section(".note.cudaload"), aligned(4)))                   \
	static const struct identity_note identity_note_ = {                            \
		sizeof IDENTITY_NOTE_OWNER, 0, (note_type), IDENTITY_NOTE_OWNER,        \
	}

#endif
