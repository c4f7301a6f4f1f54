/* SPDX-License-Identifier: MIT */
#include "decide.h"

#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../elf/elfread.h"
#include "../host/tables.h"

__attribute__((format(printf, 2, 3)))
static bool refuse(struct candidate *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof c->reason, fmt, ap);
	va_end(ap);
	c->usable = false;
	return false;
}

/* A refusal because the tables have no row for it: a verdict may lift it. */
#define unknown(c, ...) ((c)->unknown = true, refuse((c), __VA_ARGS__))

/* Checks every policy applies: a library the program can load at all. */
static bool loadable(struct candidate *c, int prog_class, int prog_machine)
{
	char a[24], b[24];
	if (!c->has_lib)
		return refuse(c, "no usable libcuda.so.1 (%s)", c->lib_problem);
	if (c->elf_machine != prog_machine || c->elf_class != prog_class)
		return refuse(c, "libcuda is %s ELF%d, the program is %s ELF%d",
			      elfread_machine_label(c->elf_machine, a, sizeof a),
			      c->elf_class == ELFCLASS64 ? 64 : 32,
			      elfread_machine_label(prog_machine, b, sizeof b),
			      prog_class == ELFCLASS64 ? 64 : 32);
	return true;
}

/* Compare full driver versions (a missing patch counts as 0). */
static int driver_cmp(const struct driver_version *a, const struct driver_version *b)
{
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	int pa = a->patch < 0 ? 0 : a->patch, pb = b->patch < 0 ? 0 : b->patch;
	return pa < pb ? -1 : pa > pb;
}

/* The tables do not know a CUDA newer than their edition: say which row
 * is missing. */
static bool unknown_release(const struct host *h, struct candidate *c)
{
	char v[16], w[16], row[48];
	if (h->platform == PLATFORM_TEGRA)
		snprintf(row, sizeof row, "L4T r%d", h->l4t.major);
	else
		snprintf(row, sizeof row, "branch %d", h->driver.major);
	return unknown(c, "CUDA %s is newer than cudaload's tables (CUDA %s edition): unknown; the %s table needs a row for %s",
		       cuda_version_format(c->cuda, v, sizeof v), cuda_version_format(tables_edition, w, sizeof w),
		       h->platform == PLATFORM_TEGRA ? "CUDA for Tegra" : "forward-compatibility",
		       row);
}

/* 803 comes when the compat driver is not newer than the kernel's. */
static bool driver_newer(const struct host *h, struct candidate *c)
{
	char a[32];
	if (driver_cmp(&c->lib_driver, &h->driver) > 0)
		return true;
	return refuse(c, "its driver %s is not newer than the host's %s (cuInit would fail with 803)",
		      driver_version_format(&c->lib_driver, a, sizeof a), h->driver_str);
}

/* The note is NVIDIA's statement of the hosts its package supports (the
 * container toolkit decides from it first): where it lists driver
 * branches, the host's branch in the list and a compat driver newer than
 * the host's make the package usable, with no table, so a CUDA newer than
 * the tables is taken on it.  1 usable, 0 refused, -1 the note does not
 * speak (none, unreadable, or no driver list, as on Orin). */
static int note_decides(const struct host *h, struct candidate *c)
{
	char v[16], w[16], b[32];
	int branch = h->driver.major;

	if (!c->has_note || !c->note.has_drivers || !h->have_driver)
		return -1;
	char list[160] = "";
	bool listed = false;
	for (int i = 0; i < c->note.n_drivers; i++) {
		listed |= c->note.drivers[i] == branch;
		size_t n = strlen(list);
		snprintf(list + n, sizeof list - n, "%s%d", i ? "," : "", c->note.drivers[i]);
	}
	if (!listed)
		return refuse(c, "its note lists driver branches %s, not the host's %d", list, branch);
	if (!c->has_lib_driver)
		return refuse(c, "its note lists the host branch %d, but its file name has no driver version to compare with the host's %s",
			      branch, h->driver_str);
	if (!driver_newer(h, c))
		return 0;
	int n = snprintf(c->reason, sizeof c->reason,
			 "its note lists the host branch %d and its driver %s is newer than the host's %s",
			 branch, driver_version_format(&c->lib_driver, b, sizeof b), h->driver_str);
	if (c->cuda > tables_edition && n > 0 && (size_t)n < sizeof c->reason)
		snprintf(c->reason + n, sizeof c->reason - (size_t)n,
			 "; taken on the package's own note: the tables (CUDA %s edition) do not know CUDA %s",
			 cuda_version_format(tables_edition, w, sizeof w), cuda_version_format(c->cuda, v, sizeof v));
	return 1;
}

