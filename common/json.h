/* SPDX-License-Identifier: MIT */
/*
 * json: writing JSON values, for --explain --json and cudaload-verify.
 *
 * Strings are escaped the one way both write them: quote and backslash
 * with a backslash, a newline as \n, other control bytes as \u00XX; valid
 * UTF-8 passes through, and each byte that is not (a path as read can hold
 * any) becomes \ufffd, the replacement character: JSON must be UTF-8.
 * NULL writes null.  The json_k* forms write ,"key": before the value, for
 * members after an object's first.
 */
#ifndef CUDALOAD_JSON_H
#define CUDALOAD_JSON_H

#include <stdbool.h>
#include <stdio.h>

void json_str(FILE *f, const char *s);
void json_strs(FILE *f, char *const *v, int n);	/* an array of strings */
void json_ints(FILE *f, const int *v, int n);	/* an array of numbers */

void json_key(FILE *f, const char *key);
void json_kstr(FILE *f, const char *key, const char *s);
void json_kbool(FILE *f, const char *key, bool b);

#endif
