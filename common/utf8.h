/* SPDX-License-Identifier: MIT */
/*
 * utf8: strings as read (paths, config values, model names) written where
 * their bytes could do harm: JSON, which must be valid UTF-8, and text for
 * a terminal, where control bytes move the cursor or forge lines.
 *
 * Valid UTF-8 is RFC 3629's: no overlong forms, no surrogates, nothing past
 * U+10FFFF, no sequence cut short.  Each function reads exactly n bytes, so
 * a NUL inside is a byte like any other.
 */
#ifndef CUDALOAD_UTF8_H
#define CUDALOAD_UTF8_H

#include <stddef.h>
#include <stdio.h>

/* Length (1 to 4) of the valid UTF-8 sequence that starts s, at most n
 * bytes long; 0 when the bytes there are not one. */
size_t utf8_seq(const unsigned char *s, size_t n);

/* For people: s as it is, except control bytes (C0, DEL, and the C1
 * controls U+0080-U+009F, which some terminals obey) and bytes that are not
 * UTF-8, written as \xNN, so a name shows what it holds on one line.  A
 * backslash is left alone. */
void utf8_text(FILE *f, const char *s, size_t n);

#endif
