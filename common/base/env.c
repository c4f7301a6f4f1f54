/* SPDX-License-Identifier: MIT */
#include "env.h"

#include <stdbool.h>
#include <stdint.h>

/* Is entry "name=..."?  Compared here, not by a call: a start looks a
 * dozen names up in an environment of dozens, and most differ in their
 * first bytes. */
static inline __attribute__((always_inline)) bool env_is(const char *entry, const char *name, size_t n)
{
	size_t i = 0;
	while (i < n && entry[i] == name[i])
		i++;
	return i == n && entry[n] == '=';
}

void env_get_each(char *const *envp, const char *names, const unsigned char *lens,
		  const char **values, size_t n)
{
	const char *name[ENV_EACH_MAX];
	uint64_t firsts[4] = { 0 };	/* the names' first bytes: most entries start otherwise */
	for (size_t i = 0; i < n; i++)
		values[i] = NULL;
	n = n < ENV_EACH_MAX ? n : ENV_EACH_MAX;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)names[0];
		firsts[c / 64] |= 1ull << (c % 64);
		name[i] = names;
		names += lens[i] + 1;
	}
	size_t left = n;
	for (; envp && *envp && left; envp++) {
		unsigned char c = (unsigned char)(*envp)[0];
		if (!(firsts[c / 64] >> (c % 64) & 1))
			continue;
		for (size_t i = 0; i < n; i++)
			if (!values[i] && env_is(*envp, name[i], lens[i])) {
				values[i] = *envp + lens[i] + 1;
				left--;
				break;
			}
	}
}

const char *env_find(char *const *envp, const char *name, size_t len)
{
	for (; envp && *envp; envp++)
		if ((*envp)[0] == name[0] && env_is(*envp, name, len))
			return *envp + len + 1;
	return NULL;
}

const char *env_find_last(char *const *envp, const char *name, size_t len)
{
	const char *v = NULL;
	for (; envp && *envp; envp++)
		if ((*envp)[0] == name[0] && env_is(*envp, name, len))
			v = *envp + len + 1;
	return v;
}
