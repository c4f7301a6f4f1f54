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
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0, n = strlen(s); i < n;) {
		unsigned char c = p[i];
		size_t k = utf8_seq(p + i, n - i);
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else if (k)
			fwrite(p + i, 1, k, f);
		else
			fputs("\\ufffd", f);	/* JSON text is UTF-8: a stray byte cannot be kept */
		i += k ? k : 1;
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
