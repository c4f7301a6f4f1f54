/* SPDX-License-Identifier: MIT */
/* A prepared decision (common/stores/prepared.h): the loader reads it at every
 * start on a Jetson, from a symbolic link anyone with the directory's
 * rights could have made. */
#include <stdlib.h>
#include <string.h>

#include "../../common/stores/prepared.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= PREPARED_CAP)
		return 0;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	uint64_t key, stamp;
	struct prepared_view v;
	int n = prepared_parse(text, size, &key, &stamp, &v);
	if (n >= 0) {
		/* what it points at lies inside the text, each a whole line */
		if (v.list < text || v.list > text + size || v.reason < text || v.reason > text + size ||
		    v.cands < text || v.cands > text + size || n > PREPARED_MAX_INPUTS ||
		    (v.loader.path && (v.loader.path < text || v.loader.path > text + size ||
				       v.loader.path[0] != '/' || v.loader.minor > 999)))
			abort();
		prepared_has_candidate(&v, 1, 2);
	}
	free(text);
	return 0;
}
