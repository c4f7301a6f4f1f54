/* SPDX-License-Identifier: MIT */
/*
 * handover: the program given to its real loader with the choice, the
 * last step of a start: ld.so mapped here (chain mode, and a set-id
 * program in place) or exec'd with the list as its argument (exec mode).
 * A `cudaload PROGRAM` also hands the choice down to the program's
 * descendants, through LD_LIBRARY_PATH with CUDALOAD_INHERITED_PATH naming
 * what it added (docs/design.md §6).
 */
#ifndef CUDALOAD_HANDOVER_H
#define CUDALOAD_HANDOVER_H

#include <stdbool.h>

#include "steps.h"

/* Exec path with av, or exit 127 (not found) or 126 (cannot run) saying why. */
__attribute__((noreturn))
void exec_or_die(const char *path, char *const *av, char **envp);

/* Give the program to ld.so with st->list (NULL: the system driver). */
__attribute__((noreturn))
void hand_over(struct start *st);

#endif
