/* SPDX-License-Identifier: MIT */
#include "report.h"

#include <elf.h>
#include <string.h>

#include "elfread.h"
#include "tables.h"

static void json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static const char *or_null(const char *s)
{
	return s && *s ? s : NULL;
}

static const char *cuda_or_null(int cuda, char *buf, size_t cap)
{
	return cuda > 0 ? cuda_format(cuda, buf, cap) : NULL;
}

static void json_strs(FILE *f, char *const *v, int n)
{
	fputc('[', f);
	for (int i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		json_str(f, v[i]);
	}
	fputc(']', f);
}

static void json_ints(FILE *f, const int *v, int n)
{
	fputc('[', f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%d", i ? "," : "", v[i]);
	fputc(']', f);
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
			fputs(",\"model\":", f);
			json_str(f, g->model);
			fprintf(f, ",\"brand\":%d,\"brand_name\":", g->brand);
			json_str(f, tables_brand_name(g->brand));
			fprintf(f, ",\"forward_compat\":%s}",
				tables_brand_supports_compat(g->brand) ? "true" : "false");
		}
		fprintf(f, "],\"count\":%d,\"unsupported\":", h->n_gpus);
		json_str(f, unsupported(h) ? unsupported(h)->model : NULL);
		fputc('}', f);
	} else {
		fputs("{\"problem\":", f);
		json_str(f, h->problem);
		fputc('}', f);
	}
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

static const char *const vstate_names[] = { "none", "applies", "changed", "inconclusive" };

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
	fputs(",\"name\":", f);
	json_str(f, v->kind == VERDICT_CU ? verdict_cu_name(v->code) : NULL);
	fputs(",\"what\":", f);
	json_str(f, verdict_describe(v, what, sizeof what));
	fprintf(f, ",\"ok\":%s,\"age_s\":%lld", verdict_ok(v) ? "true" : "false", r->now - v->when);
	if (cand)
		fprintf(f, ",\"state\":\"%s\"", vstate_names[v->state < 4 ? v->state : 0]);
	fputc('}', f);
}

/* "verified 3 min ago: cuInit returned 804 (...)", with what became of it. */
static void verdict_text(FILE *f, const struct report *r, const char *indent,
			 const struct verdict *v)
{
	char what[160], age[40];
	if (v->kind == VERDICT_NONE) {
		fprintf(f, "%snot verified\n", indent);
		return;
	}
	fprintf(f, "%sverified %s ago: %s%s\n", indent, verdict_age(v->when, r->now, age, sizeof age),
		verdict_describe(v, what, sizeof what),
		v->state == VSTATE_CHANGED ? "; ignored: libcuda.so.1 changed since"
		: v->state == VSTATE_INCONCLUSIVE ? "; not applied: the system driver failed too"
		: "");
}

