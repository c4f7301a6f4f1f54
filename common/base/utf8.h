/* SPDX-License-Identifier: MIT */
/*
 * utf8: names as read (paths, config values, model names) written where
 * their bytes could do harm: JSON and Prometheus labels, which must be
 * valid UTF-8, and text for a terminal, where control bytes move the cursor
 * or forge lines.
 *
 * Every output that carries a name writes its printable form, the one
 * mapping of this module: valid UTF-8 passes as it is; a control character
 * (C0, DEL, and the C1 controls U+0080-U+009F, which some terminals obey)
 * and each byte that is not UTF-8 becomes \xNN (lower-case hex, each byte
 * of a control alone); a backslash becomes two.  The mapping is one to
 * one: \\ reads back as a backslash, \xNN as the byte NN, anything else as
 * itself.  The printable form is UTF-8 with no control character, so each
 * format then quotes it its own way: text as it is, a JSON string and a
 * Prometheus label value with a backslash before a double quote and before
 * each backslash (their newline and control escapes are never needed).
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

/* For people: the printable form of s. */
void utf8_text(FILE *f, const char *s, size_t n);

/* For people, into a buffer: the printable form of s into out, cap bytes
 * with the NUL; as much as fits, never part of one byte's form (the CUDALOAD_DEBUG
 * trace).  Its length. */
size_t utf8_text_into(char *out, size_t cap, const char *s, size_t n);

/* For a JSON string or a Prometheus label value: the printable form of s
 * with '"' and '\' escaped, without the quotes around it. */
void utf8_quoted(FILE *f, const char *s, size_t n);

/* fprintf for text: the formatted string as utf8_text() writes it, except
 * a newline that ends it, which stays one (so a value with a newline in it
 * cannot start a line).  The format's own text holds no backslash. */
__attribute__((format(printf, 2, 3)))
void utf8_printf(FILE *f, const char *fmt, ...);

#endif
