/* SPDX-License-Identifier: MIT */
#include "status.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../common/packages/compat.h"
#include "../../common/decision/decide.h"
#include "../../common/decision/forward.h"
#include "../../common/elf/elfread.h"
#include "../../common/base/json.h"
#include "../../common/decision/judge.h"
#include "../../common/elf/ldso.h"
#include "../../common/stores/patchlist.h"
#include "../../common/decision/pin.h"
#include "../../common/decision/searchlist.h"
#include "../../common/host/probe.h"
#include "../../common/packages/reach.h"
#include "../../common/report/report.h"
#include "../../common/host/tables.h"
#include "../../common/elf/target.h"
#include "../../common/base/atomicfile.h"
#include "../../common/base/utf8.h"
#include "../../common/stores/verdicts.h"
#include "imagewalk.h"
#include "../start/pick.h"

extern const ElfW(Ehdr) __ehdr_start;

enum pstate { P_HELD, P_NOT_HELD, P_UNPATCHED, P_MISSING, P_BROKEN, P_N };
/* Tables of characters, not of pointers: a pointer here would be one more
 * relocation that every start applies, for a command that seldom runs. */
static const char pstate_names[P_N][10] = { "held", "not_held", "unpatched", "missing", "broken" };

/* One recorded program, as judged.  Strings are malloc'd and kept to exit. */
struct prog {
	const char *path;		/* as recorded, on the target */
	enum pstate state;
	const char *machine;		/* "x86_64"; NULL when it was not read */
	bool compat;			/* the decision: a compat package */
	const char *compat_dir;		/* its directory (the candidate's), or NULL */
	char *libcuda;			/* the file it will load, or NULL when unknown */
	char *library_path;		/* the search list, or NULL: none */
	char *ldso;			/* the real loader, or NULL */
	char *pin;			/* the pin directory, or NULL */
	char *why;			/* why it is not held, unpatched, missing or broken */
	char **lines;			/* pin_rivals(): what else names a driver for it */
	int n_lines;
};

/* The machine as --status shows it: its judgement and its programs'. */
struct host_status {
	struct settings *s;
	const char *root, *self;
	long long now;
	int cls, elf_machine;		/* this cudaload's */
	struct judge_in in;		/* this cudaload's machine, no program */
	struct judgement j;		/* the host, its packages and verdicts, the
					 * decision and pin for this machine */
	char store_why[320];
	const char **stale;		/* per candidate: why its verdict is stale, or NULL */
	bool any_stale;
	bool own_pin_needed;
	bool record_unreadable;
	bool walked;			/* no record in the image: its programs walked */
	char record_why[192];
	int record_skipped;
	struct prog *progs;
	size_t n_progs;
	int counts[P_N];
	bool oom;
	bool image;			/* --root: every path shown as the image's */
	int forward;			/* --nfd: forward_newest(), 0 none */
};

__attribute__((format(printf, 2, 3)))
static char *text(struct host_status *m, const char *fmt, ...)
{
	va_list ap;
	char *out = NULL;
	va_start(ap, fmt);
	if (vasprintf(&out, fmt, ap) < 0) {
		out = NULL;
		m->oom = true;
	}
	va_end(ap);
	return out;
}

/* ---- reading ---------------------------------------------------------- */

const char *status_check_root(const char *root)
{
	struct stat st;
	if (stat(root, &st) != 0)
		return strerror(errno);
	if (!S_ISDIR(st.st_mode))
		return "not a directory";
	char *usr = root_path(root, "/usr");
	bool image = usr && stat(usr, &st) == 0 && S_ISDIR(st.st_mode);
	root_path_free(usr, "/usr");
	return !usr ? "out of memory" : image ? NULL : "no usr/ in it: not a system image";
}

void status_unprefix(const char *root, char *s)
{
	size_t n = root_len(root);
	if (!s || !n)
		return;
	char *w = s;
	for (const char *r = s; *r;) {
		bool at_start = r == s || strchr(": (=", r[-1]);
		if (at_start && strncmp(r, root, n) == 0 && r[n] == '/')
			r += n;	/* the image's own path follows */
		else
			*w++ = *r++;
	}
	*w = '\0';
}

/* What the program's PT_INTERP is under the root: -ELOOP a cudaload, 0 a
 * real loader (the patch is gone), else -errno with why. */
static int interp_kind(const char *root, const char *interp, char *why, size_t cap)
{
	char *full = root_path(root, interp);
	struct ldso_info l;
	memset(&l, 0, sizeof l);
	l.fd = -1;
	l.path = full;
	l.from = "PT_INTERP";
	int r = full ? ldso_inspect(&l, why, cap) : -ENOMEM;
	ldso_release(&l);
	root_path_free(full, interp);
	return r;
}

/* Under a root (an image, CUDALOAD_ROOT), pin_system() leaves the shipped
 * pin directories out: their links name the image's files, which a run from
 * here would not get.  The image's own programs will get them, so the
 * status looks for the one beside the program's cudaload in the image:
 * malloc'd, as the image sees it, or NULL. */
