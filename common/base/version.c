/* SPDX-License-Identifier: MIT */
#include "version.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Parse a decimal number of at most 6 digits; advance *s.  -1 if none. */
static int number(const char **s)
{
	const char *p = *s;
	int v = 0, digits = 0;
	while (isdigit((unsigned char)*p)) {
		if (++digits > 6)
			return -1;
		v = v * 10 + (*p++ - '0');
	}
	if (!digits)
		return -1;
	*s = p;
	return v;
}

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

int cuda_version_parse(const char *s, bool allow_tail)
{
	const char *p = s;
	int major = number(&p), minor = 0;
	if (major < 1 || major > 99)
		return -1;
	if (*p == '.') {
		p++;
		minor = number(&p);
		if (minor < 0 || minor > 99)
			return -1;
	}
	if (!allow_tail && *skip_space(p) != '\0')
		return -1;
	if (allow_tail && isalnum((unsigned char)*p))
		return -1;
	return major * 1000 + minor * 10;
}

const char *cuda_version_format(int cuda, char *buf, size_t cap)
{
	if (cuda <= 0)
		snprintf(buf, cap, "unknown");
	else
		snprintf(buf, cap, "%d.%d", cuda / 1000, cuda % 1000 / 10);
	return buf;
}

const char *driver_version_format(const struct driver_version *d, char *buf, size_t cap)
{
	if (d->patch >= 0)
		snprintf(buf, cap, "%d.%d.%02d", d->major, d->minor, d->patch);
	else
		snprintf(buf, cap, "%d.%d", d->major, d->minor);
	return buf;
}

/* Driver version at *s; advances *s past it. */
static int driver_at(const char **s, struct driver_version *out)
{
	const char *p = *s;
	out->major = number(&p);
	if (out->major < 1 || *p != '.')
		return -1;
	p++;
	out->minor = number(&p);
	if (out->minor < 0)
		return -1;
	out->patch = -1;
	if (*p == '.') {
		p++;
		out->patch = number(&p);
		if (out->patch < 0)
			return -1;
	}
	*s = p;
	return 0;
}

int driver_version_parse(const char *s, struct driver_version *out)
{
	const char *p = skip_space(s);
	if (driver_at(&p, out) < 0)
		return -1;
	while (isspace((unsigned char)*p))
		p++;
	return *p ? -1 : 0;
}

int nvrm_version_parse(const char *text, struct driver_version *out)
{
	const char *eol = strchr(text, '\n');
	size_t linelen = eol ? (size_t)(eol - text) : strlen(text);
	char line[512];
	if (linelen >= sizeof line)
		return -1;
	memcpy(line, text, linelen);
	line[linelen] = '\0';

	if (strncmp(line, "NVRM version:", 13) != 0)
		return -1;
	const char *p = strstr(line, "Kernel Module");
	if (!p)
		return -1;
	p += strlen("Kernel Module");
	/* The version is the first word shaped like one ("for x86_64" may precede it). */
	while (*p) {
		p = skip_space(p);
		const char *q = p;
		if (driver_at(&q, out) == 0 && (*q == ' ' || *q == '\t' || *q == '\0'))
			return 0;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	return -1;
}

int l4t_release_parse(const char *text, struct l4t_release *out)
{
	const char *p = text;
	memset(out, 0, sizeof *out);

	/* "# R36 (release), REVISION: 4.3, GCID: ..." */
	if (strncmp(p, "# R", 3) != 0)
		return -1;
	p += 3;
	out->major = number(&p);
	if (out->major < 1 || out->major > 999 || strncmp(p, " (", 2) != 0)
		return -1;
	const char *rev = strstr(p, "REVISION:");
	const char *eol = strchr(p, '\n');
	if (!rev || (eol && rev > eol))
		return -1;
	rev = skip_space(rev + strlen("REVISION:"));
	out->minor = number(&rev);
	if (out->minor < 0)
		return -1;
	out->patch = 0;
	if (*rev == '.') {
		rev++;
		out->patch = number(&rev);
		if (out->patch < 0)
			return -1;
	}
	if (*rev != ',' && *rev != '\n' && *rev != '\0' && *rev != ' ')
		return -1;

	/* r36.4+ names its driver library directory on a later line. */
	static const char key[] = "TARGET_USERSPACE_LIB_DIR_PATH=";
	for (const char *l = eol; l; l = strchr(l, '\n')) {
		l++;
		if (strncmp(l, key, sizeof key - 1) != 0)
			continue;
		const char *v = l + sizeof key - 1;
		size_t n = strcspn(v, "\r\n");
		if (n > 0 && n + 1 < sizeof out->lib_dir) {
			out->lib_dir[0] = '/';	/* the file names it relative to / */
			memcpy(out->lib_dir + 1, v, n);
			out->lib_dir[n + 1] = '\0';
		}
		break;
	}
	return 0;
}
