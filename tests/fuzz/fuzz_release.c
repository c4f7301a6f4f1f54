/* SPDX-License-Identifier: MIT */
/* What the probe reads as text: /etc/nv_tegra_release, the device tree's
 * compatible strings, a GPU's information file. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/host/probe.h"
#include "../../common/base/version.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	struct l4t_release r;
	char soc[32], model[64], uuid[48];
	bool pci;
	if (!s)
		return 0;
	l4t_release_parse(s, &r);
	probe_soc_from_compatible((const char *)data, size, soc, sizeof soc);
	probe_gpu_information(s, model, sizeof model, &pci, uuid, sizeof uuid);
	if (!memchr(model, '\0', sizeof model) || !memchr(uuid, '\0', sizeof uuid))
		abort();
	if (uuid[0] && strncmp(uuid, "GPU-", 4) != 0)
		abort();	/* whole or nothing */
	free(s);
	return 0;
}
