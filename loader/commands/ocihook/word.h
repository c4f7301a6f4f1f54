/* SPDX-License-Identifier: MIT */
/*
 * word: what the judgement child tells the hook, on a pipe: NUL-terminated
 * fields.  A kind, then its fields: 'H' hide DIR DEV INO; 'F' first DIR DEV
 * INO; 'C' the cache names a hidden package (ldconfig is due); 'K' kept
 * DIR WHY (not hidden); 'R' the account; 'E' WHY (no judgement); '.' the
 * end.  It fails closed both ways: a word that does not fit its buffer is
 * not sent (the child says so instead), and a word cut short, one without
 * its end or with a field not understood is an error, the hook then doing
 * nothing.
 */
#ifndef CUDALOAD_OCIHOOK_WORD_H
#define CUDALOAD_OCIHOOK_WORD_H

#include <stdbool.h>
#include <stddef.h>

#include "edits.h"

#define WORD_MAX (1024 * 1024)	/* the word's bound: the account and the edits */

struct word {
	char *buf;
	size_t n, cap;
	bool overflow;		/* a field did not fit: the word is not whole */
};

/* One field more; false (and overflow set) when it does not fit. */
bool word_put(struct word *w, const char *s);

/* A kind and a package's directory, device and inode. */
void word_put_dir(struct word *w, const char *kind, const struct candidate *c);

/* The word's end; where it overflowed, the word is replaced by an 'E' that
 * says so.  The word, ready to send. */
void word_end(struct word *w);

/* buf (n bytes) read into e (whose fields point into buf); its 'K' lines
 * said in e->log.  NULL, or why not. */
const char *word_read(const char *buf, size_t n, struct edits *e);

#endif
