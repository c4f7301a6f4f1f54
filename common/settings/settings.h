/* SPDX-License-Identifier: MIT */
/*
 * settings: what the user asked for, from the config file and the environment
 * (CUDALOAD_*, and the GPUs a program sees).
 *
 * Precedence: command line > environment > config file > defaults.  In
 * secure mode (AT_SECURE) the environment is ignored entirely and only the
 * default config file is read, and only when root owns it and neither group
 * nor others may write it.  A bad line is reported with file and line number
 * and skipped; a config problem never stops the program from running.
 */
#ifndef CUDALOAD_SETTINGS_H
#define CUDALOAD_SETTINGS_H

#include <stdbool.h>

#include "../base/env.h"
#include "../base/sys.h"
#include "../host/visible.h"

enum policy { POLICY_AUTO, POLICY_COMPAT, POLICY_SYSTEM };
enum mode { MODE_EXEC, MODE_CHAIN };

/* Entries of CUDALOAD_COMPAT_PATH, and compat and driver_dir lines, each
 * (man/cudaload.1); more are dropped with a warning. */
#define CONFIG_MAX_LIST 64
#define CONFIG_MAX_LDSO 8
#define CONFIG_MAX_WARNINGS 16

struct ldso_entry {
	char machine[16];		/* "aarch64" */
	char *path;
};

struct settings {
	bool secure;
	bool debug;
	enum policy policy;
	const char *policy_from;	/* "default", "config", "CUDALOAD_POLICY", "--policy" */
	enum mode mode;
	bool policy_locked, mode_locked;	/* set by a stronger source than the file */
	bool first_use_off;		/* "first_use = off" (CUDALOAD_FIRST_USE=off):
					 * only --verify asks the driver */
	bool first_use_locked;		/* set by the environment */
	const char *root;		/* CUDALOAD_ROOT (in the environment), or "" */
	char *config_path;		/* the file read, or NULL: config_path_here when it
					 * fits, else malloc'd (settings_free) */
	char config_path_here[128];	/* so that a start with a config file allocates
					 * nothing (a heap's first page is a fault) */
	char *ldso_env;			/* CUDALOAD_LDSO, or NULL */
	struct visible_ask visible;	/* the GPUs the program sees: CUDA_VISIBLE_DEVICES
					 * and CUDA_DEVICE_ORDER (none when secure) */
	/* Lists grow on the heap (up to CONFIG_MAX_LIST entries): a struct of
	 * fixed arrays would sit on the start-up's stack, a page of it. */
	char **compat_env;		/* CUDALOAD_COMPAT_PATH entries */
	int n_compat_env;
	char **compat;			/* config "compat" entries, else the defaults
					 * (config_default_compat, not to be written) */
	int *compat_cuda;		/* "compat = DIR cuda=X.Y": X.Y, else 0 */
	int n_compat;
	bool compat_from_config;
	char **driver_dirs;
	int n_driver_dirs;
	size_t cap_compat_env, cap_compat, cap_compat_cuda, cap_driver_dirs;	/* room, array_room() */
	bool full_compat_env, full_compat, full_driver_dirs;	/* past CONFIG_MAX_LIST: warned */
	struct ldso_entry ldso[CONFIG_MAX_LDSO];
	int n_ldso;
	char *runtime;			/* "runtime = ": the OCI runtime cudaload-runtime
					 * runs next, or NULL */
	char *warnings[CONFIG_MAX_WARNINGS];	/* what was printed about the settings */
	int n_warnings;
};

/* Print "cudaload: <msg>" on stderr and keep it for --explain; in secure
 * mode one line without the message (a root-only config's words would
 * reach the user's stderr). */
__attribute__((format(printf, 2, 3)))
void settings_warn(struct settings *s, const char *fmt, ...);

/* Default compat globs (docs/design.md §5). */
extern const char *const config_default_compat[];
extern const int config_default_compat_n;

/* Environment settings (none when secure).  envp is the process environment. */
void settings_from_env(struct settings *s, char *const *envp, bool secure);

/* Read the config: CUDALOAD_CONFIG if set (not in secure mode), else
 * /etc/cudaload.conf under the root, else ../etc/cudaload.conf beside
 * self_path (the cudaload binary's path; may be NULL).
 * Environment values already set take precedence over the file's. */
void settings_load_config(struct settings *s, char *const *envp, const char *self_path);

/* Parse config text (exposed for tests); `name` is used in messages. */
void settings_parse_config(struct settings *s, const char *text, const char *name);

int policy_parse(const char *text, enum policy *out);
const char *policy_name(enum policy p);
const char *mode_name(enum mode m);

/* The configured loader for a machine name, or NULL. */
const char *settings_ldso_for(const struct settings *s, const char *machine);

void settings_free(struct settings *s);

#endif
