/* SPDX-License-Identifier: MIT */
#include "reuse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/base/alloc.h"
#include "../../common/base/diag.h"
#include "../../common/base/env.h"
#include "../../common/base/sys.h"
#include "../../common/packages/reach.h"
#include "../../common/stores/verdicts.h"
#include "pick.h"
#include "start.h"

/* This binary's GNU build ID, from its own program headers in memory: what
 * makes a prepared decision this build's (prepared.h).  NULL when none. */
static const unsigned char *build_id(size_t *len)
{
	const unsigned char *base = (const unsigned char *)&__ehdr_start;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + __ehdr_start.e_phoff);
	uintptr_t bias = (uintptr_t)base;	/* static-pie: the header is at address 0 */
	for (int i = 0; i < __ehdr_start.e_phnum; i++) {
		if (ph[i].p_type != PT_NOTE)
			continue;
		const unsigned char *p = (const unsigned char *)(bias + ph[i].p_vaddr);
		const unsigned char *end = p + ph[i].p_memsz;
		while (end - p >= 12) {
			const uint32_t *n = (const uint32_t *)(const void *)p;
			size_t name = (n[0] + 3) & ~3u, desc = (n[1] + 3) & ~3u;
			if ((size_t)(end - p) - 12 < name + desc)
				break;
			if (n[2] == NT_GNU_BUILD_ID && n[0] == 4 && memcmp(p + 12, "GNU", 4) == 0) {
				*len = n[1];
				return p + 12 + name;
			}
			p += 12 + name + desc;
		}
	}
	*len = 0;
	return NULL;
}

/* Can this start use a prepared decision, or write one (prepared.h)?  A
 * patched program, not set-id, on a host that may be a Jetson, that names
 * no directories of its own: no DT_RPATH or DT_RUNPATH, no LD_LIBRARY_PATH
 * (what its environment names is looked at each start: brings_package). */
bool reuse_fits(const struct start *st)
{
	const char *rpath = NULL, *runpath = NULL, *cudart = NULL;
	if (st->for_host)
		return !st->s.secure && !st->user_llp && probe_tegra_possible(st->s.root);
	if (!st->as_interp || st->s.secure || st->bare || st->o.explain || st->is_static ||
	    st->ldso_status || st->user_llp || !probe_tegra_possible(st->s.root))
		return false;
	reach_paths_from_memory(start_program.phdr, start_program.phnum, start_program.phent,
				&rpath, &runpath, &cudart);
	return !rpath && !runpath;
}

/* Where this start keeps its prepared decision: root's for root, a user's
 * own in XDG_RUNTIME_DIR (which the user's session owns) for another. */
static int prepared_place(const struct start *st, bool users, char *out, size_t cap)
{
	if (!users)
		return prepared_path(out, cap, st->s.root, PREPARED_DIR, st->t.machine);
	/* the user's own only: a directory of that uid that nobody else may
	 * enter (as the verdict store's, verdicts.h); one stat */
	const char *xdg = env_get(st->envp, "XDG_RUNTIME_DIR");
	struct stat sb;
	if (!xdg || xdg[0] != '/' || stat(xdg, &sb) < 0 || !S_ISDIR(sb.st_mode) ||
	    sb.st_uid != (uid_t)getauxval(AT_UID) || (sb.st_mode & 077))
		return -1;
	return prepared_path(out, cap, xdg, "/cudaload", st->t.machine);
}

/* The key of this start's prepared decision (prepared.h): 0 when this
 * binary has no build ID to tell its decisions from another build's. */
static uint64_t key_of(const struct start *st)
{
	size_t bl;
	const unsigned char *b = build_id(&bl);
	const char *slash = st->self ? strrchr(st->self, '/') : NULL;
	return b ? prepared_key(b, bl, st->self, slash ? (size_t)(slash - st->self) : 0, &st->s,
				st->t.cls, st->t.machine)
		 : 0;
}

/* Where the program's own package would be (PREFIX/cuda-compat), by_name
 * (program_by_name) or from exe, into dir (cap bytes): false when it has
 * none or the name does not fit. */
