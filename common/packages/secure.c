/* SPDX-License-Identifier: MIT */
#include "secure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/diag.h"

/* glibc's UNSECURE_ENVVARS (sysdeps/generic/unsecvars.h, 2.31 to 2.40). */
static const char *const unsafe_vars[] = {
	"GCONV_PATH", "GETCONF_DIR", "HOSTALIASES", "LD_AUDIT", "LD_DEBUG",
	"LD_DEBUG_OUTPUT", "LD_DYNAMIC_WEAK", "LD_HWCAP_MASK", "LD_LIBRARY_PATH",
	"LD_ORIGIN_PATH", "LD_PRELOAD", "LD_PROFILE", "LD_SHOW_AUXV", "LD_USE_LOAD_BIAS",
	"LOCALDOMAIN", "LOCPATH", "MALLOC_TRACE", "NIS_PATH", "NLSPATH", "RESOLV_HOST_CONF",
	"RES_OPTIONS", "TMPDIR", "TZDIR",
};

bool secure_path_trusted(const char *path)
{
	return secure_path_owned(path, 0);
}

bool secure_path_owned(const char *path, uid_t owner)
{
	size_t n = strlen(path);
	if (path[0] != '/' || n >= CL_PATH_MAX)
		return false;
	/* a copy to cut, on the heap: no CL_PATH_MAX frame on the start-up path */
	char *dir = strdup(path);
	if (!dir)
		return false;	/* not proven: not trusted */
	/* the path itself, then each directory above it, up to "/".  Above the
	 * path a sticky directory may be writable by others (/nix/store is
	 * root:nixbld 1775): the entry below it is root's, and in a sticky
	 * directory no one but root and the directory's owner, root here, can
	 * rename or remove it.  The path itself never: anyone could add files. */
	bool trusted = false;
	for (bool above = false;; above = true) {
		struct stat st;
		if (stat(dir[0] ? dir : "/", &st) < 0 || (st.st_uid != 0 && st.st_uid != owner))
			break;
		if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(above && (st.st_mode & S_ISVTX)))
			break;
		char *slash = strrchr(dir, '/');
		if (!slash) {
			trusted = true;
			break;
		}
		*slash = '\0';
	}
	free(dir);
	return trusted;
}

bool secure_package_owned(const char *root, const char *dir, uid_t owner)
{
	static const char lib[] = "/libcuda.so.1";
	char *full = root_path(root, dir);
	if (!full)
		return false;
	bool owned = false;
	size_t n = strlen(full);
	/* on the heap: the loader asks this on its start-up path */
	char *path = n + sizeof lib <= CL_PATH_MAX ? malloc(n + sizeof lib) : NULL;
	if (path && secure_path_owned(full, owner)) {
		struct stat st;
		memcpy(path, full, n);
		memcpy(path + n, lib, sizeof lib);
		owned = stat(path, &st) == 0 && (st.st_uid == 0 || st.st_uid == owner) &&
			!(st.st_mode & (S_IWGRP | S_IWOTH));
	}
	free(path);
	root_path_free(full, dir);
	return owned;
}

/* Is dir, looked up under root, trusted?  Paths too long to join are not. */
static bool root_trusted(const char *root, const char *dir)
{
	size_t rl = root ? strlen(root) : 0;
	while (rl > 0 && root[rl - 1] == '/')
		rl--;
	if (rl + strlen(dir) + 1 > CL_PATH_MAX)
		return false;
	char *full = root_path(root, dir);
	bool trusted = full && secure_path_trusted(full);
	root_path_free(full, dir);
	return trusted;
}

void secure_filter(const char *root, struct host *h, struct candidates *c)
{
	int k = 0, first_reached = h->n_driver_dirs - h->n_reached_dirs;
	for (int i = 0; i < h->n_driver_dirs; i++) {
		if (root_trusted(root, h->driver_dirs[i])) {
			if (k != i)
				h->driver_dirs[k] = h->driver_dirs[i];
			k++;
		} else {
			diag("driver dir %s: not root-owned or writable by others; not used by a set-id program",
			     h->driver_dirs[i]);
			if (i >= first_reached)
				h->n_reached_dirs--;
		}
	}
	h->n_driver_dirs = k;
	for (size_t i = 0; i < c->n; i++) {
		struct candidate *cand = &c->v[i];
		if (root_trusted(root, cand->dir))
			continue;
		cand->has_lib = false;
		snprintf(cand->lib_problem, sizeof cand->lib_problem,
			 "not root-owned or writable by others, and the program is set-id");
	}
}

bool secure_env_unsafe(const char *entry)
{
	for (size_t i = 0; i < sizeof unsafe_vars / sizeof unsafe_vars[0]; i++) {
		size_t n = strlen(unsafe_vars[i]);
		if (strncmp(entry, unsafe_vars[i], n) == 0 && entry[n] == '=')
			return true;
	}
	return false;
}

void secure_env_filter(char **envp)
{
	char **out = envp;
	for (char **e = envp; *e; e++)
		if (!secure_env_unsafe(*e))
			*out++ = *e;
	*out = NULL;
}
