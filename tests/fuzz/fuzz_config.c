/* SPDX-License-Identifier: MIT */
/* cudaload.conf, and the same bytes as CUDALOAD_COMPAT_PATH and
 * CUDALOAD_LDSO (a loader that is no loader, a list
 * past its bound). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/settings/settings.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	struct settings st;
	if (!s)
		return 0;
	char *compat_path = malloc(size + sizeof "CUDALOAD_COMPAT_PATH=");
	char *ldso = malloc(size + sizeof "CUDALOAD_LDSO=");
	if (!compat_path || !ldso)
		abort();
	strcat(strcpy(compat_path, "CUDALOAD_COMPAT_PATH="), s);
	strcat(strcpy(ldso, "CUDALOAD_LDSO="), s);
	char *env[] = { compat_path, ldso, NULL };
	/* bad lines are reported on stderr: keep the fuzzer's own output readable */
	int saved = dup(2), null = open("/dev/null", O_WRONLY);
	fflush(stderr);
	dup2(null, 2);
	settings_from_env(&st, env, false);
	settings_parse_config(&st, s, "fuzz.conf");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(null);
	if (st.n_compat > CONFIG_MAX_LIST || st.n_compat_env > CONFIG_MAX_LIST ||
	    st.n_ldso > CONFIG_MAX_LDSO)
		abort();
	settings_free(&st);
	free(ldso);
	free(compat_path);
	free(s);
	return 0;
}
