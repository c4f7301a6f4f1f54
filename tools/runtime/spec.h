/* SPDX-License-Identifier: MIT */
/*
 * spec: a bundle's config.json as cudaload-runtime sees it, and the one
 * edit it makes there.
 *
 * spec_scan reads the text (jsonread.h: within bounds, strictly) for three
 * things: whether the container gets an NVIDIA GPU (a device node of the
 * NVIDIA major in linux.devices, one of NVIDIA's hooks in any stage, or
 * NVIDIA_VISIBLE_DEVICES in process.env other than void, none or empty),
 * whether it opted out (the annotation cudaload.dev/compat, else
 * CUDALOAD_COMPAT in process.env, false|0|no|off), and whether a
 * createContainer hook already runs `cudaload --oci-hook` (podman's
 * hooks.d, a CDI spec).  It also notes where the hook entry would go.
 *
 * spec_add_hook gives the text with one entry appended to
 * hooks.createContainer, made where missing; every other byte is the
 * original's, so the container's mounts, devices and environment are
 * exactly what the engine wrote.
 */
#ifndef CUDALOAD_RUNTIME_SPEC_H
#define CUDALOAD_RUNTIME_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#define SPEC_MAX (8 * 1024 * 1024)	/* as the hook reads (ocihook/bundle.h) */
#define SPEC_WHY_MAX 160

struct spec_scan {
	char gpu[SPEC_WHY_MAX];		/* what gives it a GPU, or "" */
	char opted_out[SPEC_WHY_MAX];	/* what opted it out, or "" */
	bool hooked;			/* cudaload --oci-hook already a createContainer hook */
	/* where an entry goes: the offset of the closing bracket of the
	 * innermost of createContainer, hooks and the whole that exists, and
	 * whether it has members already */
	size_t close_at;
	enum { SPEC_IN_TOP, SPEC_IN_HOOKS, SPEC_IN_CREATE } level;
	bool nonempty;
};

/* text (len bytes) scanned into s.  0, or -1 with why (malformed, a hooks
 * or createContainer that is not an object or array, named twice). */
int spec_scan(const char *text, size_t len, struct spec_scan *s, char *why, size_t cap);

/* text with entry (one JSON object) appended to hooks.createContainer, as
 * s found it; *out_len its length.  NULL when out of memory. */
char *spec_add_hook(const char *text, size_t len, const struct spec_scan *s, const char *entry,
		    size_t *out_len);

#endif
