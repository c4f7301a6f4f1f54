/* SPDX-License-Identifier: MIT */
/* cudaload.conf. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "../../common/config.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	struct settings st;
	if (!s)
		return 0;
	settings_from_env(&st, NULL, false);
	/* bad lines are reported on stderr: keep the fuzzer's own output readable */
	int saved = dup(2), null = open("/dev/null", O_WRONLY);
	fflush(stderr);
	dup2(null, 2);
	settings_parse_config(&st, s, "fuzz.conf");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(null);
	if (st.n_compat > CONFIG_MAX_LIST || st.n_ldso > CONFIG_MAX_LDSO)
		abort();
	settings_free(&st);
	free(s);
	return 0;
}
