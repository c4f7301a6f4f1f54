/* SPDX-License-Identifier: MIT */
#include "report.h"
#include "../packages/reach.h"

#include <elf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../elf/elfread.h"
#include "../base/json.h"
#include "../host/tables.h"
#include "../base/utf8.h"

/* The text report's values are paths, models and messages as read: each
 * line goes through utf8_printf (a name with an escape sequence or a newline
 * in it shows as \x1b, \x0a on its own line). */

static const char *or_null(const char *s)
{
	return s && *s ? s : NULL;
}

static const char *cuda_or_null(int cuda, char *buf, size_t cap)
{
	return cuda > 0 ? cuda_version_format(cuda, buf, cap) : NULL;
}

static const char *mode_of(const struct report *r)
{
	return r->mode ? r->mode : mode_name(r->settings->mode);
}

static const struct dgpu *unsupported(const struct host *h)
{
	return h->unsupported_gpu ? &h->gpus[h->unsupported_gpu - 1] : NULL;
}

static void json_gpu(FILE *f, const struct host *h)
{
	if (h->platform == PLATFORM_TEGRA && h->have_gpu) {
		fprintf(f, "{\"node\":\"%s\",\"arch\":%u,\"impl\":%u,\"rev\":%u}", h->gpu.node,
			(unsigned)h->gpu.arch, (unsigned)h->gpu.impl, (unsigned)h->gpu.rev);
	} else if (h->platform == PLATFORM_TEGRA) {
		fputs("{\"problem\":", f);
		json_str(f, h->gpu_problem);
		fputc('}', f);
	} else if (h->platform == PLATFORM_DGPU) {
		fputs("{\"devices\":[", f);
		for (int i = 0; i < h->n_gpus && i < MAX_GPUS; i++) {
			const struct dgpu *g = &h->gpus[i];
			fputs(i ? ",{\"bus\":" : "{\"bus\":", f);
			json_str(f, g->bus);
	json_kstr(f, "model", g->model);
			fprintf(f, ",\"brand\":%d,\"brand_name\":", g->brand);
			json_str(f, tables_brand_name(g->brand));
			fprintf(f, ",\"forward_compat\":%s,\"problem\":",
				tables_brand_supports_compat(g->brand) ? "true" : "false");
			char why[80], id[8];
			json_str(f, g->error ? probe_gpu_problem(g, why, sizeof why) : NULL);
			snprintf(id, sizeof id, "0x%04x", g->device_id);
			json_kstr(f, "device_id", g->device_id ? id : NULL);
			json_kstr(f, "architecture", g->arch ? tables_arch_name(g->arch) : NULL);
			json_kstr(f, "architecture_from", g->arch_from == ARCH_FROM_PCI ? "pci"
					  : g->arch_from == ARCH_FROM_MODEL ? "model" : NULL);
			fputs(",\"last_branch\":", f);
			if (tables_arch_last_branch(g->arch))
				fprintf(f, "%d", tables_arch_last_branch(g->arch));
			else
				fputs("null", f);
			json_kbool(f, "visible", !g->hidden);
			fputc('}', f);
		}
		fprintf(f, "],\"count\":%d,\"unsupported\":", h->n_gpus);
		/* its model, or for a GPU that cannot be identified its bus */
		const struct dgpu *u = unsupported(h);
		json_str(f, u ? u->error ? u->bus : u->model : NULL);
		/* the GPU whose architecture ends at the oldest branch */
		json_kstr(f, "retired", h->retired_gpu ? h->gpus[h->retired_gpu - 1].model : NULL);
		fputc('}', f);
	} else {
		fputs("{\"problem\":", f);
		json_str(f, h->problem);
		fputc('}', f);
	}
}

/* Which GPUs were judged and why (visible.h); the rule is the probe's,
 * the words are said again from what it kept. */
static void json_visible(FILE *f, const struct settings *st, const struct host *h)
{
	char why[256] = "no NVIDIA GPU: none to judge";
	unsigned seen;
	if (h->platform != PLATFORM_NONE)
		probe_gpus_seen(&st->visible, h, &seen, why, sizeof why);
	json_key(f, "visible_gpus");
	fputs("{\"value\":", f);
	json_str(f, st->visible.devices);
	json_kstr(f, "order", st->visible.pci_order ? "PCI_BUS_ID" : "FASTEST_FIRST");
	json_kstr(f, "rule", h->platform == PLATFORM_NONE ? NULL
			     : visible_rule_name((enum visible_rule)h->visible));
	json_kstr(f, "why", why);
	fputc('}', f);
}

