/* SPDX-License-Identifier: MIT */
/* cudaload-runtime's reader of config.json and its one edit
 * (tools/runtime/spec.h), run by the engine on every container: the input
 * is accepted or refused with a reason; where accepted and the hook added,
 * the result reads again, holds the hook, and says the same of the GPU and
 * the opt-out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/runtime/spec.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	char why[256];
	struct spec_scan s, again;
	why[0] = '\0';
	if (spec_scan(text, size, &s, why, sizeof why) < 0) {
		if (!why[0])
			abort();
		return 0;
	}
	if (s.close_at >= size || (text[s.close_at] != '}' && text[s.close_at] != ']'))
		abort();
	size_t len;
	char *out = spec_add_hook(text, size, &s, "{\"path\":\"/usr/bin/cudaload\",\"args\":[\"cudaload\",\"--oci-hook\"]}",
				  &len);
	if (!out)
		return 0;
	if (spec_scan(out, len, &again, why, sizeof why) < 0 || !again.hooked || strcmp(again.gpu, s.gpu) != 0 ||
	    strcmp(again.opted_out, s.opted_out) != 0)
		abort();
	free(out);
	return 0;
}
