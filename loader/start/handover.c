/* SPDX-License-Identifier: MIT */
#include "handover.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/base/diag.h"
#include "../../common/base/env.h"
#include "../../common/decision/searchlist.h"
#include "../../common/packages/secure.h"
#include "chain.h"
#include "pick.h"
#include "start.h"

static bool is_variable(const char *entry, const char *name)
{
	size_t n = strlen(name);
	return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

/* "NAME=VALUE", malloc'd. */
static char *variable(const char *name, const char *value)
{
	size_t n = strlen(name) + strlen(value) + 2;
	char *v = malloc(n);
	if (v)
		snprintf(v, n, "%s=%s", name, value);
	return v;
}

/* The environment for the program of `cudaload PROGRAM`: envp with
 * LD_LIBRARY_PATH led by own (the chosen driver's directories; NULL: none)
 * and CUDALOAD_INHERITED_PATH naming them, or the user's list alone.
 * envp itself when there is nothing to hand down, or no memory. */
static char **inheritable_env(char **envp, const char *own, const char *user_llp)
{
	if (!own && !env_get(envp, INHERITED))
		return envp;
	size_t n = 0;
	while (envp[n])
		n++;
	char **out = calloc(n + 3, sizeof *out);
	if (!out)
		return envp;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!is_variable(envp[i], "LD_LIBRARY_PATH") && !is_variable(envp[i], INHERITED))
			out[k++] = envp[i];
	if (own) {
		/* "own" alone: the user had no list; "own:LIST" (LIST may be empty) */
		char *llp = malloc(strlen(own) + (user_llp ? strlen(user_llp) + 2 : 1));
		if (llp)
			strcat(strcat(strcpy(llp, own), user_llp ? ":" : ""), user_llp ? user_llp : "");
		char *entry = llp ? variable("LD_LIBRARY_PATH", llp) : NULL;
		/* the kernel's limit holds for environment strings too (E2BIG) */
		if (!entry || !searchlist_fits_argument(entry) || !(out[k + 1] = variable(INHERITED, own))) {
			free(entry);
			free(llp);
			return envp;	/* without the hand-down: the program itself is right */
		}
		out[k] = entry;
		k += 2;
		diag("descendants inherit LD_LIBRARY_PATH=%s", llp);
		free(llp);
	} else if (user_llp && !(out[k++] = variable("LD_LIBRARY_PATH", user_llp))) {
		return envp;
	}
	out[k] = NULL;
	return out;
}

static void trace_command(char *const *av)
{
	if (!diag_on)
		return;
	char line[1024];
	size_t n = 0;
	for (; *av && n + 4 < sizeof line; av++) {
		int w = snprintf(line + n, sizeof line - n, "%s'%s'", n ? " " : "", *av);
		n += w > 0 ? (size_t)w : 0;
	}
	diag("exec %s", line);
}

void exec_or_die(const char *path, char *const *av, char **envp)
{
	trace_command(av);
	execve(path, av, envp);
	int e = errno;
	die(e == ENOENT || e == ENOTDIR ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC,
	    "%s: %s", path, e == E2BIG ? "argument list and environment too long (E2BIG)"
				      : strerror(e));
}

/* Chain mode: map ld.so here and enter it with the list in the
 * environment; returns only when it cannot (then exec mode). */
static void hand_over_chain(struct start *st, const char *llp)
{
	char why[160];
	struct ldso_info *l = &st->ldso;
	struct chain_ldso cl;
	static const char var[] = "LD_LIBRARY_PATH=";
	size_t n = llp ? strlen(llp) : 0;
	/* the variable: on the stack when short (a heap would cost its mapping) */
	char small[1024];
	char *entry = !llp ? NULL : n + sizeof var <= sizeof small ? small : malloc(n + sizeof var);
	if (entry)
		memcpy((char *)memcpy(entry, var, sizeof var - 1) + sizeof var - 1, llp, n + 1);
	if (!l->n_ph)
		snprintf(why, sizeof why, "no program headers");
	else if ((!llp || entry) && chain_map(l, st->t.machine, &cl, why, sizeof why) == 0) {
		ldso_release(l);
		diag("chain %s at 0x%lx%s%s", l->path, (unsigned long)cl.base, entry ? ", " : "",
		     entry ? entry : "");
		chain_enter(&cl, st->argv, start_program.auxv, start_program.phdr, start_program.phnum,
			    start_program.phent, entry, st->llp_first);
		snprintf(why, sizeof why, "out of memory");
	}
	diag("chain mode: %s: %s; exec mode instead", l->path, entry || !llp ? why : "out of memory");
	ldso_release(l);
	if (entry != small)
		free(entry);
}

