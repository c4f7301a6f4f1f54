/* SPDX-License-Identifier: MIT */
/*
 * secure: what changes when the program runs set-id (AT_SECURE).
 *
 * An ordinary user must not steer a privileged program.  settings.c already
 * ignores every CUDALOAD_* variable and reads only a root-owned default
 * config; here, compat and driver directories are kept only when they and
 * every directory above them are owned by root and not writable by group or
 * others (a sticky directory above them may be: /nix/store), and the environment handed to ld.so loses what glibc's own list of
 * unsafe variables names (glibc 2.36's ld.so run as a command in secure mode
 * aborts on LD_LIBRARY_PATH; glibc would drop these for a set-id program
 * anyway, so the program sees what it would see without cudaload).
 */
#ifndef CUDALOAD_SECURE_H
#define CUDALOAD_SECURE_H

#include <stdbool.h>
#include <sys/types.h>

#include "compat.h"
#include "../host/probe.h"

/* Are path and all directories above it root-owned and writable only by
 * root, or, above the path, sticky? */
bool secure_path_trusted(const char *path);

/* The same where `owner` may own them too: what no user but root and owner
 * can change (a user's own package, for a verifier run by that user). */
bool secure_path_owned(const char *path, uid_t owner);

/* May no one but root and owner change the package dir (looked up under
 * root): the directory, every one above it (secure_path_owned), and the
 * libcuda.so.1 in it?  A verifier that loads the package runs its code as
 * owner (root's --verify, a user's, first use). */
bool secure_package_owned(const char *root, const char *dir, uid_t owner);

/* Drop untrusted driver directories and make untrusted candidates unusable. */
void secure_filter(const char *root, struct host *h, struct candidates *c);

/* Is NAME=... one of glibc's unsafe variables for set-id programs? */
bool secure_env_unsafe(const char *entry);

/* Remove the unsafe variables from envp in place (the strings stay). */
void secure_env_filter(char **envp);

#endif
