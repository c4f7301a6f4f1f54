/* SPDX-License-Identifier: MIT */
#include "pick.h"

#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/base/diag.h"

/* "PATH (FROM): WHY", malloc'd: only a failure needs it. */
__attribute__((format(printf, 1, 2)))
static char *problem_text(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (p) {
		va_start(ap, fmt);
		vsnprintf(p, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	return p ? p : (char *)"out of memory";
}

/* One place a loader may come from, in pick_ldso's order. */
struct ldso_try {
	const char *path, *from;
	bool explicit;	/* failures are errors */
	bool warn;	/* a configured one: failures are warnings */
	bool named;	/* by a person, not by a program or the system (ldso.h) */
};
enum { LDSO_TRIES = 5 };

/* The places, in order; a NULL path is not one. */
static void ldso_tries(const struct settings *s, const struct target *t, bool as_interp,
		       struct ldso_try tries[LDSO_TRIES])
{
	const char *machine = elfread_machine_name(t->machine), *configured = settings_ldso_for(s, machine);
	/* Named where a message may need it (a start formats nothing else);
	 * static: ldso_info.from keeps pointing at it after the pick. */
	static char cfgkey[32];
	if (configured)
		snprintf(cfgkey, sizeof cfgkey, "config ldso.%s", machine ? machine : "?");
	/* A bad ldso.<machine> in the system-wide config would stop every
	 * patched program: warn and look further, as for other config mistakes.
	 * CUDALOAD_LDSO, named for one run, stays an error. */
	const struct ldso_try all[LDSO_TRIES] = {
		{ s->ldso_env, "CUDALOAD_LDSO", true, false, true },
		{ configured, cfgkey, false, true, true },
		{ t->recorded[0] ? t->recorded : NULL, "recorded by cudaload-patch", false, false, false },
		/* As the interpreter, PT_INTERP is this cudaload: not worth an open. */
		{ !as_interp && t->has_interp && t->interp[0] ? t->interp : NULL, "PT_INTERP", false, false, false },
		{ ldso_standard(t->machine, t->cls), "standard path", true, false, false },
	};
	memcpy(tries, all, sizeof all);
}

/* l aimed at one place: what ldso_inspect is told of it. */
static void aim(struct ldso_info *l, const struct ldso_try *at, const struct target *t)
{
	l->path = at->path;
	l->from = at->from;
	l->named = at->named;
	l->glibc_floor = at->named ? 0 : t->glibc_floor;	/* the program's own loader */
}

bool pick_ldso_first(const struct settings *s, const struct target *t, bool as_interp,
		     struct ldso_info *l)
{
	struct ldso_try tries[LDSO_TRIES];
	ldso_tries(s, t, as_interp, tries);
	for (size_t i = 0; i < LDSO_TRIES; i++) {
		if (tries[i].path) {
			aim(l, &tries[i], t);
			return true;
		}
	}
	return false;
}

int pick_ldso(struct settings *s, const struct target *t, bool as_interp,
	      struct ldso_info *l, bool *patched, char **problem)
{
	const char *machine = elfread_machine_name(t->machine);
	struct ldso_try tries[LDSO_TRIES];
	ldso_tries(s, t, as_interp, tries);
	*patched = t->recorded[0] != '\0';
	for (size_t i = 0; i < LDSO_TRIES; i++) {
		char why[160];
		if (!tries[i].path)
			continue;
		ldso_release(l);
		bool keep = l->keep, command = l->command;
		memset(l, 0, sizeof *l);
		l->keep = keep;
		l->command = command;
		l->fd = -1;
		aim(l, &tries[i], t);
		int r = ldso_inspect(l, why, sizeof why);
		if (r == 0 && (l->machine != t->machine || l->cls != t->cls)) {
			snprintf(why, sizeof why, "is for %s, the program for %s",
				 elfread_machine_name(l->machine) ? elfread_machine_name(l->machine) : "another machine",
				 machine ? machine : "another machine");
			r = -ENOEXEC;
		}
		if (r == 0) {
			diag("loader %s (%s)%s", l->path, l->from,
			     l->argv0 ? ", takes --argv0" : ", no --argv0");
			return 0;
		}
		if (r == -ELOOP && !tries[i].explicit) {
			diag("%s %s is cudaload itself; looking further", l->from, l->path);
			*patched |= strcmp(tries[i].from, "PT_INTERP") == 0;
			if (tries[i].warn)
				settings_warn(s, "%s %s is cudaload itself; using the next loader",
					      l->from, l->path);
			continue;
		}
		if (tries[i].warn) {
			settings_warn(s, "%s %s: %s; using the next loader", l->from, l->path, why);
			continue;
		}
		if (!tries[i].explicit && r == -ENOEXEC) {
			diag("%s %s: %s; looking further", l->from, l->path, why);
			continue;
		}
		*problem = problem_text("%s (%s): %s", l->path, l->from, why);
		return r == -ENOENT || r == -ELOOP ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
	}
	l->path = "";
	*problem = problem_text("no dynamic loader known for machine %d", t->machine);
	return EXIT_NOT_FOUND;
}
