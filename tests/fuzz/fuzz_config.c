/* cudaload.conf. */
#include <stdio.h>

#include "../../common/config.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *quiet;
	if (!quiet)	/* bad lines are reported on stderr: keep the run readable */
		quiet = freopen("/dev/null", "w", stderr);
	char *s = fuzz_cstr(data, size);
	struct settings st;
	if (!s)
		return 0;
	settings_from_env(&st, NULL, false);
	settings_parse_config(&st, s, "fuzz.conf");
	if (st.n_compat > CONFIG_MAX_LIST || st.n_ldso > CONFIG_MAX_LDSO)
		abort();
	settings_free(&st);
	free(s);
	return 0;
}
