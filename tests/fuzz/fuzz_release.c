/* SPDX-License-Identifier: MIT */
/* /etc/nv_tegra_release and the device tree's compatible strings. */
#include "../../common/probe.h"
#include "../../common/version.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	struct l4t_release r;
	char soc[32];
	if (!s)
		return 0;
	l4t_parse(s, &r);
	probe_soc_from_compatible((const char *)data, size, soc, sizeof soc);
	free(s);
	return 0;
}