static char *image_pin(struct host_status *m, const char *interp, struct pin *pin)
{
	const char *slash = strrchr(interp, '/');
	if (!root_len(m->root) || !slash || !pin->system_dir)
		return NULL;
	char *dir = text(m, "%.*s%s%s", (int)(slash - interp), interp, PIN_SHIPPED_BASE,
			 pin->system_dir);
	char *full = dir ? text(m, "%.*s%s", (int)root_len(m->root), m->root, dir) : NULL;
	bool there = full && access(full, F_OK) == 0;
	free(full);
	if (!there && dir) {
		snprintf(pin->why, sizeof pin->why, "no pin directory %.120s in the image", dir);
		free(dir);
		dir = NULL;
	}
	return dir;
}

/* What a recorded program reaches, as it lies in the root (reach.h). */
struct program_reach {
	const char *root;
	int machine;
	const char *path;
};

static int reach_recorded(void *ctx, struct host *h, struct candidates *c)
{
	const struct program_reach *pr = ctx;
	return reach_discover_program(pr->root, pr->machine, pr->path, h, c);
}

/* The program as --explain would judge it, run through its cudaload. */
static void status_program(struct host_status *m, const struct patchlist_entry *e, struct prog *p)
{
	char why[192];
	struct target t;
	p->path = e->path;
	char *full = root_path(m->root, e->path);
	char *argv[2] = { full, NULL };
	int r = full ? target_from_command(&t, 1, argv, NULL, why, sizeof why) : -ENOMEM;
	if (r < 0) {
		p->state = r == -ENOENT ? P_MISSING : P_BROKEN;
		p->why = r == -ENOENT ? text(m, "no such file: cudaload-patch --reapply drops it from the record")
				      : text(m, "%s", full ? why : "out of memory");
		return;
	}
	p->machine = elfread_machine_name(t.machine);
	r = t.has_interp ? interp_kind(m->root, t.interp, why, sizeof why) : 0;
	if (r != -ELOOP) {
		p->state = r == 0 ? P_UNPATCHED : P_BROKEN;
		p->why = !t.has_interp ? text(m, "statically linked now: no interpreter, so nothing to patch")
			 : r == 0 ? text(m, "its interpreter is %s, not cudaload (replaced by an upgrade?): "
					 "cudaload-patch --reapply patches it again", t.interp)
				  : text(m, "its interpreter %s: %s: it cannot start", t.interp, why);
		return;
	}

	/* the recorded loader, as in the image */
	char *recorded = t.recorded[0] ? root_path(m->root, t.recorded) : NULL;
	if (recorded)
		t.recorded = recorded;
	struct ldso_info l;
	memset(&l, 0, sizeof l);
	l.fd = -1;
	l.path = "";
	bool patched = false;
	char *problem = NULL;
	int ls = pick_ldso(m->s, &t, true, &l, &patched, &problem);
	ldso_release(&l);
	if (ls) {
		p->state = P_BROKEN;
		p->why = text(m, "its loader: %s", problem);
		return;
	}
	p->ldso = text(m, "%s", l.path);

	/* judged as a start of it judges (judge.h): with what this program
	 * alone reaches (its own environment, its RUNPATH, ld.so.cache:
	 * reach.h) and the store's verdicts on them (cudaload --verify
	 * verifies what recorded programs reach); no environment, since a
	 * recorded program runs who knows how */
	struct program_reach pr = { m->root, t.machine, e->path };
	struct judge_in in = m->in;
	in.cls = t.cls;
	in.machine = t.machine;
	in.self = t.interp;
	in.reach = reach_recorded;
	in.reach_ctx = &pr;
	struct judgement *j = malloc(sizeof *j);	/* a host is too large for the stack */
	if (!j) {
		m->oom = true;
		return;
	}
	judge_init(j);
	judge_host(&in, j);
	m->oom |= !j->whole;
	const struct decision *d = &j->d;
	bool need = !d->use_compat && pin_needed(&j->cands, t.cls, t.machine);
	p->library_path = j->list;
	p->compat = d->use_compat;
	p->compat_dir = d->use_compat ? text(m, "%s", j->cands.v[d->chosen].dir) : NULL;
	struct pin *pin = &j->pin;
	if (need && !pin->dir)
		pin->dir = image_pin(m, t.interp, pin);
	p->pin = d->use_compat ? text(m, "%s", p->compat_dir) : pin->dir;
	p->n_lines = judge_rivals(&in, j, full, p->library_path || pin->dir, &p->libcuda, &p->lines);
	char why_unpinned[sizeof pin->why];
	memcpy(why_unpinned, pin->why, sizeof why_unpinned);
	compat_free(&j->cands);	/* the lists and the pin's directory are p's, kept to exit */
	free(j);
	p->state = P_HELD;
	for (int i = 0; i < p->n_lines && p->state == P_HELD; i++)
		if (strncmp(p->lines[i], "not held: ", 10) == 0) {
			p->state = P_NOT_HELD;
			p->why = text(m, "%s", p->lines[i] + 10);
		}
	if (p->state == P_HELD && need && !p->pin) {
		p->state = P_NOT_HELD;
		p->why = text(m, "a compat package for %s is installed and the system driver has no pin (%s)",
			      p->machine ? p->machine : "its machine", why_unpinned);
	}
	if (m->image) {
		status_unprefix(m->root, p->ldso);
		status_unprefix(m->root, p->library_path);
		status_unprefix(m->root, p->pin);
		status_unprefix(m->root, p->libcuda);
		status_unprefix(m->root, p->why);
		for (int i = 0; i < p->n_lines; i++)
			status_unprefix(m->root, p->lines[i]);
	}
}

