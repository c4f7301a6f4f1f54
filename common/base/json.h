/* SPDX-License-Identifier: MIT */
/*
 * json: writing JSON values, for --explain --json and cudaload-verify.
 *
 * A string is written in its printable form (utf8.h: a control character
 * and each byte that is not UTF-8 as \xNN, a backslash doubled), then
 * quoted for JSON: so it is UTF-8 with no control character, and a tool gets
 * the name's bytes back from it.  NULL writes null.  The json_k* forms
 * write ,"key": before the value, for members after an object's first.
 */
#ifndef CUDALOAD_JSON_H
#define CUDALOAD_JSON_H

#include <stdbool.h>
#include <stdio.h>

/* The "schema" of every JSON object cudaload prints (--explain --json,
 * --status --json, --verify --json): one version for the three, raised when
 * a key is renamed, removed or changes meaning; share/schema/ holds the JSON
 * Schema of each (docs/design.md §7).  3: the first shared one. */
#define JSON_SCHEMA 3

void json_str(FILE *f, const char *s);
/* s's bytes as they are, quoted (only '"', '\\' and control characters
 * escaped): for JSON another program reads back as a value, a runtime's
 * config.json or Docker's daemon.json, where the printable form would
 * change it.  s must be UTF-8. */
void json_str_as_is(FILE *f, const char *s);
void json_strs(FILE *f, char *const *v, int n);	/* an array of strings */
void json_ints(FILE *f, const int *v, int n);	/* an array of numbers */

void json_key(FILE *f, const char *key);
void json_kstr(FILE *f, const char *key, const char *s);
void json_kbool(FILE *f, const char *key, bool b);
/* A token made of words ("version file" as version_file): NULL writes null. */
void json_ktoken(FILE *f, const char *key, const char *words);

#endif