static bool own_package(const char *by_name, bool real_root, const char *exe, char *dir, size_t cap)
{
	if (!by_name || !real_root)
		return reach_own_env(by_name ? by_name : exe, dir, cap);
	/* by name on the real root, DIR/../cuda-compat: whatever DIR is
	 * called, a package there sends the start down the full path, which
	 * looks in PREFIX/bin's parent alone */
	static const char up[] = "/../cuda-compat";
	const char *slash = strrchr(by_name, '/');
	size_t dl = slash ? (size_t)(slash - by_name) : 1;
	if (dl + sizeof up > cap)
		return false;
	memcpy(dir, slash ? by_name : ".", dl);
	memcpy(dir + dl, up, sizeof up);
	return true;
}

/* Does the program bring a package the prepared decision did not judge:
 * its own environment's (PREFIX/cuda-compat), CONDA_PREFIX's cuda-compat,
 * CUDA_HOME's (else CUDA_PATH's) compat/ (reach.h)?  A stat each. */
static bool brings_package(struct start *st, const struct prepared_view *v)
{
	char full[1024], *exe = st->exe;	/* one buffer: start-up counts its stack pages */
#define VARS(X) X(CONDA, "CONDA_PREFIX") X(HOME, "CUDA_HOME") X(PATH, "CUDA_PATH")
	enum { VARS(ENV_ID) N_NAMES };
	static const char names[] = VARS(ENV_NAME);
	static const unsigned char lens[] = { VARS(ENV_LEN) };
#undef VARS
	const char *vals[N_NAMES];
	env_get_each(st->envp, names, lens, vals, N_NAMES);
	const char *conda = vals[CONDA], *home = vals[HOME] ? vals[HOME] : vals[PATH];
	size_t rl = root_len(st->s.root);
	/* By the name the program was run by where that finds the same (under
	 * a root the full path takes the name too, reach_more); else
	 * /proc/self/exe's.  Exec mode hands ld.so the name /proc/self/exe
	 * gives: found here once, by name where that is it, else read onto
	 * the stack, whatever finds the package.  Chain mode needs none. */
	bool chain = st->s.mode == MODE_CHAIN;
	const char *by_name = chain ? NULL : (st->handed = program_by_real_name(st->argv, st->argc));
	if (!by_name && (chain || rl))
		by_name = program_by_name(st->argv, st->argc, st->s.root);
	bool need_exe = chain ? !by_name : !st->handed;
	if (need_exe && !exe_name(exe, EXE_CAP))
		return true;	/* no /proc, gone, or a long name: the full path sees to it */
	st->exe_read = need_exe;	/* program_for_ldso's answer, for exec mode */
	if (rl >= sizeof full / 2)
		return true;
	memcpy(full, st->s.root, rl);
	for (int k = 0; k < 3; k++) {
		const char *base = k == 1 ? conda : home, *tail = k == 1 ? "/cuda-compat" : "/compat";
		char *dir = full + rl;
		size_t cap = sizeof full - rl;
		if (k == 0 ? !own_package(by_name, !rl, exe, dir, cap)
			   : !base || base[0] != '/' || snprintf(dir, cap, "%s%s", base, tail) >= (int)cap)
			continue;
		struct stat sb;
		if (stat(full, &sb) == 0 && S_ISDIR(sb.st_mode) &&
		    !prepared_has_candidate(v, sb.st_dev, sb.st_ino))
			return true;
	}
	return false;
}

/* Exec mode: the loader as the prepared decision kept it, where the pick
 * would look there first, the file is the one read then (one stat) and
 * what it said then settles what it takes (ldso_settle_known): no open and
 * no read of it.  Else the pick reads it (pick_loader). */