static const char *compat_dir(const struct report *r)
{
	const struct decision *d = r->decision;
	return d->use_compat ? r->candidates->v[d->chosen].dir : NULL;
}

/* What holds the decision against other places that name a driver (pin.h):
 * the directory, or NULL with why. */
static const char *pin_of(const struct report *r, const char **why, const char **what)
{
	*why = *what = NULL;
	if (r->decision->use_compat) {
		*what = "the compat directory, first in the search list";
		return compat_dir(r);
	}
	if (r->pin && r->pin->dir) {
		*what = r->pin->links ? "links to the system driver's files"
				      : "the system driver's own directory";
		return r->pin->dir;
	}
	*why = r->pin && r->pin->why[0] ? r->pin->why
	       : "not needed: no compat package for this program's machine";
	return NULL;
}

static const char vstate_names[][13] = { "none", "applies", "changed", "inconclusive", "other_host" };

static bool have_store(const struct report *r)
{
	return r->system_verdict && r->system_verdict->kind != VERDICT_NONE;
}

static void verdict_json(FILE *f, const struct report *r, const struct verdict *v, bool cand)
{
	char tok[32], what[160];
	if (v->kind == VERDICT_NONE) {
		fputs("null", f);
		return;
	}
	fputs("{\"result\":", f);
	json_str(f, verdict_token(v, tok, sizeof tok));
	json_kstr(f, "name", v->kind == VERDICT_CU ? verdict_cu_name(v->code) : NULL);
	json_kstr(f, "what", verdict_describe(v, what, sizeof what));
	fprintf(f, ",\"ok\":%s,\"age_s\":%lld", verdict_ok(v) ? "true" : "false", r->now - v->when);
	json_kstr(f, "step", verdict_step_name(v));
	json_key(f, "device");
	if (v->device >= 0 && v->step >= VSTEP_DEVICE && v->step <= VSTEP_MODULE)
		fprintf(f, "%d", v->device);
	else
		fputs("null", f);
	fprintf(f, ",\"devices\":%d", v->devices);
	json_kstr(f, "store", v->source == VSOURCE_USER ? "user" : "root");
	if (cand)
		fprintf(f, ",\"state\":\"%s\"", vstate_names[v->state < 5 ? v->state : 0]);
	fputc('}', f);
}

/* "verified 3 min ago: cuInit returned 804 (...)", with what became of it. */
static void verdict_text(FILE *f, const struct report *r, const char *indent,
			 const struct verdict *v)
{
	char what[160], age[40];
	if (v->kind == VERDICT_NONE) {
		utf8_printf(f, "%snot verified\n", indent);
		return;
	}
	utf8_printf(f, "%sverified %s ago%s: %s%s\n", indent, verdict_age(v->when, r->now, age, sizeof age),
		v->source == VSOURCE_USER ? " (this user's store)" : "", verdict_describe(v, what, sizeof what),
		v->state == VSTATE_CHANGED ? "; ignored: libcuda.so.1 changed since"
		: v->state == VSTATE_INCONCLUSIVE ? "; not applied: the system driver failed there too"
		: "");
}

void report_verdict_text(FILE *f, const char *indent, const struct verdict *v, long long now)
{
	struct report r = { .now = now };
	verdict_text(f, &r, indent, v);
}

/* A list of numbers from a note, or null when the note has none. */
static void note_list(FILE *f, const char *key, bool has, const int *v, int n)
{
	json_key(f, key);
	if (has)
		json_ints(f, v, n);
	else
		fputs("null", f);
}