/* The record under the root into pl; an image without one is walked
 * (imagewalk.h).  -1 when it cannot be read (the status cannot be told). */
static int read_record(struct host_status *m, struct patchlist *pl)
{
	char *path = root_path(m->root, PATCHLIST_FILE);
	char why[sizeof m->record_why - sizeof PATCHLIST_FILE - 2] = "out of memory";
	int r = path ? patchlist_read(path, pl, &m->record_skipped, why, sizeof why) : -1;
	root_path_free(path, PATCHLIST_FILE);
	if (r == 0 && root_len(m->root)) {
		m->walked = true;
		if (imagewalk(m->root, pl) == 0)
			return 0;
		snprintf(m->record_why, sizeof m->record_why, "out of memory");
		m->record_unreadable = true;
		return -1;
	}
	if (r < 0) {
		snprintf(m->record_why, sizeof m->record_why, "%s: %s", PATCHLIST_FILE, why);
		m->record_unreadable = true;
		return -1;
	}
	if (m->record_skipped)
		snprintf(m->record_why, sizeof m->record_why, "%s", why);
	return 0;
}

/* Every program of the record (or the walk) judged once. */
static void status_programs(struct host_status *m)
{
	struct patchlist pl = { 0 };
	if (read_record(m, &pl) < 0)
		return;
	m->progs = calloc(pl.n ? pl.n : 1, sizeof *m->progs);
	if (!m->progs) {
		m->oom = true;
		return;
	}
	m->n_progs = pl.n;
	for (size_t i = 0; i < pl.n; i++) {
		status_program(m, &pl.v[i], &m->progs[i]);
		m->counts[m->progs[i].state]++;
	}
}

/* Can cudaload --verify judge this package here (its verifier's machine)? */
static bool verifiable(const struct host_status *m, const struct candidate *c)
{
	return c->has_lib && c->elf_class == m->cls && c->elf_machine == m->elf_machine;
}

static const char *stale_reason(const struct host_status *m, const struct candidate *c)
{
	switch (m->j.store) {
	case VSTORE_DAMAGED:
		return "the verdict store cannot be used";
	case VSTORE_OTHER_HOST:
		return c->verdict.kind != VERDICT_NONE ? "made on another driver or GPU"
		       : verifiable(m, c) ? "not verified on this driver" : NULL;
	case VSTORE_APPLIES:
		if (c->verdict.state == VSTATE_CHANGED)
			return "its libcuda.so.1 changed since";
		return c->verdict.kind == VERDICT_NONE && verifiable(m, c)
			       ? "not verified: new since the last cudaload --verify" : NULL;
	default:
		return NULL;
	}
}

/* This cudaload's own machine, judged for a program that brings nothing
 * (judge.h): the host, its packages and their verdicts, the decision and
 * the pin as shown. */
static void status_host(struct host_status *m)
{
	m->in = (struct judge_in){
		.s = m->s, .cls = m->cls, .machine = m->elf_machine, .self = m->self, .full = true,
		.stores = JUDGE_STORES_SURVEY, .store_why = m->store_why,
		.store_why_cap = sizeof m->store_why,
	};
	judge_init(&m->j);
	judge_host(&m->in, &m->j);
	m->oom |= !m->j.whole;
	m->own_pin_needed = !m->j.d.use_compat && pin_needed(&m->j.cands, m->cls, m->elf_machine);
	if (m->image)
		status_unprefix(m->root, m->j.pin.dir);
	m->any_stale = m->j.store == VSTORE_OTHER_HOST || m->j.store == VSTORE_DAMAGED;
	m->stale = calloc(m->j.cands.n ? m->j.cands.n : 1, sizeof *m->stale);
	if (!m->stale) {
		m->oom = true;
		return;
	}
	for (size_t i = 0; i < m->j.cands.n; i++) {
		m->stale[i] = stale_reason(m, &m->j.cands.v[i]);
		m->any_stale |= m->stale[i] != NULL;
	}
}

static int exit_status(const struct host_status *m)
{
	if (m->record_unreadable || m->oom)
		return STATUS_UNREADABLE;
	return m->counts[P_HELD] == (int)m->n_progs && !m->any_stale ? STATUS_HOLDS
								     : STATUS_DOES_NOT_HOLD;
}

/* ---- text ------------------------------------------------------------- */