static bool loader_from_prepared(struct start *st, const struct prepared_view *v)
{
	struct ldso_info *l = &st->ldso;
	const struct prepared_loader *kept = &v->loader;
	if (!kept->path || !pick_ldso_first(&st->s, &st->t, st->as_interp, l) ||
	    strcmp(kept->path, l->path) != 0 || (l->named && !kept->named) ||
	    !ldso_settle_known(l, kept->kind, kept->minor) || !prepared_loader_holds(kept))
		return false;
	/* the key's: a loader for another machine or class is never kept */
	l->machine = st->t.machine;
	l->cls = st->t.cls;
	st->patched = st->t.recorded[0] != '\0';	/* as pick_ldso says as the interpreter */
	st->llp_first = l->kind == LDSO_MUSL;
	st->ldso_later = false;
	return true;
}

/* The choice from a prepared decision that still holds (prepared.h): a
 * readlink, a stat per input, the program's own environment. */
bool reuse_take(struct start *st)
{
	uint64_t key = reuse_fits(st) ? key_of(st) : 0;
	if (!key)
		return false;
	unsigned uid = (unsigned)getauxval(AT_UID);
	char *path = st->exe;	/* free until brings_package reads the name into it */
	struct prepared_view v;
	const char *why = "none";
	bool held = false;
	for (int users = 0; users < 2 && !held; users++) {
		if ((users && uid == 0) || prepared_place(st, users, path, EXE_CAP) < 0)
			break;
		held = prepared_check(path, key, st->prepared, &v, &why);
		if (held && uid != 0 && !users && v.users_stores) {
			held = false;	/* a user's verdicts count here: root's is root's */
			why = "root's is not this user's (users' verdict stores count on this host)";
		}
	}
	if (held && brings_package(st, &v)) {
		held = false;
		why = "the program's environment names a package it did not judge";
	}
	if (diag_on) {
		/* the full path, whole, and nothing written: the trace's start
		 * looks wider than one without it (packages on a host without a GPU) */
		diag("prepared decision: %s%s", held ? "holds (the full path runs for this trace)" : why,
		     held ? "" : "; a start without CUDALOAD_DEBUG writes one");
		return false;
	}
	if (!held)
		return false;
	if (st->ldso_later && !loader_from_prepared(st, &v))
		pick_loader(st);
	st->list = v.list[0] ? (char *)v.list : NULL;
	return true;
}

/* Keep what the full path decided for the next start (prepared.h): unless
 * a package the program's environment named was among those judged (then
 * the decision is the program's, not the host's). */
void reuse_keep(struct start *st, struct prepared_record *rec, const struct host *h,
		const struct candidates *c, const struct decision *d)
{
	/* the origins reach.h gives what the environment names (no table:
	 * pointers would land in the loader's one writable page) */
	for (size_t i = 0; i < c->n; i++) {
		const char *o = c->v[i].origin;
		if (strcmp(o, "environment") == 0 || strcmp(o, "CONDA_PREFIX") == 0 ||
		    strncmp(o, "CUDA_", 5) == 0) {
			return;	/* the decision is the program's, not the host's */
		}
	}
	unsigned uid = (unsigned)getauxval(AT_UID);
	bool users = uid != 0;
	char path[CL_PATH_MAX / 4];
	const struct ldso_info *l = &st->ldso;
	struct prepared_decision pd = {
		.key = key_of(st), .cands = c, .compat = d->use_compat, .list = st->list,
		.reason = d->reason, .users_stores = h->platform != PLATFORM_TEGRA,
		.loader = { .path = st->ldso_status == 0 && l->path && l->path[0] ? l->path : NULL,
			    .named = l->named, .kind = l->file_kind,
			    .minor = l->file_kind == 'g' ? l->glibc_minor : 0 },
	};
	if (!pd.key)
		return;
	bool lasting = false;
	char *store = users && pd.users_stores ? verdict_user_store(st->envp, uid, &lasting) : NULL;
	pd.user_store = store;
	const char *why;
	if (prepared_place(st, users, path, sizeof path) == 0) {
		char *slash = strrchr(path, '/');
		*slash = '\0';
		mkdir(path, users ? 0700 : 0755);
		*slash = '/';
		prepared_write(rec, path, &pd, &why);	/* not written: the next start probes */
	}
	free(store);
}

