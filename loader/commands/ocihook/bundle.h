/* SPDX-License-Identifier: MIT */
/*
 * bundle: what the runtime hands the container hook, read.  The OCI state
 * (on the hook's stdin: the bundle's path, the container's id) and the
 * bundle's config.json: root.path, the NVIDIA device nodes in
 * linux.devices (the container's GPUs), the process.env entries the
 * judgement reads, and whether the container's /run is a tmpfs of its own
 * (a "tmpfs" mount at /run in mounts, as containerd's default spec makes).
 *
 * Both are read whole within bounds (jsonread.h); a field longer than its
 * bound is an error, never cut, and anything malformed is an error: the
 * hook then does nothing.  The parsers take text, so that the unit tests
 * and the fuzzer reach them without files; bundle_load_config reads the
 * file and makes the root absolute and canonical.
 */
#ifndef CUDALOAD_OCIHOOK_BUNDLE_H
#define CUDALOAD_OCIHOOK_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>

#define BUNDLE_STATE_MAX (64 * 1024)
#define BUNDLE_CONFIG_MAX (8 * 1024 * 1024)
#define BUNDLE_ID_MAX 128
#define BUNDLE_ENV_ENTRY_MAX (64 * 1024)
#define BUNDLE_ENV_MAX 64		/* entries kept: the rest are not the judgement's */
#define BUNDLE_MINORS_MAX 64
#define NVIDIA_MAJOR 195		/* /dev/nvidiaN (the kernel module's devices.txt) */

struct bundle {
	char *id;			/* the container's, or NULL */
	char *path;			/* the bundle, absolute */
	char *root;			/* root.path; absolute and canonical once loaded */
	char *env[BUNDLE_ENV_MAX + 1];	/* process.env's LD_LIBRARY_PATH, CONDA_PREFIX,
					 * CUDA_HOME, CUDA_PATH, CUDALOAD_* */
	int n_env;
	int minors[BUNDLE_MINORS_MAX];	/* the container's /dev/nvidiaN */
	int n_minors;
	bool minors_full;		/* more than BUNDLE_MINORS_MAX: all GPUs judged */
	const char *gpus_from;		/* "config.json", "/dev", or NULL: none named */
	bool run_tmpfs;			/* config.json mounts a tmpfs at /run */
};

/* The OCI state in text (len bytes): the bundle (absolute) and the id into
 * b.  0, or -1 with why. */
int bundle_parse_state(const char *text, size_t len, struct bundle *b, char *why, size_t cap);

/* config.json in text (len bytes) into b: root.path (as written), the GPUs,
 * the environment, /run.  0, or -1 with why. */
int bundle_parse_config(const char *text, size_t len, struct bundle *b, char *why, size_t cap);

/* b->path's config.json read (a regular file of at most BUNDLE_CONFIG_MAX
 * bytes) and parsed, the root made absolute (relative to the bundle) and
 * canonical; a root that is the host's own is refused.  0, or -1 with why. */
int bundle_load_config(struct bundle *b, char *why, size_t cap);

/* "nvidiaN" (N digits, below 256): N; else -1. */
long bundle_nvidia_node(const char *name);

/* A GPU of the container, by its minor (once each). */
void bundle_add_minor(struct bundle *b, long minor);

/* What b holds, given back. */
void bundle_free(struct bundle *b);

#endif