static const char *store_words(const struct host_status *m)
{
	switch (m->j.store) {
	case VSTORE_APPLIES:
		return "made on this driver and GPU";
	case VSTORE_OTHER_HOST:
		return "stale: made on another driver or GPU (run cudaload --verify)";
	case VSTORE_DAMAGED:
		return "cannot be used";
	default:
		return "none: cudaload --verify has not run since boot";
	}
}

static void print_text(FILE *f, const struct host_status *m)
{
	const struct host *h = &m->j.host;
	char v[16], age[40], what[160];
	utf8_printf(f, "host:         %s", platform_name(h->platform));
	if (h->soc[0]) {
		const char *name = tables_soc_name(h->soc);
		utf8_printf(f, " %s%s%s%s", h->soc, name ? " (" : "", name ? name : "", name ? ")" : "");
	}
	if (h->l4t_str[0])
		utf8_printf(f, ", L4T %s", h->l4t_str);
	if (h->driver_str[0])
		utf8_printf(f, ", driver %s", h->driver_str);
	for (int i = 0; i < h->n_gpus && i < MAX_GPUS; i++) {
		int last = tables_arch_last_branch(h->gpus[i].arch);
		utf8_printf(f, "%s%s (%s", i ? ", " : ", GPU ", h->gpus[i].model,
			tables_arch_name(h->gpus[i].arch));
		if (last)
			utf8_printf(f, ", to R%d", last);
		fputc(')', f);
	}
	utf8_printf(f, ", host CUDA %s\n", h->cuda ? cuda_version_format(h->cuda, v, sizeof v) : "unknown");
	if (h->problem[0])
		utf8_printf(f, "              %s\n", h->problem);
	utf8_printf(f, "tables:       NVIDIA's, CUDA %s edition, checked %s\n",
		cuda_version_format(tables_edition, v, sizeof v), tables_checked);
	utf8_printf(f, "policy:       %s (%s)\n", policy_name(m->s->policy), m->s->policy_from);
	utf8_printf(f, "verdicts:     %s%s%s\n", store_words(m), m->j.store == VSTORE_DAMAGED ? ": " : "",
		m->j.store == VSTORE_DAMAGED ? m->store_why : "");
	if (m->j.store != VSTORE_NONE && m->j.store != VSTORE_DAMAGED && m->j.system_verdict.kind != VERDICT_NONE)
		utf8_printf(f, "system:       verified %s ago: %s\n",
			verdict_age(m->j.system_verdict.when, m->now, age, sizeof age),
			verdict_describe(&m->j.system_verdict, what, sizeof what));
	if (!m->j.cands.n)
		utf8_printf(f, "packages:     none\n");
	for (size_t i = 0; i < m->j.cands.n; i++) {
		const struct candidate *c = &m->j.cands.v[i];
		utf8_printf(f, "package:      %s\n", c->dir);
		utf8_printf(f, "              CUDA %s%s%s%s, %s: %s\n",
			c->cuda ? cuda_version_format(c->cuda, v, sizeof v) : "unknown",
			c->cuda_from ? " (from " : "", c->cuda_from ? c->cuda_from : "",
			c->cuda_from ? ")" : "", c->usable ? "usable" : "refused", c->reason);
		if (c->verdict.kind != VERDICT_NONE || m->j.store != VSTORE_NONE)
			report_verdict_text(f, "              ", &c->verdict, m->now);
		if (m->stale[i])
			utf8_printf(f, "              stale: %s (run cudaload --verify)\n", m->stale[i]);
	}
	const char *mname = elfread_machine_name(m->elf_machine);
	if (m->j.d.use_compat)
		utf8_printf(f, "pin:          %s (%s): the chosen package's directory\n",
			m->j.cands.v[m->j.d.chosen].dir, mname ? mname : "?");
	else if (m->j.pin.dir)
		utf8_printf(f, "pin:          %s (%s): %s\n", m->j.pin.dir, mname ? mname : "?",
			m->j.pin.links ? "links to the system driver's files" : "the system driver's own directory");
	else
		utf8_printf(f, "pin:          none (%s): %s\n", mname ? mname : "?",
			m->own_pin_needed ? m->j.pin.why : "not needed: no compat package for this machine");

	if (m->record_skipped)
		utf8_printf(f, "record:       %s: %d line%s skipped (%s)\n", PATCHLIST_FILE, m->record_skipped,
			m->record_skipped == 1 ? "" : "s", m->record_why);
	if (m->walked) {
		utf8_printf(f, "programs:     %zu patched, found in", m->n_progs);
		for (int d = 0; d < IMAGEWALK_N_DIRS; d++)
			utf8_printf(f, "%s %s", d ? "," : "", imagewalk_dirs[d]);
		utf8_printf(f, " (the image keeps no %s)\n", PATCHLIST_FILE);
	} else if (!m->n_progs) {
		utf8_printf(f, "programs:     none recorded in %s\n", PATCHLIST_FILE);
	}
	for (size_t i = 0; i < m->n_progs; i++) {
		const struct prog *p = &m->progs[i];
		utf8_printf(f, "program:      %s: %s\n", p->path, pstate_names[p->state]);
		if (p->state == P_HELD || p->state == P_NOT_HELD)
			utf8_printf(f, "              %s%s, libcuda %s\n", p->compat ? "compat " : "system driver",
				p->compat ? p->compat_dir : "", p->libcuda ? p->libcuda : "unknown");
		if (p->why)
			utf8_printf(f, "              %s\n", p->why);
	}
	int st = exit_status(m);
	utf8_printf(f, "status:       %s", st == STATUS_HOLDS ? "holds" : st == STATUS_DOES_NOT_HOLD
								? "does not hold" : "cannot be told");
	if (m->record_unreadable) {
		utf8_printf(f, ": %s\n", m->record_why);
		return;
	}
	if (st == STATUS_DOES_NOT_HOLD) {
		/* what does not hold first, each with its next step; the held
		 * count after it, never as the reason ("does not hold: 1 of 1
		 * program held" read as a contradiction) */
		const char *sep = ": ";
		for (int k = P_NOT_HELD; k < P_N; k++)
			if (m->counts[k]) {
				utf8_printf(f, "%s%d %s", sep, m->counts[k], pstate_names[k]);
				sep = ", ";
			}
		if (sep[0] == ',')
			utf8_printf(f, " (each program above says why)");
		int n_stale = 0;
		const char *why = NULL;
		for (size_t i = 0; i < m->j.cands.n; i++)
			if (m->stale[i]) {
				utf8_printf(f, "%s%s", n_stale ? ", " : sep[0] == ',' ? "; the verdict on "
									   : ": the verdict on ",
					m->j.cands.v[i].dir);
				why = why ? why : m->stale[i];
				n_stale++;
			}
		if (n_stale)
			utf8_printf(f, " %s stale (%s): run cudaload --verify", n_stale == 1 ? "is" : "are", why);
		utf8_printf(f, "; held: %d of %zu program%s%s\n", m->counts[P_HELD], m->n_progs,
			m->n_progs == 1 ? "" : "s",
			!n_stale && m->j.store == VSTORE_APPLIES ? "; verdicts fresh" : "");
		return;
	}
	if (!m->n_progs)
		utf8_printf(f, ": %s", m->walked ? "no patched program found" : "no program recorded");
	else
		utf8_printf(f, ": %d of %zu program%s held", m->counts[P_HELD], m->n_progs,
			m->n_progs == 1 ? "" : "s");
	utf8_printf(f, "%s\n", m->j.store == VSTORE_APPLIES ? "; verdicts fresh" : "");
}

