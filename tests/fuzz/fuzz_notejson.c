/* SPDX-License-Identifier: MIT */
/* The JSON of .note.cuda.fwd_compatibility. */
#include "../../common/notejson.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct compat_note n;
	char why[128];
	if (notejson_parse((const char *)data, size, &n, why, sizeof why) == 0 &&
	    n.n_drivers > NOTE_MAX_DRIVERS)
		abort();
	return 0;
}
