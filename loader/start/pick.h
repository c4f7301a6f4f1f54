/* SPDX-License-Identifier: MIT */
/*
 * pick: the real loader a program is handed to (docs/design.md §2 step 4):
 * the first of CUDALOAD_LDSO, the config's ldso.<machine>, the interpreter
 * cudaload-patch recorded, the program's PT_INTERP when it is not a
 * cudaload, the standard path.  Used for a run, --explain and --status.
 */
#ifndef CUDALOAD_PICK_H
#define CUDALOAD_PICK_H

#include <stdbool.h>

#include "../../common/settings/settings.h"
#include "../../common/elf/ldso.h"
#include "../../common/elf/target.h"

/* execline's exit codes */
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND 127

/* Find the real loader.  0, or the exit status (127/126) with the problem
 * in *problem (malloc'd): --explain reports it, a run stops on it.
 * *patched: the program's interpreter is cudaload (a recorded loader, or a
 * PT_INTERP that turned out to be cudaload).  as_interp: cudaload is the
 * program's interpreter, so its PT_INTERP is not worth an open. */
int pick_ldso(struct settings *s, const struct target *t, bool as_interp,
	      struct ldso_info *l, bool *patched, char **problem);

/* Where pick_ldso would look first, without looking: l's path, from,
 * named and glibc_floor set; false when there is nowhere to look. */
bool pick_ldso_first(const struct settings *s, const struct target *t, bool as_interp,
		     struct ldso_info *l);

#endif