/* ---- JSON (keys in cudaload(1)) ----------------------------------------- */

static void print_json(FILE *f, const struct host_status *m)
{
	const struct host *h = &m->j.host;
	char v[16];
	static const char store_names[][11] = { "none", "applies", "other_host", "damaged" };
	fprintf(f, "{\"schema\":%d,\"time\":%lld,\"host\":{\"platform\":", JSON_SCHEMA, m->now);
	json_str(f, platform_name(h->platform));
	json_kstr(f, "soc", h->soc[0] ? h->soc : NULL);
	json_kstr(f, "l4t", h->l4t_str[0] ? h->l4t_str : NULL);
	json_kstr(f, "host_driver", h->driver_str[0] ? h->driver_str : NULL);
	json_kstr(f, "host_cuda", h->cuda ? cuda_version_format(h->cuda, v, sizeof v) : NULL);
	json_kstr(f, "host_problem", h->problem[0] ? h->problem : NULL);
	fputs(",\"gpus\":[", f);
	for (int i = 0; i < h->n_gpus && i < MAX_GPUS; i++) {
		if (i)
			fputc(',', f);
		json_str(f, h->gpus[i].model);
	}
	/* each GPU's architecture, in the order of gpus (null: not known) */
	fputs("],\"gpu_architectures\":[", f);
	for (int i = 0; i < h->n_gpus && i < MAX_GPUS; i++) {
		if (i)
			fputc(',', f);
		json_str(f, h->gpus[i].arch ? tables_arch_name(h->gpus[i].arch) : NULL);
	}
	fputs("]},\"tables\":{\"cuda\":", f);
	json_str(f, cuda_version_format(tables_edition, v, sizeof v));
	json_kstr(f, "checked", tables_checked);
	json_kstr(f, "policy", policy_name(m->s->policy));
	fputs("},\"verdicts\":{\"store\":", f);
	json_str(f, store_names[m->j.store <= VSTORE_DAMAGED ? m->j.store : 0]);
	json_kstr(f, "store_problem", m->j.store == VSTORE_DAMAGED ? m->store_why : NULL);
	json_key(f, "system_verdict");
	if (m->j.store == VSTORE_APPLIES || m->j.store == VSTORE_OTHER_HOST)
		report_verdict_json(f, &m->j.system_verdict, m->now);
	else
		fputs("null", f);
	json_kbool(f, "stale", m->any_stale);
	fputs("},\"packages\":[", f);
	for (size_t i = 0; i < m->j.cands.n; i++) {
		if (i)
			fputc(',', f);
		/* the candidate's object of --explain --json, then what --status adds */
		fputs("{\"candidate\":", f);
		report_candidate_json(f, &m->j.cands.v[i], m->now);
		json_kbool(f, "stale", m->stale[i] != NULL);
		json_kstr(f, "stale_why", m->stale[i]);
		fputc('}', f);
	}
	const char *mname = elfread_machine_name(m->elf_machine);
	fputs("],\"pin\":{\"machine\":", f);
	json_str(f, mname);
	json_kstr(f, "pin", m->j.d.use_compat ? m->j.cands.v[m->j.d.chosen].dir : m->j.pin.dir);
	json_kbool(f, "links", !m->j.d.use_compat && m->j.pin.links);
	json_kstr(f, "pin_why", m->j.d.use_compat || m->j.pin.dir ? NULL
				: m->own_pin_needed ? m->j.pin.why
						    : "not needed: no compat package for this machine");
	fputs("},\"record\":", f);
	json_str(f, m->walked ? NULL : PATCHLIST_FILE);
	json_kbool(f, "walked", m->walked);
	fprintf(f, ",\"record_skipped\":%d", m->record_skipped);
	json_kstr(f, "record_problem", m->record_unreadable || m->record_skipped ? m->record_why : NULL);
	fputs(",\"programs\":[", f);
	for (size_t i = 0; i < m->n_progs; i++) {
		const struct prog *p = &m->progs[i];
		fputs(i ? ",{\"path\":" : "{\"path\":", f);
		json_str(f, p->path);
		json_kstr(f, "state", pstate_names[p->state]);
		json_kbool(f, "holds", p->state == P_HELD);
		json_kstr(f, "machine", p->machine);
		bool judged = p->state == P_HELD || p->state == P_NOT_HELD;
		json_kstr(f, "decision", judged ? p->compat ? "compat" : "system" : NULL);
		json_kstr(f, "compat_dir", p->compat_dir);
		json_kstr(f, "libcuda", p->libcuda);
		json_kstr(f, "library_path", p->library_path);
		json_kstr(f, "ldso", p->ldso);
		json_kstr(f, "pin", p->pin);
		json_kstr(f, "why", p->why);
		json_key(f, "pin_over");
		json_strs(f, p->lines, p->n_lines);
		fputc('}', f);
	}
	fputs("],\"counts\":{", f);
	for (int k = 0; k < P_N; k++)
		fprintf(f, "%s\"%s\":%d", k ? "," : "", pstate_names[k], m->counts[k]);
	int st = exit_status(m);
	fputc('}', f);
	json_kbool(f, "holds", st == STATUS_HOLDS);
	fprintf(f, ",\"exit\":%d}\n", st);
}

