/* SPDX-License-Identifier: MIT */
/*
 * version: the version strings cudaload reads, parsed strictly.
 *
 * CUDA versions are ints in NVIDIA's encoding, 1000*major + 10*minor
 * (12.2 -> 12020), the number cuDriverGetVersion returns.  Driver versions
 * are "580.65.06"; L4T versions come from /etc/nv_tegra_release.  Parsers
 * take NUL-terminated text, reject what does not match, and never read past
 * the terminator.
 */
#ifndef CUDALOAD_VERSION_H
#define CUDALOAD_VERSION_H

#include <stdbool.h>
#include <stddef.h>

struct driver_version {
	int major, minor, patch;	/* patch -1 when absent (e.g. 535.104) */
};

struct l4t_release {
	int major, minor, patch;	/* R36, REVISION 4.3 -> 36.4.3 */
	char lib_dir[128];		/* "/" TARGET_USERSPACE_LIB_DIR_PATH, or "" */
};

/* "12.2" or "12" (leading part of a longer string such as "12.2.140" too,
 * when allow_tail) -> 12020.  -1 on error. */
int cuda_version_parse(const char *s, bool allow_tail);

/* 12020 -> "12.2" into buf. */
const char *cuda_version_format(int cuda, char *buf, size_t cap);

/* {580, 65, 6} -> "580.65.06", {535, 104, -1} -> "535.104" into buf. */
const char *driver_version_format(const struct driver_version *d, char *buf, size_t cap);

/* "580.65.06" or "535.104" (whole string, trailing whitespace allowed). */
int driver_version_parse(const char *s, struct driver_version *out);

/* First line of /proc/driver/nvidia/version. */
int nvrm_version_parse(const char *text, struct driver_version *out);

/* Contents of /etc/nv_tegra_release. */
int l4t_release_parse(const char *text, struct l4t_release *out);

#endif
