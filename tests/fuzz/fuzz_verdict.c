/* SPDX-License-Identifier: MIT */
/* The verdict store (common/packages/verdict.h): the loader reads it at every exec. */
#include "../../common/stores/verdicts.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct verdict_store s;
	struct verdict_entry e;
	char why[160], buf[160];
	const char *text = (const char *)data;
	if (verdict_parse(text, size, &s, why, sizeof why) < 0)
		return 0;
	verdict_describe(&s.system, buf, sizeof buf);
	for (size_t pos = 0; verdict_next(&s, &pos, &e);) {
		/* every entry lies inside the text and names an absolute dir */
		if (e.dir < text || e.dir + e.dir_len > text + size || e.dir_len == 0 || e.dir[0] != '/')
			abort();
		verdict_describe(&e.v, buf, sizeof buf);
		verdict_token(&e.v, buf, sizeof buf);
		verdict_step_token(&e.v, buf, sizeof buf);
		/* what the parser accepts is what verdict.h allows */
		if (e.v.step > VSTEP_DONE || e.v.devices < 0 || e.v.devices > VERDICT_DEVICES_MAX ||
		    (e.v.step >= VSTEP_DEVICE && e.v.step <= VSTEP_MODULE && e.v.device >= e.v.devices) ||
		    (verdict_ok(&e.v) && e.v.step != VSTEP_DONE))
			abort();
		verdict_past(&s.system, &e.v);
	}
	return 0;
}