static bool tegra_allows(const struct host *h, struct candidate *c)
{
	char v[16], w[16];
	bool orin = strcmp(h->soc, "tegra234") == 0, thor = strcmp(h->soc, "tegra264") == 0;

	/* Thor's r39.2 repository ships cuda-compat-13-2 595.58.03, older than
	 * its own 595.78 driver: the 803 rule holds on Thor as anywhere. */
	if (thor && c->has_lib_driver && h->have_driver && !driver_newer(h, c))
		return false;
	if (!h->cuda)
		return unknown(c, "host driver unknown: %s", h->problem);
	if (c->cuda <= h->cuda)
		return refuse(c, "CUDA %s is not newer than the host driver's %s",
			      cuda_version_format(c->cuda, v, sizeof v), cuda_version_format(h->cuda, w, sizeof w));
	/* On Thor NVIDIA ships the data-center package (cuda-compat-13-4 with
	 * libcuda.so.615.31); on Xavier and Orin such a package is not theirs. */
	if (c->has_lib_driver && !thor)
		return refuse(c, "data-center compat package (driver %d) on %s; only Thor takes those",
			      c->lib_driver.major, h->soc);
	if (c->orin_only && !orin)
		return refuse(c, "compat_orin is for Orin (tegra234), this is %s", h->soc);
	if (!c->orin_only && orin && c->cuda >= 13000)
		return refuse(c, "CUDA %s compat for Orin ships as compat_orin; this one is for Thor",
			      cuda_version_format(c->cuda, v, sizeof v));
	/* The application note's explicit answers first: it is written for
	 * Jetson, where a note's driver list is the data-center one's.  Where
	 * it is silent (a release or a CUDA it does not know), Thor's
	 * data-center package is taken on its note. */
	int known = c->cuda > tables_edition ? -1 : tables_jetson_compat(h->l4t.major, c->cuda);
	switch (known) {
	case 1:
		snprintf(c->reason, sizeof c->reason, "CUDA %s is supported on L4T r%d",
			 cuda_version_format(c->cuda, v, sizeof v), h->l4t.major);
		return true;
	case 0:
		return refuse(c, "NVIDIA does not support CUDA %s compat on L4T r%d",
			      cuda_version_format(c->cuda, v, sizeof v), h->l4t.major);
	}
	int note = thor ? note_decides(h, c) : -1;
	if (note >= 0)
		return note;
	if (c->cuda > tables_edition)
		return unknown_release(h, c);
	return unknown(c, "L4T r%d is not in the compat table", h->l4t.major);
}

/* 804 comes if any visible GPU is of a brand without forward compatibility;
 * a note's device list names the brands its package supports. */
static bool devices_allow(const struct host *h, struct candidate *c)
{
	if (h->unsupported_gpu) {
		const struct dgpu *g = &h->gpus[h->unsupported_gpu - 1];
		char why[80];
		if (g->error)	/* unknown is not known good: fail safe */
			return refuse(c, "GPU %s cannot be identified (%s): it may not support forward compatibility (cuInit could fail with 804)",
				      g->bus, probe_gpu_problem(g, why, sizeof why));
		return refuse(c, "%s (%s) does not support forward compatibility (cuInit would fail with 804)",
			      g->model, tables_brand_name(g->brand));
	}
	if (!c->has_note || !c->note.has_devices)
		return true;
	for (int k = 0; k < h->n_gpus && k < MAX_GPUS; k++) {
		bool listed = h->gpus[k].hidden;
		for (int i = 0; i < c->note.n_devices; i++)
			listed |= c->note.devices[i] == h->gpus[k].brand;
		if (!listed)
			return refuse(c, "its note's device list leaves out %s (brand %d, %s)",
				      h->gpus[k].model, h->gpus[k].brand,
				      tables_brand_name(h->gpus[k].brand));
	}
	return true;
}

