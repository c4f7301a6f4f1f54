/* SPDX-License-Identifier: MIT */
/* The container hook's readers (loader/commands/ocihook/bundle.h, word.h),
 * run as root on every container: the input as an OCI state, as a
 * config.json and as the judgement's word.  Each accepts or refuses with a
 * reason; what it accepts is within its bounds. */
#include <stdlib.h>
#include <string.h>

#include "../../loader/commands/ocihook/bundle.h"
#include "../../loader/commands/ocihook/word.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	char why[256];
	struct bundle b;
	memset(&b, 0, sizeof b);
	why[0] = '\0';
	if (bundle_parse_state(text, size, &b, why, sizeof why) == 0) {
		if (!b.path || b.path[0] != '/' || strlen(b.path) >= 4096 || (b.id && strlen(b.id) >= BUNDLE_ID_MAX))
			abort();
	} else if (!why[0]) {
		abort();
	}
	bundle_free(&b);
	why[0] = '\0';
	if (bundle_parse_config(text, size, &b, why, sizeof why) == 0) {
		if (!b.root || !b.root[0] || b.n_env > BUNDLE_ENV_MAX || b.n_minors > BUNDLE_MINORS_MAX)
			abort();
		for (int i = 0; i < b.n_minors; i++)
			if (b.minors[i] < 0 || b.minors[i] > 255)
				abort();
	} else if (!why[0]) {
		abort();
	}
	bundle_free(&b);
	struct edits e;
	memset(&e, 0, sizeof e);
	char *log = NULL;
	size_t len = 0;
	e.log = open_memstream(&log, &len);
	if (!e.log)
		return 0;
	if (!word_read(text, size, &e)) {
		/* accepted: every field it took lies inside the input */
		for (int i = 0; i < e.n_hide; i++)
			if (e.hide[i].dir < text || e.hide[i].dir >= text + size || e.hide[i].dir[0] != '/')
				abort();
		if (e.report && (e.report < text || e.report >= text + size))
			abort();
	}
	fclose(e.log);
	free(log);
	return 0;
}
