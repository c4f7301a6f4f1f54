/* SPDX-License-Identifier: MIT */
/* CUDA_VISIBLE_DEVICES as the environment gives it (visible.h): the GPUs
 * seen are of those held, none past them; "why" is a string; a GPU whose
 * UUID is not known is seen wherever one named by UUID is. */
#include <stdlib.h>
#include <string.h>

#include "../../common/host/visible.h"
#include "fuzz.h"

static const char *const uuids[] = {
	"GPU-5d8a6e2c-1f0b-4c93-9a7e-2b64c1d0e8f3",
	"GPU-9e1c4b7a-3d2f-4e6a-8b5c-7f0a1d2e3c4b",
	"GPU-5d8a0000-0000-0000-0000-000000000000",
	NULL,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	if (!s)
		return 0;
	unsigned char named[4];
	for (int i = 0; i < 4; i++)
		named[i] = visible_names(s, uuids[i]);
	for (int order = 0; order < 2; order++) {
		struct visible_ask ask = { s, order };
		char why[256];
		unsigned seen;
		enum visible_rule r = visible_pick(&ask, 4, 4, named, &seen, why, sizeof why);
		if (seen & ~0xfu || !memchr(why, '\0', sizeof why))
			abort();
		if ((r == VISIBLE_NONE) != (seen == 0) || (r == VISIBLE_EVERY && seen != 0xf))
			abort();
		/* the unknown GPU is named by every UUID entry the known ones are */
		if ((named[0] | named[1] | named[2]) & ~named[3])
			abort();
	}
	free(s);
	return 0;
}
