/* SPDX-License-Identifier: MIT */
/* The JSON of .note.cuda.fwd_compatibility, and a toolkit's version.json
 * (the same parser). */
#include "../../common/packages/notejson.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct compat_note n;
	char why[128];
	if (notejson_parse((const char *)data, size, &n, why, sizeof why) == 0 &&
	    n.n_drivers > NOTE_MAX_DRIVERS)
		abort();
	/* a version only from a whole object: its last non-blank byte is '}' */
	if (notejson_version_file((const char *)data, size, why, sizeof why) > 0) {
		size_t end = size;
		while (end && (data[end - 1] == ' ' || data[end - 1] == '\t' ||
			       data[end - 1] == '\n' || data[end - 1] == '\r'))
			end--;
		if (!end || data[end - 1] != '}')
			abort();
	}
	return 0;
}
