/* SPDX-License-Identifier: MIT */
#include "next.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/base/why.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* Is file an executable that is not this very program? */
static bool runnable(const char *file, const struct stat *self, bool *is_self)
{
	struct stat st;
	if (stat(file, &st) < 0 || !S_ISREG(st.st_mode) || access(file, X_OK) < 0)
		return false;
	*is_self = st.st_dev == self->st_dev && st.st_ino == self->st_ino;
	return true;
}

/* name (no '/') on path into out; skips copies of self.  true when found;
 * *saw_self when a copy of self was passed over. */
static bool on_path(const char *name, const char *path, const struct stat *self, char *out, size_t cap,
		    bool *saw_self)
{
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, ":");
		bool is_self;
		int len = snprintf(out, cap, "%.*s/%s", (int)n, n ? p : ".", name);
		if (len > 0 && (size_t)len < cap && runnable(out, self, &is_self)) {
			if (!is_self)
				return true;
			*saw_self = true;
		}
		p += n + (p[n] == ':');
	}
	return false;
}

int next_runtime(const char *configured, const char *path, char *out, size_t cap, char *why, size_t wcap)
{
	struct stat self;
	bool is_self = false, saw_self = false;
	if (stat("/proc/self/exe", &self) < 0)
		return why_fail(why, wcap, "/proc/self/exe: cannot tell which program is this one");
	if (!path || !*path)
		path = DEFAULT_PATH;
	if (configured) {
		bool found = strchr(configured, '/')
			? snprintf(out, cap, "%s", configured) < (int)cap && runnable(out, &self, &is_self)
			: on_path(configured, path, &self, out, cap, &saw_self);
		if (found && !is_self)
			return 0;
		return why_fail(why, wcap, "the runtime cudaload.conf names (runtime = %s) %s", configured,
				is_self || saw_self ? "is cudaload-runtime itself: it would run itself forever"
						    : "is not an executable file");
	}
	static const char *const names[] = { "nvidia-container-runtime", NEXT_OPERATOR_RUNTIME, "runc", "crun" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (names[i][0] == '/') {
			if (snprintf(out, cap, "%s", names[i]) < (int)cap && runnable(out, &self, &is_self) && !is_self)
				return 0;
		} else if (on_path(names[i], path, &self, out, cap, &saw_self)) {
			return 0;
		}
	}
	return why_fail(why, wcap, "no runtime to run next: none of nvidia-container-runtime, runc, crun on PATH "
		       "(%s)%s; name one with runtime = in cudaload.conf", path,
		       saw_self ? ", but for copies of cudaload-runtime" : "");
}