/* Exec mode: ld.so with the list as its argument (which the kernel may
 * refuse, E2BIG: then no list, and the program runs: fail open). */
__attribute__((noreturn))
static void hand_over_exec(struct start *st, char *llp, char **envp)
{
	struct target *t = &st->t;
	if (st->as_interp && !st->handed && st->exe_read)
		st->handed = st->exe;	/* read already: program_for_ldso's answer */
	if (st->as_interp && !st->handed)
		st->handed = program_for_ldso(st->argv, st->argc);
	if (st->as_interp)
		t->path = st->handed;
	char *small[64];	/* most argument lists: no heap, no mapping */
	char **av = (size_t)t->argc + 8 <= sizeof small / sizeof *small
			    ? small : calloc((size_t)t->argc + 8, sizeof *av);
	if (!av)
		die(EXIT_CANNOT_EXEC, "out of memory");
	static char opt_library_path[] = "--library-path", opt_argv0[] = "--argv0";
	int k = 0;
	av[k++] = (char *)st->ldso.path;
	if (llp) {
		av[k++] = opt_library_path;
		av[k++] = llp;
	}
	if (st->ldso.argv0) {
		av[k++] = opt_argv0;
		av[k++] = t->argc > 0 ? t->argv[0] : (char *)t->path;
	}
	av[k++] = (char *)t->path;
	for (int i = 1; i < t->argc; i++)
		av[k++] = t->argv[i];
	av[k] = NULL;
	exec_or_die(st->ldso.path, av, envp);
}

/* A set-id program: ld.so mapped here and run as a command on exe_self,
 * as exec mode would run it but without an exec, which would need a
 * descriptor of the program's file kept open across it, left to the
 * program and its children (§6).  Never returns: a set-id program is
 * handed to ld.so no other way. */
__attribute__((noreturn))
static void hand_over_in_place(struct start *st, char *llp)
{
	char why[160];
	struct ldso_info *l = &st->ldso;
	struct chain_ldso cl;
	const char *lead[6];
	size_t k = 0;
	lead[k++] = l->path;
	if (llp) {
		lead[k++] = "--library-path";
		lead[k++] = llp;
	}
	if (l->argv0 && st->argc > 0) {
		lead[k++] = "--argv0";
		lead[k++] = st->argv[0];
	}
	lead[k++] = exe_self;
	if (!l->n_ph) {
		snprintf(why, sizeof why, "no program headers");
	} else if (chain_map(l, st->t.machine, &cl, why, sizeof why) == 0) {
		ldso_release(l);	/* secure: no trace to print */
		chain_enter_command(&cl, st->argv, start_program.auxv, start_program.phdr,
				    start_program.phnum, start_program.phent, lead, k);
		snprintf(why, sizeof why, cl.phdr ? "out of memory" : "its program headers are not loaded");
	}
	die(EXIT_CANNOT_EXEC, "%s: %s (a set-id program is handed to it only in place)", l->path, why);
}

void hand_over(struct start *st)
{
	char **envp = st->envp;
	char *llp = st->list;
	if (st->s.secure)
		secure_env_filter(envp);
	if (!st->as_interp)
		envp = inheritable_env(envp, llp ? st->own : NULL, st->user_llp);
	/* Run as a command with the system driver, nothing to pin, and the
	 * program's own loader: exec the program itself, exactly as without
	 * cudaload. */
	if (!st->as_interp && !llp && strcmp(st->ldso.from, "PT_INTERP") == 0)
		exec_or_die(st->t.path, st->t.argv, envp);
	if (st->in_place)
		hand_over_in_place(st, llp);
	if (st->s.mode == MODE_CHAIN)
		hand_over_chain(st, llp);
	/* A privileged program whose loader cannot be mapped: an exec would
	 * hand it over by a name or a descriptor (§6) */
	if (st->as_interp && st->s.secure)
		die(EXIT_CANNOT_EXEC, "%s: cannot be mapped, and a privileged program is handed to it "
				      "only in this process", st->ldso.path);
	if (llp && !searchlist_fits_argument(llp)) {	/* chain fell back to exec: as above */
		settings_warn(&st->s, "the search list (%zu bytes) is longer than exec mode can pass in "
				      "one argument; the system driver, unpinned", strlen(llp));
		llp = NULL;
	}
	hand_over_exec(st, llp, envp);
}

