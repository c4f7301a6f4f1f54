/* SPDX-License-Identifier: MIT */
#include "searchpath.h"

#include <dirent.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/sys.h"

const char *const *searchpath_library_dirs(int machine)
{
	static const char *const x86_64[] = { "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", NULL };
	static const char *const aarch64[] = { "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", NULL };
	static const char *const other[] = { "/usr/lib64", "/usr/lib", NULL };
	return machine == EM_X86_64 ? x86_64 : machine == EM_AARCH64 ? aarch64 : other;
}

size_t searchpath_entry(const char *p, size_t n, const char *origin, size_t ol, char *dir,
			size_t cap)
{
	const char *tail = NULL;
	if (n >= 7 && strncmp(p, "$ORIGIN", 7) == 0)
		tail = p + 7;
	else if (n >= 9 && strncmp(p, "${ORIGIN}", 9) == 0)
		tail = p + 9;
	size_t tl = tail ? (size_t)(p + n - tail) : n;
	size_t len = (tail ? ol : 0) + tl;
	if (!len || len >= cap || (tail && (!ol || (*tail && *tail != '/'))))
		return 0;
	if (tail)
		memcpy(dir, origin, ol);
	memcpy(dir + (tail ? ol : 0), tail ? tail : p, tl);
	dir[len] = '\0';
	return dir[0] == '/' ? len : 0;
}

/* ---- ld.so.conf ---- */

/* The lines of one conf file, each handed to fn; include lines are not
 * followed (Debian's and NVIDIA's images use the conf.d directory). */
static bool conf_file(const char *root, const char *file, char *text, size_t cap,
		      bool (*fn)(const char *, const char *, size_t, void *), void *arg)
{
	if (read_small(root, file, text, cap) <= 0)
		return true;
	for (char *line = text, *next; *line; line = next) {
		size_t len = strcspn(line, "\n");
		next = line + len + (line[len] ? 1 : 0);
		line += strspn(line, " \t");
		len = strcspn(line, " \t#\n");
		if (len && strncmp(line, "include", 7) != 0 && !fn(file, line, len, arg))
			return false;
	}
	return true;
}

void searchpath_conf_lines(const char *root, bool (*fn)(const char *file, const char *dir,
							size_t len, void *arg), void *arg)
{
	char *text = malloc(4096), *name = text ? malloc(CL_PATH_MAX) : NULL;
	char *full = name ? root_path(root, "/etc/ld.so.conf.d") : NULL;
	DIR *d = full ? opendir(full) : NULL;
	root_path_free(full, "/etc/ld.so.conf.d");
	bool go = name && conf_file(root, "/etc/ld.so.conf", text, 4096, fn, arg);
	for (struct dirent *e; go && d && (e = readdir(d));) {
		size_t el = strlen(e->d_name);
		if (el < 6 || strcmp(e->d_name + el - 5, ".conf") != 0)
			continue;
		snprintf(name, CL_PATH_MAX, "/etc/ld.so.conf.d/%s", e->d_name);
		go = conf_file(root, name, text, 4096, fn, arg);
	}
	if (d)
		closedir(d);
	free(name);
	free(text);
}