/* A compat libcuda is a user-mode driver of its branch: where a GPU's
 * architecture ended at an older branch (Volta at R580), the package
 * initialises and then cannot drive it.  The note lists branches and
 * brands, not chips, so this comes first (docs/design.md §5d). */
static bool arch_allows(const struct host *h, struct candidate *c)
{
	char v[16];
	if (!h->retired_gpu)
		return true;
	const struct dgpu *g = &h->gpus[h->retired_gpu - 1];
	int last = tables_arch_last_branch(g->arch);
	int branch = c->has_lib_driver ? c->lib_driver.major : tables_cuda_branch(c->cuda);
	if (branch && branch <= last)
		return true;
	c->arch_refused = true;
	if (branch)
		return refuse(c, "%s: %s, supported up to driver branch R%d; this package is R%d",
			      g->model, tables_arch_name(g->arch), last, branch);
	return refuse(c, "%s: %s, supported up to driver branch R%d; this package is CUDA %s, of a later branch",
		      g->model, tables_arch_name(g->arch), last, cuda_version_format(c->cuda, v, sizeof v));
}

static bool dgpu_allows(const struct host *h, struct candidate *c)
{
	char v[16], w[16];
	int branch = h->driver.major;

	if (!devices_allow(h, c) || !arch_allows(h, c))
		return false;
	int note = note_decides(h, c);
	if (note >= 0)
		return note;
	/* Without a note, the tables decide. */
	if (!h->cuda)
		return unknown(c, "host driver unknown: %s", h->problem);
	if (c->cuda > tables_edition)
		return unknown_release(h, c);
	if (c->cuda <= h->cuda)
		return refuse(c, "CUDA %s is not newer than the host driver's %s",
			      cuda_version_format(c->cuda, v, sizeof v), cuda_version_format(h->cuda, w, sizeof w));
	if (!c->has_lib_driver)
		return refuse(c, "no note and no driver version in the file name");
	if (c->lib_driver.major <= branch)
		return refuse(c, "its driver %d is not newer than the host's %d",
			      c->lib_driver.major, branch);
	int newest = tables_dgpu_compat_max(branch);
	if (!newest)
		return unknown(c, "NVIDIA does not support forward compatibility on branch %d (not a supported target branch)",
			      branch);
	if (c->cuda > newest)
		return refuse(c, "branch %d takes compat up to CUDA %s", branch,
			      cuda_version_format(newest, v, sizeof v));
	snprintf(c->reason, sizeof c->reason, "branch %d takes CUDA %s compat", branch,
		 cuda_version_format(c->cuda, v, sizeof v));
	return true;
}

/* What the tables allow on a host with a GPU they cannot judge (a
 * workstation board: only select NGC-ready SKUs take compat; a GPU whose
 * architecture is unknown) needs the driver's word: unknown until a
 * verdict (first use or --verify) says it works. */
static bool ask_driver(const struct host *h, struct candidate *c, bool allowed)
{
	if (!allowed || !h->ask_gpu)
		return allowed;
	const struct dgpu *g = &h->gpus[h->ask_gpu - 1];
	char table[sizeof c->reason], arch[160];
	snprintf(table, sizeof table, "%s", c->reason);
	c->needs_word = true;
	if (tables_brand_needs_word(g->brand))
		return unknown(c, "needs the driver's word: %s is a workstation board (%s; forward compatibility only on select NGC-ready SKUs, others answer 804); tables: %s",
			       g->model, tables_brand_name(g->brand), table);
	return unknown(c, "needs the driver's word: %s: %s; tables: %s", g->model,
		       probe_gpu_arch_text(g, arch, sizeof arch), table);
}

