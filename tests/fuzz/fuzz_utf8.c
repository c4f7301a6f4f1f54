/* SPDX-License-Identifier: MIT */
/* Names as read (paths, models, config values) written as JSON and as text
 * for a terminal: the JSON must be UTF-8 with no raw control byte, the text
 * must hold no control byte at all, whatever the input. */
#include <stdbool.h>
#include <stdio.h>

#include "../../common/json.h"
#include "../../common/utf8.h"
#include "fuzz.h"

/* Valid UTF-8 without C0 controls; for text also without DEL and C1. */
static void check(const char *out, size_t len, bool text)
{
	const unsigned char *p = (const unsigned char *)out;
	for (size_t i = 0; i < len;) {
		size_t k = utf8_seq(p + i, len - i);
		bool c1 = k == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0;
		if (!k || p[i] < 0x20 || (text && (p[i] == 0x7f || c1)))
			abort();
		i += k;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	char *buf = NULL;
	size_t len = 0;
	if (!s)
		return 0;
	FILE *f = open_memstream(&buf, &len);
	if (f) {
		json_str(f, s);	/* up to the first NUL, as the callers' strings */
		fclose(f);
		check(buf, len, false);
		free(buf);
	}
	f = open_memstream(&buf, &len);
	if (f) {
		utf8_text(f, (const char *)data, size);
		fclose(f);
		check(buf, len, true);
		free(buf);
	}
	free(s);
	return 0;
}
