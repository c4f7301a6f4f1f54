/* SPDX-License-Identifier: MIT */
/*
 * env: variables of an environment (envp) read as the loaders read them,
 * with no call: a start looks its names up before anything else, and a
 * static-pie has no getenv of its own to trust before libc is set up.
 */
#ifndef CUDALOAD_ENV_H
#define CUDALOAD_ENV_H

#include <stddef.h>

/* Value of NAME in envp, or NULL: the first, as getenv (and musl's ld.so)
 * reads it; env_get_last the last, as glibc's ld.so reads LD_* variables
 * (rtld.c process_envvars: each entry replaces the one before). */
const char *env_get(char *const *envp, const char *name);
const char *env_get_last(char *const *envp, const char *name);
/* env_get of n names in one pass over envp: values[i] for the i-th of
 * names, which are written one after another, each ending in its NUL (a
 * string, not a table of pointers: a static-pie's pointers need
 * relocations, and those land in the loader's one writable page). */
#define ENV_EACH_MAX 10	/* the most names: those beyond it come back NULL */
void env_get_each(char *const *envp, const char *names, const char **values, size_t n);

#endif