static bool auto_allows(const struct host *h, struct candidate *c)
{
	if (h->platform == PLATFORM_NONE)
		return refuse(c, "no NVIDIA GPU");
	if (h->visible == VISIBLE_NONE)
		return refuse(c, "the program sees no GPU (CUDA_VISIBLE_DEVICES)");
	if (!c->cuda)
		return unknown(c, "no CUDA version (no note, no cuda-X.Y directory, no version file, no versioned file name)");
	if (!c->has_ptxjit)
		return refuse(c, "incomplete package: no libnvidia-ptxjitcompiler.so.1 beside libcuda (a partial install; the system's JIT compiler does not go with it)");
	if (h->platform == PLATFORM_DGPU)
		return ask_driver(h, c, dgpu_allows(h, c));
	return tegra_allows(h, c);
}

/* After the tables: what the driver said on this device (verdict.h).  A
 * failure (at cuInit, a context, the JIT, on any device) refuses whatever
 * the tables say; success makes usable only what the tables do not know. */
static bool verified(struct candidate *c, bool usable)
{
	char what[160];
	const struct verdict *v = &c->verdict;
	if (v->state != VSTATE_APPLIES)
		return usable;
	if (!verdict_ok(v))
		return refuse(c, "verified: %s", verdict_describe(v, what, sizeof what));
	if (!usable && c->unknown) {
		char table[sizeof c->reason];
		snprintf(table, sizeof table, "%s", c->reason);
		snprintf(c->reason, sizeof c->reason, "verified: it works (tables: %s)", table);
		return true;
	}
	return usable;
}

bool decide_may_use_compat(const struct host *h, enum policy policy)
{
	/* Without a GPU, auto refuses every candidate before looking at it.
	 * Nothing else is assumed: a host whose CUDA is unknown may still take
	 * a package by rules that need no table. */
	return policy == POLICY_COMPAT || (policy == POLICY_AUTO && h->platform != PLATFORM_NONE);
}