static void json_candidate(FILE *f, const struct report *r, const struct candidate *c)
{
	char v[16], dv[32];
	fputs("{\"dir\":", f);
	json_str(f, c->dir);
	json_kstr(f, "cuda", cuda_or_null(c->cuda, v, sizeof v));
	json_ktoken(f, "cuda_source", c->cuda_from);
	json_kstr(f, "driver", c->has_lib_driver ? driver_version_format(&c->lib_driver, dv, sizeof dv) : NULL);
	note_list(f, "note_drivers", c->has_note && c->note.has_drivers, c->note.drivers,
		  c->note.n_drivers);
	note_list(f, "note_devices", c->has_note && c->note.has_devices, c->note.devices,
		  c->note.n_devices);
	json_kstr(f, "note_problem", or_null(c->note_problem));
	char remark[128];
	json_kstr(f, "note_remark", compat_note_remark(c, remark, sizeof remark));
	json_kbool(f, "complete", !(c->has_lib && !c->has_ptxjit));
	json_kstr(f, "machine", c->has_lib ? elfread_machine_name(c->elf_machine) : NULL);
	json_kstr(f, "origin", c->origin);
	json_kstr(f, "found", c->origin ? reach_origin_text(c->origin) : NULL);
	json_kstr(f, "found_in", c->source);
	json_kbool(f, "usable", c->usable);
	json_kstr(f, "reason", c->reason);
	json_key(f, "verdict");
	verdict_json(f, r, &c->verdict, true);
	fputc('}', f);
}

void report_candidate_json(FILE *f, const struct candidate *c, long long now)
{
	struct report r = { .now = now };
	json_candidate(f, &r, c);
}

void report_verdict_json(FILE *f, const struct verdict *v, long long now)
{
	struct report r = { .now = now };
	verdict_json(f, &r, v, false);
}

void report_json(FILE *f, const struct report *r)
{
	const struct host *h = r->host;
	const struct settings *st = r->settings;
	char v[16];

	fprintf(f, "{\"schema\":%d,\"platform\":", JSON_SCHEMA);
	json_str(f, platform_name(h->platform));
	json_kstr(f, "soc", or_null(h->soc));
	json_kstr(f, "model", or_null(h->model));
	json_kstr(f, "l4t", or_null(h->l4t_str));
	json_key(f, "gpu");
	json_gpu(f, h);
	json_visible(f, st, h);
	json_kbool(f, "discrete_gpu_on_tegra", h->discrete_on_tegra);
	json_kstr(f, "host_driver", or_null(h->driver_str));
	json_kstr(f, "host_cuda", cuda_or_null(h->cuda, v, sizeof v));
	json_kstr(f, "host_problem", or_null(h->problem));
	json_key(f, "driver_dirs");
	json_strs(f, (char *const *)h->driver_dirs, h->n_driver_dirs);
	json_key(f, "candidates");
	fputc('[', f);
	for (size_t i = 0; i < r->candidates->n; i++) {
		if (i)
			fputc(',', f);
		json_candidate(f, r, &r->candidates->v[i]);
	}
	/* the places searched: CUDALOAD_COMPAT_PATH, then the config or defaults */
	fputs("],\"compat_searched\":[", f);
	for (int i = 0; i < st->n_compat_env + st->n_compat; i++) {
		if (i)
			fputc(',', f);
		json_str(f, i < st->n_compat_env ? st->compat_env[i] : st->compat[i - st->n_compat_env]);
	}
	fputs("],\"compat_missing\":[", f);
	for (int i = 0; i < r->candidates->n_miss; i++) {
		const struct compat_miss *m = &r->candidates->miss[i];
		fputs(i ? ",{\"entry\":" : "{\"entry\":", f);
		json_str(f, m->entry);
		json_kstr(f, "origin", m->origin);
		json_kstr(f, "why", m->why);
		fputc('}', f);
	}
	fputc(']', f);
	json_key(f, "system_verdict");
	if (have_store(r))
		verdict_json(f, r, r->system_verdict, false);
	else
		fputs("null", f);
	json_kstr(f, "policy", policy_name(st->policy));
	json_kstr(f, "decision", r->decision->use_compat ? "compat" : "system");
	json_kstr(f, "compat_dir", compat_dir(r));
	json_kstr(f, "reason", r->decision->reason);
	json_kstr(f, "program", r->program);
	json_kstr(f, "ldso", r->ldso && !r->ldso_problem ? r->ldso->path : NULL);
	json_kstr(f, "ldso_problem", r->ldso_problem);
	json_kbool(f, "argv0", r->ldso && !r->ldso_problem && r->ldso->argv0);
	json_kstr(f, "library_path", r->library_path);
	const char *pin_why, *pin_what, *pin = pin_of(r, &pin_why, &pin_what);
	json_kstr(f, "pin", pin);
	json_kstr(f, "pin_why", pin ? pin_what : pin_why);
	json_kstr(f, "libcuda", r->libcuda);
	json_key(f, "pin_over");
	json_strs(f, r->rivals, r->n_rivals);
	json_kstr(f, "mode", mode_of(r));
	json_kstr(f, "mode_why", r->mode_why);
	json_kstr(f, "config", st->config_path);
	json_key(f, "config_warnings");
	json_strs(f, st->warnings, st->n_warnings);
	fputs(",\"tables\":{\"cuda\":", f);
	json_str(f, cuda_version_format(tables_edition, v, sizeof v));
	json_kstr(f, "checked", tables_checked);
	json_kstr(f, "also", tables_also);
	fputs("}}\n", f);
}

