/* SPDX-License-Identifier: MIT */
/*
 * env: variables of an environment (envp) read as the loaders read them,
 * with no call: a start looks its names up before anything else, and a
 * static-pie has no getenv of its own to trust before libc is set up.
 * Names come with their lengths known at build time: a start reads a
 * dozen, and measuring each at every lookup cost more than the lookup.
 */
#ifndef CUDALOAD_ENV_H
#define CUDALOAD_ENV_H

#include <stddef.h>
#include <string.h>

/* Value of the first entry "NAME=" of envp (len bytes of name), or NULL,
 * as getenv (and musl's ld.so) reads it; env_find_last the last, as
 * glibc's ld.so reads LD_* variables (rtld.c process_envvars: each entry
 * replaces the one before). */
const char *env_find(char *const *envp, const char *name, size_t len);
const char *env_find_last(char *const *envp, const char *name, size_t len);
/* The same for a name written out: its length folds to a constant. */
static inline const char *env_get(char *const *envp, const char *name)
{
	return env_find(envp, name, strlen(name));
}
static inline const char *env_get_last(char *const *envp, const char *name)
{
	return env_find_last(envp, name, strlen(name));
}

/* env_find of n names in one pass over envp: values[i] for the i-th of
 * names, which are written one after another, each ending in its NUL (a
 * string, not a table of pointers: a static-pie's pointers need
 * relocations, and those land in the loader's one writable page), its
 * length lens[i].  A list of names is written once, as ENV_LIST(X) { X(ID,
 * "NAME") ... }, and gives the three: enum { ENV_LIST(ENV_ID) N },
 * names[] = ENV_LIST(ENV_NAME), lens[] = { ENV_LIST(ENV_LEN) }. */
#define ENV_EACH_MAX 10	/* the most names: those beyond it come back NULL */
void env_get_each(char *const *envp, const char *names, const unsigned char *lens,
		  const char **values, size_t n);
#define ENV_ID(id, name) id,
#define ENV_NAME(id, name) name "\0"
#define ENV_LEN(id, name) sizeof name - 1,

#endif