void report_json(FILE *f, const struct report *r)
{
	const struct host *h = r->host;
	char v[16];

	fprintf(f, "{\"schema\":%d,\"platform\":", REPORT_SCHEMA);
	json_str(f, platform_name(h->platform));
	fputs(",\"soc\":", f);
	json_str(f, or_null(h->soc));
	fputs(",\"model\":", f);
	json_str(f, or_null(h->model));
	fputs(",\"l4t\":", f);
	json_str(f, or_null(h->l4t_str));
	fputs(",\"gpu\":", f);
	json_gpu(f, h);
	fprintf(f, ",\"discrete_gpu_on_tegra\":%s", h->discrete_on_tegra ? "true" : "false");
	fputs(",\"host_driver\":", f);
	json_str(f, or_null(h->driver_str));
	fputs(",\"host_cuda\":", f);
	json_str(f, cuda_or_null(h->cuda, v, sizeof v));
	fputs(",\"host_problem\":", f);
	json_str(f, or_null(h->problem));
	fputs(",\"driver_dirs\":[", f);
	for (int i = 0; i < h->n_driver_dirs; i++) {
		if (i)
			fputc(',', f);
		json_str(f, h->driver_dirs[i]);
	}
	fputs("],\"candidates\":[", f);
	for (size_t i = 0; i < r->candidates->n; i++) {
		const struct candidate *c = &r->candidates->v[i];
		fputs(i ? ",{\"dir\":" : "{\"dir\":", f);
		json_str(f, c->dir);
		fputs(",\"cuda\":", f);
		json_str(f, cuda_or_null(c->cuda, v, sizeof v));
		fputs(",\"cuda_source\":", f);
		json_str(f, c->cuda_from);
		fputs(",\"cuda_from\":", f);	/* the earlier name of cuda_source */
		json_str(f, c->cuda_from);
		fputs(",\"driver\":", f);
		char dv[32];
		json_str(f, c->has_lib_driver ? driver_format(&c->lib_driver, dv, sizeof dv) : NULL);
		fputs(",\"note_drivers\":", f);
		if (c->has_note && c->note.has_drivers)
			json_ints(f, c->note.drivers, c->note.n_drivers);
		else
			fputs("null", f);
		fputs(",\"note_devices\":", f);
		if (c->has_note && c->note.has_devices)
			json_ints(f, c->note.devices, c->note.n_devices);
		else
			fputs("null", f);
		fputs(",\"note_problem\":", f);
		json_str(f, or_null(c->note_problem));
		fprintf(f, ",\"complete\":%s", c->has_lib && !c->has_ptxjit ? "false" : "true");
		fputs(",\"machine\":", f);
		json_str(f, c->has_lib ? elf_machine_name(c->elf_machine) : NULL);
		fputs(",\"origin\":", f);
		json_str(f, c->origin);
		fprintf(f, ",\"usable\":%s,\"reason\":", c->usable ? "true" : "false");
		json_str(f, c->reason);
		fputs(",\"verdict\":", f);
		verdict_json(f, r, &c->verdict, true);
		fputc('}', f);
	}
	/* the places searched: CUDALOAD_COMPAT_PATH, then the config or defaults */
	fputs("],\"compat_searched\":[", f);
	const struct settings *st = r->settings;
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
		fputs(",\"origin\":", f);
		json_str(f, m->origin);
		fputs(",\"why\":", f);
		json_str(f, m->why);
		fputc('}', f);
	}
	fputs("]", f);
	fputs(",\"system_verdict\":", f);
	if (have_store(r))
		verdict_json(f, r, r->system_verdict, false);
	else
		fputs("null", f);
	fputs(",\"policy\":", f);
	json_str(f, policy_name(r->settings->policy));
	fputs(",\"decision\":", f);
	json_str(f, r->decision->use_compat ? "compat" : "system");
	fputs(",\"compat_dir\":", f);
	json_str(f, compat_dir(r));
	fputs(",\"reason\":", f);
	json_str(f, r->decision->reason);
	fputs(",\"program\":", f);
	json_str(f, r->program);
	fputs(",\"ldso\":", f);
	json_str(f, r->ldso && !r->ldso_problem ? r->ldso->path : NULL);
	fputs(",\"ldso_problem\":", f);
	json_str(f, r->ldso_problem);
	fputs(",\"argv0\":", f);
	fputs(r->ldso && !r->ldso_problem && r->ldso->argv0 ? "true" : "false", f);
	fputs(",\"library_path\":", f);
	json_str(f, r->library_path);
	const char *pin_why, *pin_what, *pin = pin_of(r, &pin_why, &pin_what);
	fputs(",\"pin\":", f);
	json_str(f, pin);
	fputs(",\"pin_why\":", f);
	json_str(f, pin ? pin_what : pin_why);
	fputs(",\"libcuda\":", f);
	json_str(f, r->libcuda);
	fputs(",\"pin_over\":", f);
	json_strs(f, r->rivals, r->n_rivals);
	fputs(",\"mode\":", f);
	json_str(f, mode_of(r));
	fputs(",\"mode_why\":", f);
	json_str(f, r->mode_why);
	fputs(",\"config\":", f);
	json_str(f, r->settings->config_path);
	fputs(",\"config_warnings\":", f);
	json_strs(f, r->settings->warnings, r->settings->n_warnings);
	fputs(",\"tables\":{\"cuda\":", f);
	json_str(f, cuda_format(tables_edition, v, sizeof v));
	fputs(",\"checked\":", f);
	json_str(f, tables_checked);
	fputs(",\"also\":", f);
	json_str(f, tables_also);
	fputs("}}\n", f);
}