/* ---- node_exporter's textfile format ------------------------------------ */

/* A label value: the printable form (utf8.h), so the file is UTF-8 and a
 * name cannot end its line, with backslash and double quote escaped. */
static void prom_value(FILE *f, const char *s)
{
	fputc('"', f);
	if (s)
		utf8_quoted(f, s, strlen(s));
	fputc('"', f);
}

static void prom_head(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static const char prom_verdict_names[4][32] = { "cudaload_verdict_age_seconds", "cudaload_verdict_ok",
						"cudaload_verdict_stale", "cudaload_package_verified" };

/* which: 0 age, 1 ok, 2 stale, 3 verified.  A package without a verdict
 * has no age, ok or stale sample unless it is stale (new since the last
 * --verify): a 0 there would read as a fresh verdict; verified says 0. */
static void prom_verdict(FILE *f, const struct host_status *m, const char *package,
			 const struct verdict *v, bool stale, int which)
{
	bool have = v->kind != VERDICT_NONE;
	if ((which < 2 && !have) || (which == 2 && !have && !stale))
		return;
	fprintf(f, "%s{package=", prom_verdict_names[which]);
	prom_value(f, package);
	fprintf(f, "} %lld\n", which == 0 ? m->now - v->when : which == 1 ? (long long)verdict_ok(v)
				 : which == 2 ? (long long)stale : (long long)have);
}

static void print_prometheus(FILE *f, const struct host_status *m)
{
	const struct host *h = &m->j.host;
	char v[16], t[16];
	int st = exit_status(m);
	prom_head(f, "cudaload_holds", "1 when every recorded program holds and no verdict is stale "
				       "(cudaload --status exits 0).");
	fprintf(f, "cudaload_holds %d\n", st == STATUS_HOLDS);
	prom_head(f, "cudaload_status_exit", "The exit status of cudaload --status: 0 holds, 1 does not, "
					     "2 cannot be told.");
	fprintf(f, "cudaload_status_exit %d\n", st);
	prom_head(f, "cudaload_status_timestamp_seconds", "When the status was taken, seconds since the "
							  "epoch (the textfile's age: time() minus this).");
	fprintf(f, "cudaload_status_timestamp_seconds %lld\n", m->now);
	prom_head(f, "cudaload_host_info", "The host: platform, kernel driver, L4T release, host CUDA, "
					   "edition of NVIDIA's tables.");
	fputs("cudaload_host_info{platform=", f);
	prom_value(f, platform_name(h->platform));
	fputs(",driver=", f);
	prom_value(f, h->driver_str);
	fputs(",l4t=", f);
	prom_value(f, h->l4t_str);
	fputs(",cuda=", f);
	prom_value(f, h->cuda ? cuda_version_format(h->cuda, v, sizeof v) : "");
	fputs(",tables=", f);
	prom_value(f, cuda_version_format(tables_edition, t, sizeof t));
	fputs("} 1\n", f);
	prom_head(f, "cudaload_programs", "Programs cudaload-patch recorded as patched, by state: held, "
					  "not_held, unpatched, missing, broken.");
	for (int k = 0; k < P_N; k++)
		fprintf(f, "cudaload_programs{state=\"%s\"} %d\n", pstate_names[k], m->counts[k]);
	prom_head(f, "cudaload_program_info", "Each recorded program: its state and the driver it loads "
					      "(compat, system, or none when it is not judged).");
	for (size_t i = 0; i < m->n_progs; i++) {
		const struct prog *p = &m->progs[i];
		bool judged = p->state == P_HELD || p->state == P_NOT_HELD;
		fputs("cudaload_program_info{path=", f);
		prom_value(f, p->path);
		fprintf(f, ",state=\"%s\",driver=\"%s\"} 1\n", pstate_names[p->state],
			!judged ? "none" : p->compat ? "compat" : "system");
	}
	prom_head(f, "cudaload_package_usable", "1 when the compat package is usable for this machine's "
						"programs by the rules and verdicts.");
	for (size_t i = 0; i < m->j.cands.n; i++) {
		const struct candidate *c = &m->j.cands.v[i];
		fputs("cudaload_package_usable{package=", f);
		prom_value(f, c->dir);
		fputs(",cuda=", f);
		prom_value(f, c->cuda ? cuda_version_format(c->cuda, v, sizeof v) : "");
		fprintf(f, "} %d\n", c->usable);
	}
	static const char help[4][160] = {
		"Age of each stored verdict; package=\"system\" is the system driver's.",
		"1 when the driver passed every step: cuInit, a context and a PTX module on each device.",
		"1 when the verdict is stale: made on another driver or GPU, its libcuda changed, or the "
		"package is new since the last cudaload --verify.",
		"1 when a verdict is stored for the package (fresh or stale), 0 when it is unverified.",
	};
	bool have_system = m->j.store == VSTORE_APPLIES || m->j.store == VSTORE_OTHER_HOST;
	struct verdict none = { 0 };
	for (int w = 0; w < 4; w++) {
		prom_head(f, prom_verdict_names[w], help[w]);
		if (have_system || (w == 2 && m->j.store != VSTORE_NONE) || w == 3)
			prom_verdict(f, m, "system", have_system ? &m->j.system_verdict : &none,
				     m->j.store == VSTORE_OTHER_HOST || m->j.store == VSTORE_DAMAGED, w);
		for (size_t i = 0; i < m->j.cands.n; i++)
			prom_verdict(f, m, m->j.cands.v[i].dir, &m->j.cands.v[i].verdict, m->stale[i] != NULL, w);
	}
}

/* ---- Node Feature Discovery's feature file ------------------------------ */

/* NAME.major and NAME.minor of CUDA cuda: separate integers, which a
 * nodeAffinity's Gt and Lt compare (a "13.1" value they cannot). */
static void nfd_version(FILE *f, const char *name, int cuda)
{
	fprintf(f, STATUS_NFD_PREFIX "%s.major=%d\n" STATUS_NFD_PREFIX "%s.minor=%d\n", name, cuda / 1000,
		name, cuda % 1000 / 10);
}

/* secs since the epoch as RFC 3339 in UTC ("2026-12-01T08:30:00Z"), by
 * the days-to-civil-date arithmetic of the proleptic Gregorian calendar:
 * musl's gmtime_r would bring its time zone state into the loader's one
 * writable page. */
static const char *utc_rfc3339(long long secs, char *buf, size_t cap)
{
	long long days = secs / 86400, rest = secs % 86400;
	if (rest < 0) {
		rest += 86400;
		days--;
	}
	long long z = days + 719468;	/* days since 0000-03-01 */
	long long era = (z >= 0 ? z : z - 146096) / 146097;
	long long doe = z - era * 146097;
	long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	long long mp = (5 * doy + 2) / 153;
	long long day = doy - (153 * mp + 2) / 5 + 1, month = mp < 10 ? mp + 3 : mp - 9;
	long long year = yoe + era * 400 + (month <= 2);
	snprintf(buf, cap, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ", year, month, day, rest / 3600,
		 rest / 60 % 60, rest % 60);
	return buf;
}

/* The node's labels, one NAME=VALUE a line (NFD's local source; names and
 * values within Kubernetes' rules: every value an integer, true or false),
 * after an expiry so that NFD drops them once nothing refreshes the file. */
static void print_nfd(FILE *f, const struct host_status *m)
{
	const struct host *h = &m->j.host;
	const struct decision *d = &m->j.d;
	char expiry[32];
	fputs("# cudaload --status --nfd: this node's CUDA for Node Feature Discovery (cudaload(1))\n", f);
	fprintf(f, "# +expiry-time=%s\n", utc_rfc3339(m->now + STATUS_NFD_EXPIRY_SECONDS, expiry, sizeof expiry));
	/* No driver, nothing to be compatible with: a CUDA label would claim
	 * a CUDA no program here gets. */
	if (h->platform == PLATFORM_NONE)
		fputs("# no NVIDIA GPU or driver: no cuda.* label\n", f);
	else {
		int runtime = d->use_compat ? m->j.cands.v[d->chosen].cuda : h->cuda;
		if (h->cuda)
			nfd_version(f, "cuda.system", h->cuda);
		if (runtime)
			nfd_version(f, "cuda.runtime", runtime);
		if (m->forward)
			nfd_version(f, "cuda.forward", m->forward);
	}
	fprintf(f, STATUS_NFD_PREFIX "compat.usable=%s\n", d->use_compat ? "true" : "false");
	fprintf(f, STATUS_NFD_PREFIX "holds=%s\n", exit_status(m) == STATUS_HOLDS ? "true" : "false");
}

/* ---- files for collectors: the textfile, the feature file -------------- */

/* DIR/NAME, whole or not at all: a collector (node_exporter, NFD's worker)
 * may read it at any moment, so it is put in place whole (atomicfile.h: a
 * temporary no one can name in advance, never a FIFO or a link found
 * there, a dot-file whose name does not end in .prom, which both collectors
 * skip).  Root writes it into a directory that is often a collector's
 * user's: every step goes through the directory's descriptor.  A directory
 * anyone may write to without the sticky bit is refused: there anyone could
 * rename over the file.  option names the file in an error.  0, or -1
 * said. */
static int write_into(const struct host_status *m, const char *dir, const char *name, const char *option,
		      void (*print)(FILE *, const struct host_status *))
{
	const char *why = NULL;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	struct atomic_file a;
	if (dfd < 0 || fstat(dfd, &st) < 0) {
		why = strerror(errno);
	} else if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
		why = "anyone may write there and it is not sticky: not written (chmod +t, or a "
		      "directory only the collector's user writes)";
	} else if (atomic_begin(&a, dfd, name, true) < 0) {
		why = strerror(errno);
	} else {
		FILE *f = atomic_stream(&a);
		if (f)
			print(f, m);
		if (!f || fclose(f) != 0) {
			why = strerror(errno);
			atomic_abort(&a);
		} else if (atomic_commit(&a, name, 0644) < 0) {
			why = strerror(errno);
		}
	}
	if (why)
		fprintf(stderr, "cudaload: %s: %s/%s: %s\n", option, dir, name, why);
	if (dfd >= 0)
		close(dfd);
	return why ? -1 : 0;
}

