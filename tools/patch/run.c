/* SPDX-License-Identifier: MIT */
#include "run.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/base/sys.h"

static const char *const outcome_names[N_OUTCOMES] = {
	"done", "failed", "not ELF", "script", "static", "library", "object file",
	"other machine", "already patched", "no CUDA", "hard links", "already this interpreter",
	"not patched", "not a regular file", "cudaload itself", "queued",
};

const char *outcome_name(enum outcome o)
{
	return o < N_OUTCOMES ? outcome_names[o] : "?";
}

void progress_clear(const struct options *opt)
{
	if (opt->progress)
		fputs("\r\033[K", stderr);
}

void say(const struct options *opt, const char *path, const char *fmt, ...)
{
	va_list ap;
	if (opt->quiet)
		return;
	progress_clear(opt);
	printf("%s: ", path);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

void complain(const struct options *opt, const char *path, const char *fmt, ...)
{
	va_list ap;
	progress_clear(opt);
	fflush(stdout);
	fprintf(stderr, "%s: ", path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

bool host_path(const struct options *opt, const char *img, char *out, size_t cap)
{
	return root_join(out, cap, opt->root_abs, img) == 0;
}

/* Keep the record in step with a file just patched for interp, or
 * restored: its name with every link resolved (inside the image, with
 * --root). */
void record_done(const struct options *opt, struct patchlist *record, const char *path,
		 const char *img, const char *interp)
{
	if (!opt->recording)
		return;
	char resolved[CL_PATH_MAX], joined[CL_PATH_MAX];
	char *abs = NULL;
	if (!img)
		abs = realpath(path, NULL);
	else if (closure_resolve(opt->root_abs, img, resolved, sizeof resolved) == 0 &&
		 host_path(opt, resolved, joined, sizeof joined))
		abs = strdup(joined);
	if (!abs)
		return;
	if (opt->action == RESTORE)
		patchlist_remove(record, abs);
	else if (patchlist_add(record, interp, abs) < 0)
		complain(opt, abs, "cannot be recorded (a newline in its name?)");
	free(abs);
}

void count_outcome(const struct options *opt, struct tally *tally, int outcome, const char *path)
{
	if (outcome == QUEUED || outcome == SKIP_CUDALOAD)
		return;	/* counted once in place; cudaload itself is no skip */
	tally->count[outcome]++;
	tally->seen++;
	if (opt->progress && tally->seen % 64 == 0)
		fprintf(stderr, "\r\033[K%lu files, %lu %s, %lu failed: %.60s", tally->seen,
			tally->count[DONE], opt->action == RESTORE ? "restored" : "patched",
			tally->count[FAILED], path);
}