void decide(const struct host *h, struct candidates *cands, enum policy policy,
	    int prog_class, int prog_machine, struct decision *out)
{
	char v[16], w[16];
	size_t n_loadable = 0, n_foreign = 0, n_failed = 0, n_arch = 0, n_ask = 0;
	int first_failed = -1;

	memset(out, 0, sizeof *out);
	out->chosen = -1;
	for (size_t i = 0; i < cands->n; i++) {
		struct candidate *c = &cands->v[i];
		c->usable = false;
		c->unknown = false;
		c->arch_refused = false;
		c->needs_word = false;
		c->reason[0] = '\0';
		if (!loadable(c, prog_class, prog_machine)) {
			n_foreign += c->has_lib;
			continue;
		}
		n_loadable++;
		if (policy == POLICY_SYSTEM) {
			refuse(c, "policy system");
			continue;
		}
		/* what auto says: the tables, then a stored verdict (verdict.h) */
		c->usable = verified(c, auto_allows(h, c));
		n_arch += c->arch_refused;
		n_ask += c->needs_word && !c->usable;
		if (c->verdict.state == VSTATE_APPLIES && !verdict_ok(&c->verdict)) {
			n_failed++;	/* refused by the driver's own answer */
			if (first_failed < 0)
				first_failed = (int)i;
		}
		if (policy == POLICY_COMPAT) {
			/* say what auto would have done: the override is then visible */
			char was[sizeof c->reason];
			snprintf(was, sizeof was, "%s", c->reason);
			snprintf(c->reason, sizeof c->reason, "policy compat (auto: %s: %s)",
				 c->usable ? "usable" : "refused", was);
			c->usable = true;
		}
		/* newest wins; on a tie the earlier (higher-priority) one stays */
		if (c->usable && (out->chosen < 0 || c->cuda > cands->v[out->chosen].cuda))
			out->chosen = (int)i;
	}

	if (out->chosen >= 0) {
		const struct candidate *c = &cands->v[out->chosen];
		out->use_compat = true;
		snprintf(out->reason, sizeof out->reason, "compat CUDA %s in %s: %s",
			 cuda_version_format(c->cuda, v, sizeof v), c->dir, c->reason);
	} else if (policy == POLICY_SYSTEM) {
		snprintf(out->reason, sizeof out->reason, "policy system");
	} else if (cands->n > 0 && n_loadable == 0) {
		char m[24];
		if (n_foreign)
			snprintf(out->reason, sizeof out->reason,
				 "system driver: no compat package is for the program's machine and class (%s ELF%d)",
				 elfread_machine_label(prog_machine, m, sizeof m), prog_class == ELFCLASS64 ? 64 : 32);
		else
			snprintf(out->reason, sizeof out->reason,
				 "system driver: no compat package has a readable libcuda.so.1");
	} else if (h->platform == PLATFORM_NONE) {
		snprintf(out->reason, sizeof out->reason, "system driver: %s", h->problem);
	} else if (h->visible == VISIBLE_NONE && policy == POLICY_AUTO) {
		snprintf(out->reason, sizeof out->reason,
			 "system driver: CUDA_VISIBLE_DEVICES names no GPU: the program sees none, nothing to take a package for");
	} else if (h->unsupported_gpu && policy == POLICY_AUTO) {
		const struct dgpu *g = &h->gpus[h->unsupported_gpu - 1];
		char why[80];
		if (g->error)
			snprintf(out->reason, sizeof out->reason,
				 "system driver: GPU %s cannot be identified (%s): it may not support forward compatibility",
				 g->bus, probe_gpu_problem(g, why, sizeof why));
		else
			snprintf(out->reason, sizeof out->reason,
				 "system driver: %s does not support forward compatibility (%s)", g->model,
				 tables_brand_name(g->brand));
	} else if (n_arch && n_arch == n_loadable && policy == POLICY_AUTO) {
		const struct dgpu *g = &h->gpus[h->retired_gpu - 1];
		snprintf(out->reason, sizeof out->reason,
			 "system driver: %s is %s, supported up to driver branch R%d; %s of a later branch",
			 g->model, tables_arch_name(g->arch), tables_arch_last_branch(g->arch),
			 n_arch == 1 ? "the compat package is" : "every compat package is");
	} else if (n_ask && policy == POLICY_AUTO) {
		const struct dgpu *g = &h->gpus[h->ask_gpu - 1];
		snprintf(out->reason, sizeof out->reason,
			 "system driver: %s: only the driver can say whether %s works here, and it has not been asked (cudaload --verify)",
			 g->model, n_ask == 1 ? "the compat package" : "a compat package");
	} else if (n_failed && n_failed == n_loadable && policy == POLICY_AUTO) {
		/* the tables may have said yes: the driver said no, say that */
		char what[160];
		verdict_describe(&cands->v[first_failed].verdict, what, sizeof what);
		if (n_failed == 1)
			snprintf(out->reason, sizeof out->reason,
				 "system driver: the compat package failed when verified (%s)", what);
		else
			snprintf(out->reason, sizeof out->reason,
				 "system driver: every compat package failed when verified (%s: %s)",
				 cands->v[first_failed].dir, what);
	} else if (!h->cuda && policy == POLICY_AUTO) {
		snprintf(out->reason, sizeof out->reason, "system driver: %s", h->problem);
	} else if (cands->n == 0) {
		snprintf(out->reason, sizeof out->reason, "system driver: no compat package found");
	} else {
		snprintf(out->reason, sizeof out->reason,
			 "system driver: no compat package is usable with the host's CUDA %s%s",
			 cuda_version_format(h->cuda, w, sizeof w),
			 n_failed ? " (some failed when verified)" : "");
	}
}
