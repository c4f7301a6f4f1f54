/* SPDX-License-Identifier: MIT */
#include "explain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../../common/base/diag.h"
#include "../../common/report/report.h"
#include "status.h"

/* For --explain, the mode that program runs in: a patched one starts
 * cudaload as its interpreter (chain unless configured otherwise or
 * set-id; always with file capabilities); a static one runs directly, and so
 * does one the kernel makes privileged, run as a command. */
static const char *explained_mode(const struct settings *s, const struct target *t,
				  enum mode configured, bool have_program, bool is_static,
				  bool patched, const char **why)
{
	struct stat st;
	if (is_static) {
		*why = "statically linked: it runs directly, without a loader";
		return "direct";
	}
	if (t->privileged & TARGET_FILE_CAPS) {
		*why = patched ? "its interpreter is cudaload; file capabilities: chain keeps them"
			       : "file capabilities: it runs by itself, which keeps them";
		return patched ? "chain" : "direct";
	}
	if (t->privileged && !patched) {
		*why = "set-id: it runs by itself, which keeps that";
		return "direct";
	}
	/* the mode bits, as other users start it (root, who explains, may own it) */
	if (patched && (t->privileged || (stat(t->path, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID))))) {
		*why = "its interpreter is cudaload; set-id: ld.so mapped in place, run as a command";
		return "chain";
	}
	if (patched && configured == MODE_CHAIN) {
		*why = "its interpreter is cudaload";
		return "chain";
	}
	if (have_program && configured == MODE_CHAIN)
		*why = "run as `cudaload PROGRAM`; chain needs cudaload as the interpreter";
	return mode_name(s->mode);
}

/* --explain --root: every path shown as the image's own (the config, the
 * program, its loader, the search list, the pin, the libcuda, what else
 * names one). */
static void image_paths(const char *root, struct settings *s, struct target *t,
			struct ldso_info *l, char *problem, char *llp, struct pin *pin, char *libcuda,
			char **rivals, int n_rivals)
{
	status_unprefix(root, s->config_path);
	for (int i = 0; i < s->n_warnings; i++)
		status_unprefix(root, s->warnings[i]);
	char *p = t->path ? strdup(t->path) : NULL, *lp = l->path ? strdup(l->path) : NULL;
	status_unprefix(root, p);
	status_unprefix(root, lp);
	t->path = p ? p : t->path;
	l->path = lp ? lp : l->path;
	status_unprefix(root, problem);
	status_unprefix(root, llp);
	status_unprefix(root, pin->dir);
	status_unprefix(root, libcuda);
	for (int i = 0; i < n_rivals; i++)
		status_unprefix(root, rivals[i]);
}

void explain(struct start *st, const struct judge_in *in, struct judgement *j)
{
	struct settings *s = &st->s;
	struct target *t = &st->t;
	struct decision *d = &j->d;
	char *llp = st->list;
	/* What `cudaload PROGRAM` of one the kernel makes privileged gets (it
	 * runs by itself), and a patched one with file capabilities (bare). */
	if (st->o.explain && ((t->privileged & TARGET_FILE_CAPS) || (t->privileged && !st->patched))) {
		free(llp);
		llp = NULL;
		d->use_compat = false;
		snprintf(d->reason, sizeof d->reason, "system driver: %s",
			 t->privileged & TARGET_FILE_CAPS ? caps_why : "set-id, it runs by itself");
	}
	char *libcuda = NULL, **rivals = NULL;
	int n_rivals = judge_rivals(in, j, st->have_program ? t->path : NULL, llp != NULL, &libcuda,
				    &rivals);
	if (libcuda)
		diag("libcuda %s", libcuda);
	for (int i = 0; i < n_rivals; i++)
		diag("%s", rivals[i]);
	if (!st->o.explain)
		return;
	const char *mode_why = NULL;
	const char *mode = explained_mode(s, t, st->configured_mode, st->have_program, st->is_static,
					  st->patched, &mode_why);
	if (st->o.root)
		image_paths(st->o.root, s, t, &st->ldso, st->ldso_problem, llp, &j->pin, libcuda, rivals,
			    n_rivals);
	struct report r = { s, &j->host, &j->cands, d, st->have_program ? t->path : NULL,
			    st->have_program && !st->is_static ? &st->ldso : NULL,
			    st->ldso_status ? st->ldso_problem : NULL, llp, &j->system_verdict,
			    (long long)time(NULL), mode, mode_why, &j->pin, libcuda, rivals, n_rivals };
	(st->o.json ? report_json : report_text)(stdout, &r);
	exit(fflush(stdout) != 0 ? 1 : st->ldso_status);
}

