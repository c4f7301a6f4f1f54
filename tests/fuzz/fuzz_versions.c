/* SPDX-License-Identifier: MIT */
/* Version strings: CUDA, driver, /proc/driver/nvidia/version, ld.so names. */
#include "../../common/elf/ldso.h"
#include "../../common/base/version.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	struct driver_version v;
	char buf[16];
	if (!s)
		return 0;
	cuda_version_format(cuda_version_parse(s, false), buf, sizeof buf);
	cuda_version_parse(s, true);
	driver_version_parse(s, &v);
	nvrm_version_parse(s, &v);
	ldso_minor_from_name(s);
	free(s);
	return 0;
}
