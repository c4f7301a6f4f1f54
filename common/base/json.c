/* SPDX-License-Identifier: MIT */
#include "json.h"

#include <string.h>

#include "utf8.h"

void json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	utf8_quoted(f, s, strlen(s));
	fputc('"', f);
}

void json_str_as_is(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

void json_strs(FILE *f, char *const *v, int n)
{
	fputc('[', f);
	for (int i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		json_str(f, v[i]);
	}
	fputc(']', f);
}

void json_ints(FILE *f, const int *v, int n)
{
	fputc('[', f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%d", i ? "," : "", v[i]);
	fputc(']', f);
}

void json_key(FILE *f, const char *key)
{
	fprintf(f, ",\"%s\":", key);
}

void json_kstr(FILE *f, const char *key, const char *s)
{
	json_key(f, key);
	json_str(f, s);
}

void json_kbool(FILE *f, const char *key, bool b)
{
	json_key(f, key);
	fputs(b ? "true" : "false", f);
}

void json_ktoken(FILE *f, const char *key, const char *words)
{
	json_key(f, key);
	if (!words) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (const char *c = words; *c; c++)
		fputc(*c == ' ' ? '_' : *c, f);	/* the words are ours: plain ASCII */
	fputc('"', f);
}