int status_run(struct settings *s, const char *self, const struct status_options *o)
{
	struct host_status *m = calloc(1, sizeof *m);
	if (!m) {
		fputs("cudaload: --status: out of memory\n", stderr);
		return STATUS_UNREADABLE;
	}
	m->s = s;
	s->visible.devices = NULL;	/* a machine is judged on every GPU it has */
	m->root = s->root;
	m->image = o->image;
	if (m->image)
		status_unprefix(m->root, s->config_path);
	m->self = self;
	m->now = (long long)time(NULL);
	m->cls = __ehdr_start.e_ident[EI_CLASS];
	m->elf_machine = __ehdr_start.e_machine;
	status_host(m);
	if (!m->oom)
		status_programs(m);
	if (m->oom) {
		fputs("cudaload: --status: out of memory\n", stderr);
		return STATUS_UNREADABLE;
	}
	if ((o->nfd || o->nfd_dir) && (m->forward = forward_newest(&m->j.host, m->cls, m->elf_machine)) < 0) {
		fputs("cudaload: --status: out of memory\n", stderr);
		return STATUS_UNREADABLE;
	}
	int st = exit_status(m);
	if (o->textfile_dir && write_into(m, o->textfile_dir, STATUS_TEXTFILE, "--textfile", print_prometheus) < 0)
		st = STATUS_UNREADABLE;
	if (o->nfd_dir && write_into(m, o->nfd_dir, STATUS_NFD_FILE, "--nfd-dir", print_nfd) < 0)
		st = STATUS_UNREADABLE;
	if (o->json)
		print_json(stdout, m);
	else if (o->prometheus)
		print_prometheus(stdout, m);
	else if (o->nfd)
		print_nfd(stdout, m);
	else
		print_text(stdout, m);
	if (fflush(stdout) != 0)
		st = STATUS_UNREADABLE;
	return st;
}