void report_text(FILE *f, const struct report *r)
{
	const struct host *h = r->host;
	const struct settings *st = r->settings;
	char v[16];

	fprintf(f, "platform:     %s%s\n", platform_name(h->platform),
		h->discrete_on_tegra ? " (a discrete GPU beside the Tegra SoC: data-center rules)" : "");
	if (h->soc[0]) {
		const char *name = tables_soc_name(h->soc);
		fprintf(f, "soc:          %s%s%s%s\n", h->soc, name ? " (" : "", name ? name : "",
			name ? ")" : "");
		if (h->model[0])
			fprintf(f, "model:        %s\n", h->model);
	}
	if (h->platform == PLATFORM_TEGRA) {
		fprintf(f, "L4T:          %s\n", h->l4t_str[0] ? h->l4t_str : "unknown");
		if (h->have_gpu)
			fprintf(f, "gpu:          %s arch 0x%x impl 0x%x\n", h->gpu.node,
				(unsigned)h->gpu.arch, (unsigned)h->gpu.impl);
		else
			fprintf(f, "gpu:          %s\n", h->gpu_problem);
		if (h->have_driver)	/* Thor: OpenRM, the module named nvidia */
			fprintf(f, "driver:       %s\n", h->driver_str);
	}
	if (h->platform == PLATFORM_DGPU) {
		fprintf(f, "driver:       %s\n", h->driver_str);
		for (int i = 0; i < h->n_gpus && i < MAX_GPUS; i++)
			fprintf(f, "gpu:          %s %s (%s%s)\n", h->gpus[i].bus, h->gpus[i].model,
				tables_brand_name(h->gpus[i].brand),
				tables_brand_supports_compat(h->gpus[i].brand) ? ""
					: ": no forward compatibility");
		if (h->n_gpus > MAX_GPUS)
			fprintf(f, "gpu:          ... %d in all\n", h->n_gpus);
		if (!h->n_gpus)
			fprintf(f, "gpu:          none listed in /proc/driver/nvidia/gpus\n");
	}
	fprintf(f, "host CUDA:    %s\n", h->cuda ? cuda_format(h->cuda, v, sizeof v) : "unknown");
	if (h->problem[0])
		fprintf(f, "problem:      %s\n", h->problem);
	for (int i = 0; i < h->n_driver_dirs; i++)
		fprintf(f, "driver dir:   %s\n", h->driver_dirs[i]);
	fprintf(f, "policy:       %s (%s)\n", policy_name(st->policy), st->policy_from);
	if (st->config_path)
		fprintf(f, "config:       %s\n", st->config_path);
	for (int i = 0; i < st->n_warnings; i++)
		fprintf(f, "warning:      %s\n", st->warnings[i]);
	for (int i = 0; i < r->candidates->n_miss; i++) {
		const struct compat_miss *m = &r->candidates->miss[i];
		fprintf(f, "compat path:  %s (%s): %s\n", m->entry, m->origin, m->why);
	}
	if (r->candidates->n == 0) {
		fprintf(f, "candidates:   none found; searched");
		for (int i = 0; i < st->n_compat_env + st->n_compat; i++)
			fprintf(f, "%s %s", i ? "," : "",
				i < st->n_compat_env ? st->compat_env[i] : st->compat[i - st->n_compat_env]);
		fputc('\n', f);
	}
	for (size_t i = 0; i < r->candidates->n; i++) {
		const struct candidate *c = &r->candidates->v[i];
		fprintf(f, "candidate:    %s\n", c->dir);
		fprintf(f, "              CUDA %s%s%s%s, %s: %s\n",
			c->cuda ? cuda_format(c->cuda, v, sizeof v) : "unknown",
			c->cuda_from ? " (from " : "", c->cuda_from ? c->cuda_from : "",
			c->cuda_from ? ")" : "", c->usable ? "usable" : "refused", c->reason);
		if (have_store(r) || c->verdict.kind != VERDICT_NONE)
			verdict_text(f, r, "              ", &c->verdict);
		if (c->has_note && (c->note.has_drivers || c->note.has_devices)) {
			fprintf(f, "              note: driver branches");
			for (int k = 0; k < c->note.n_drivers; k++)
				fprintf(f, "%s%d", k ? "," : " ", c->note.drivers[k]);
			fprintf(f, "%s; devices (NVML brands)", c->note.has_drivers ? "" : " none");
			for (int k = 0; k < c->note.n_devices; k++)
				fprintf(f, "%s%d", k ? "," : " ", c->note.devices[k]);
			fprintf(f, "%s\n", c->note.has_devices ? "" : " not listed");
		}
		if (c->note_problem[0])
			fprintf(f, "              note: unreadable (%s); judged as a package without one\n",
				c->note_problem);
	}
	if (have_store(r))
		verdict_text(f, r, "system driver ", r->system_verdict);
	fprintf(f, "decision:     %s\n", r->decision->use_compat ? "compat" : "system");
	fprintf(f, "reason:       %s\n", r->decision->reason);
	if (r->program)
		fprintf(f, "program:      %s\n", r->program);
	if (r->ldso_problem)
		fprintf(f, "loader:       %s\n", r->ldso_problem);
	else if (r->ldso)
		fprintf(f, "loader:       %s (%s%s)\n", r->ldso->path, r->ldso->from,
			r->ldso->argv0 ? ", takes --argv0" : "");
	else if (r->program)
		fprintf(f, "loader:       none\n");
	fprintf(f, "library path: %s\n", r->library_path ? r->library_path : "(unchanged)");
	const char *pin_why, *pin_what, *pin = pin_of(r, &pin_why, &pin_what);
	if (pin)
		fprintf(f, "pin:          %s (%s)\n", pin, pin_what);
	else
		fprintf(f, "pin:          none: %s\n", pin_why);
	if (r->libcuda)
		fprintf(f, "libcuda:      %s\n", r->libcuda);
	for (int i = 0; i < r->n_rivals; i++)
		fprintf(f, "              %s\n", r->rivals[i]);
	fprintf(f, "mode:         %s%s%s%s\n", mode_of(r), r->mode_why ? " (" : "",
		r->mode_why ? r->mode_why : "", r->mode_why ? ")" : "");
	fprintf(f, "tables:       NVIDIA's, CUDA %s edition, checked %s; also %s\n",
		cuda_format(tables_edition, v, sizeof v), tables_checked, tables_also);
}