void report_text(FILE *f, const struct report *r)
{
	const struct host *h = r->host;
	const struct settings *st = r->settings;
	char v[16];

	utf8_printf(f, "platform:     %s%s\n", platform_name(h->platform),
		h->discrete_on_tegra ? " (a discrete GPU beside the Tegra SoC: data-center rules)" : "");
	if (h->soc[0]) {
		const char *name = tables_soc_name(h->soc);
		utf8_printf(f, "soc:          %s%s%s%s\n", h->soc, name ? " (" : "", name ? name : "",
			name ? ")" : "");
		if (h->model[0])
			utf8_printf(f, "model:        %s\n", h->model);
	}
	if (h->platform == PLATFORM_TEGRA) {
		utf8_printf(f, "L4T:          %s\n", h->l4t_str[0] ? h->l4t_str : "unknown");
		if (h->have_gpu)
			utf8_printf(f, "gpu:          %s arch 0x%x impl 0x%x\n", h->gpu.node,
				(unsigned)h->gpu.arch, (unsigned)h->gpu.impl);
		else
			utf8_printf(f, "gpu:          %s\n", h->gpu_problem);
		if (h->have_driver)	/* Thor: OpenRM, the module named nvidia */
			utf8_printf(f, "driver:       %s\n", h->driver_str);
	}
	if (h->platform == PLATFORM_DGPU) {
		utf8_printf(f, "driver:       %s\n", h->driver_str);
		for (int i = 0; i < h->n_gpus && i < MAX_GPUS; i++) {
			char why[160];
			if (h->gpus[i].error)
				utf8_printf(f, "gpu:          %s cannot be identified (%s): may not support forward compatibility\n",
					h->gpus[i].bus, probe_gpu_problem(&h->gpus[i], why, sizeof why));
			else
				utf8_printf(f, "gpu:          %s %s (%s%s; %s)%s\n", h->gpus[i].bus, h->gpus[i].model,
					tables_brand_name(h->gpus[i].brand),
					tables_brand_supports_compat(h->gpus[i].brand) ? ""
						: ": no forward compatibility",
					probe_gpu_arch_text(&h->gpus[i], why, sizeof why),
					h->gpus[i].hidden ? ", not seen by the program: not judged" : "");
		}
		if (h->n_gpus > MAX_GPUS)
			utf8_printf(f, "gpu:          ... %d in all\n", h->n_gpus);
		if (!h->n_gpus)
			utf8_printf(f, "gpu:          none listed in /proc/driver/nvidia/gpus\n");
	}
	if (st->visible.devices && h->platform != PLATFORM_NONE) {
		char why[256];
		unsigned seen;
		probe_gpus_seen(&st->visible, h, &seen, why, sizeof why);
		utf8_printf(f, "gpus judged:  %s\n", why);
	}
	utf8_printf(f, "host CUDA:    %s\n", h->cuda ? cuda_version_format(h->cuda, v, sizeof v) : "unknown");
	if (h->problem[0])
		utf8_printf(f, "problem:      %s\n", h->problem);
	for (int i = 0; i < h->n_driver_dirs; i++)
		utf8_printf(f, "driver dir:   %s\n", h->driver_dirs[i]);
	utf8_printf(f, "policy:       %s (%s)\n", policy_name(st->policy), st->policy_from);
	if (st->config_path)
		utf8_printf(f, "config:       %s\n", st->config_path);
	for (int i = 0; i < st->n_warnings; i++)
		utf8_printf(f, "warning:      %s\n", st->warnings[i]);
	for (int i = 0; i < r->candidates->n_miss; i++) {
		const struct compat_miss *m = &r->candidates->miss[i];
		utf8_printf(f, "compat path:  %s (%s): %s\n", m->entry, m->origin, m->why);
	}
	if (r->candidates->n == 0) {
		utf8_printf(f, "candidates:   none found; searched");
		for (int i = 0; i < st->n_compat_env + st->n_compat; i++)
			utf8_printf(f, "%s %s", i ? "," : "",
				i < st->n_compat_env ? st->compat_env[i] : st->compat[i - st->n_compat_env]);
		fputc('\n', f);
	}
	for (size_t i = 0; i < r->candidates->n; i++) {
		const struct candidate *c = &r->candidates->v[i];
		utf8_printf(f, "candidate:    %s\n", c->dir);
		if (c->origin)
			utf8_printf(f, "              found: %s%s%s\n", reach_origin_text(c->origin),
				c->source ? " from " : "", c->source ? c->source : "");
		utf8_printf(f, "              CUDA %s%s%s%s, %s: %s\n",
			c->cuda ? cuda_version_format(c->cuda, v, sizeof v) : "unknown",
			c->cuda_from ? " (from " : "", c->cuda_from ? c->cuda_from : "",
			c->cuda_from ? ")" : "", c->usable ? "usable" : "refused", c->reason);
		if (have_store(r) || c->verdict.kind != VERDICT_NONE)
			verdict_text(f, r, "              ", &c->verdict);
		if (c->has_note && (c->note.has_drivers || c->note.has_devices)) {
			utf8_printf(f, "              note: driver branches");
			for (int k = 0; k < c->note.n_drivers; k++)
				utf8_printf(f, "%s%d", k ? "," : " ", c->note.drivers[k]);
			utf8_printf(f, "%s; devices (NVML brands)", c->note.has_drivers ? "" : " none");
			for (int k = 0; k < c->note.n_devices; k++)
				utf8_printf(f, "%s%d", k ? "," : " ", c->note.devices[k]);
			utf8_printf(f, "%s\n", c->note.has_devices ? "" : " not listed");
		}
		if (c->note_problem[0])
			utf8_printf(f, "              note: unreadable (%s); judged as a package without one\n",
				c->note_problem);
		char remark[128];
		if (compat_note_remark(c, remark, sizeof remark))
			utf8_printf(f, "              note: read, though %s\n", remark);
	}
	if (have_store(r))
		verdict_text(f, r, "system driver ", r->system_verdict);
	utf8_printf(f, "decision:     %s\n", r->decision->use_compat ? "compat" : "system");
	utf8_printf(f, "reason:       %s\n", r->decision->reason);
	if (r->program)
		utf8_printf(f, "program:      %s\n", r->program);
	if (r->ldso_problem)
		utf8_printf(f, "loader:       %s\n", r->ldso_problem);
	else if (r->ldso)
		utf8_printf(f, "loader:       %s (%s%s)\n", r->ldso->path, r->ldso->from,
			r->ldso->argv0 ? ", takes --argv0" : "");
	else if (r->program)
		utf8_printf(f, "loader:       none\n");
	utf8_printf(f, "library path: %s\n", r->library_path ? r->library_path : "(unchanged)");
	const char *pin_why, *pin_what, *pin = pin_of(r, &pin_why, &pin_what);
	if (pin)
		utf8_printf(f, "pin:          %s (%s)\n", pin, pin_what);
	else
		utf8_printf(f, "pin:          none: %s\n", pin_why);
	if (r->libcuda)
		utf8_printf(f, "libcuda:      %s\n", r->libcuda);
	for (int i = 0; i < r->n_rivals; i++)
		utf8_printf(f, "              %s\n", r->rivals[i]);
	utf8_printf(f, "mode:         %s%s%s%s\n", mode_of(r), r->mode_why ? " (" : "",
		r->mode_why ? r->mode_why : "", r->mode_why ? ")" : "");
	utf8_printf(f, "tables:       NVIDIA's, CUDA %s edition, checked %s; also %s\n",
		cuda_version_format(tables_edition, v, sizeof v), tables_checked, tables_also);
}
