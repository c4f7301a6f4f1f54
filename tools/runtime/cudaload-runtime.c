/* SPDX-License-Identifier: MIT */
/*
 * cudaload-runtime: an OCI runtime that wraps the next one (next.h), so
 * that every GPU container an engine starts gets the container hook
 * (loader/commands/ocihook/ocihook.h) without asking for it: Docker,
 * containerd (a Kubernetes node's CRI), CRI-O and podman all run an OCI
 * runtime they are told of (docs/containers.md).
 *
 * For create and run, it reads the bundle's config.json (spec.h) and,
 * where the container gets an NVIDIA GPU and did not opt out, appends
 * `cudaload --oci-hook` (the cudaload beside this program) to its
 * createContainer hooks, with an environment of this program's own: PATH
 * and its CUDALOAD_* settings, which the engine's service gives it, never
 * the container's.  config.json is written back atomically, and then the
 * next runtime runs with the arguments as they came.  Every other command
 * goes to the next runtime untouched.
 *
 * Never worse: a bundle it cannot read, parse or write is passed on
 * unchanged, with one line on stderr (the engines keep it in their logs).
 * configure and unconfigure (engines.h) register it with an engine.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/base/atomicfile.h"
#include "../../common/base/json.h"
#include "../../common/base/sys.h"
#include "../../common/base/utf8.h"
#include "../../common/base/why.h"
#include "../../common/settings/settings.h"
#include "engines.h"
#include "next.h"
#include "spec.h"

/* runc's and crun's global options that take a value as the next word */
static int takes_value(const char *opt)
{
	static const char names[] = "root\0log\0log-format\0log-level\0criu\0rootless\0cgroup-manager\0";
	while (*opt == '-')
		opt++;
	if (strchr(opt, '='))
		return 0;
	for (const char *n = names; *n; n += strlen(n) + 1)
		if (strcmp(opt, n) == 0)
			return 1;
	return 0;
}

/* The index of the command word in argv, or 0. */
static int command_at(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] != '-')
			return i;
		i += takes_value(argv[i]);
	}
	return 0;
}

/* create's and run's --bundle (-b), else the working directory. */
static const char *bundle_of(int argc, char **argv, int cmd)
{
	for (int i = cmd + 1; i < argc; i++) {
		const char *a = argv[i];
		while (*a == '-')
			a++;
		if (a == argv[i])
			continue;
		if ((strcmp(a, "bundle") == 0 || strcmp(a, "b") == 0) && i + 1 < argc)
			return argv[i + 1];
		if (strncmp(a, "bundle=", 7) == 0)
			return a + 7;
		if (strncmp(a, "b=", 2) == 0)
			return a + 2;
	}
	return ".";
}

/* JSON holds text: a value that is not UTF-8 would reach the runtime
 * changed (Go's decoder makes each bad byte U+FFFD). */
static bool is_utf8(const char *s)
{
	size_t n = strlen(s), k;
	for (const unsigned char *p = (const unsigned char *)s; n; p += k, n -= k)
		if (!(k = utf8_seq(p, n)))
			return false;
	return true;
}

/* The hook entry: the cudaload beside self, its environment PATH and our
 * own CUDALOAD_* settings.  NULL with why. */
static char *hook_entry(const char *self, char **envp, char *why, size_t cap)
{
	static char cudaload[PATH_MAX];
	const char *slash = strrchr(self, '/');
	int n = snprintf(cudaload, sizeof cudaload, "%.*s/cudaload", slash ? (int)(slash - self) : 1,
			 slash ? self : ".");
	if (n < 0 || (size_t)n >= sizeof cudaload || access(cudaload, X_OK) < 0) {
		why_fail(why, cap, "no cudaload beside it (%s)", cudaload);
		return NULL;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) {
		why_fail(why, cap, "out of memory");
		return NULL;
	}
	const char *path = NULL;
	for (char **e = envp; *e; e++)
		if (strncmp(*e, "PATH=", 5) == 0 && is_utf8(*e))
			path = *e;
	fputs("{\"path\":", f);
	json_str_as_is(f, cudaload);
	fputs(",\"args\":[\"cudaload\",\"--oci-hook\"],\"env\":[", f);
	json_str_as_is(f, path ? path : "PATH=/usr/sbin:/usr/bin:/sbin:/bin");
	for (char **e = envp; *e; e++)
		if (strncmp(*e, "CUDALOAD_", 9) != 0) {
			continue;
		} else if (is_utf8(*e)) {
			fputc(',', f);
			json_str_as_is(f, *e);
		} else {
			fprintf(stderr, "cudaload-runtime: %.*s: not UTF-8, left out of the hook's environment\n",
				(int)strcspn(*e, "="), *e);
		}
	fputs("]}", f);
	if (fclose(f) != 0) {
		free(text);
		why_fail(why, cap, "out of memory");
		return NULL;
	}
	return text;
}

/* What it made of a bundle, on stderr where CUDALOAD_DEBUG is set: only
 * then, since runc's stderr is the container's own (the engines' logs).  0. */
static int said(char **envp, const char *bundle, const char *what, const char *done)
{
	for (char **e = envp; *e; e++)
		if (strncmp(*e, "CUDALOAD_DEBUG=", 15) == 0 && (*e)[15] && strcmp(*e + 15, "0") != 0)
			fprintf(stderr, "cudaload-runtime: %s: %s: %s\n", bundle, what, done);
	return 0;
}

/* The hook added to bundle's config.json where the container gets a GPU
 * and did not opt out.  0 when done or not wanted; -1 with why. */
static int add_hook(const char *bundle, const char *self, char **envp, char *why, size_t cap)
{
	int dirfd = open(bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd = -1, rc = -1;
	struct stat st;
	char *text = NULL, *entry = NULL, *out = NULL, inner[256];
	struct spec_scan s;
	size_t out_len;
	if (dirfd < 0)
		why_fail(why, cap, "the bundle %s: %s", bundle, strerror(errno));
	else if ((fd = openat(dirfd, "config.json", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0 ||
		 fstat(fd, &st) < 0)
		why_fail(why, cap, "%s/config.json: %s", bundle, strerror(errno));
	else if (!S_ISREG(st.st_mode) || st.st_size > SPEC_MAX)
		why_fail(why, cap, "%s/config.json: not a regular file of at most %d MiB", bundle, SPEC_MAX >> 20);
	else if (!(text = malloc((size_t)st.st_size + 1)) || pread_full(fd, text, (size_t)st.st_size, 0) < 0)
		why_fail(why, cap, "%s/config.json: cannot read it", bundle);
	else if (spec_scan(text, (size_t)st.st_size, &s, inner, sizeof inner) < 0)
		why_fail(why, cap, "%s/config.json: %s", bundle, inner);
	else if (!s.gpu[0] || s.opted_out[0] || s.hooked)
		rc = said(envp, bundle, !s.gpu[0] ? "no NVIDIA GPU" : s.opted_out[0] ? s.opted_out : s.gpu,
			  !s.gpu[0] ? "unchanged" : s.opted_out[0] ? "opted out, unchanged"
							   : "the cudaload hook is there already, unchanged");
	else if (!(entry = hook_entry(self, envp, inner, sizeof inner)))
		why_fail(why, cap, "%s", inner);
	else if (!(out = spec_add_hook(text, (size_t)st.st_size, &s, entry, &out_len)))
		why_fail(why, cap, "out of memory");
	else if (atomic_replace(dirfd, "config.json", out, out_len, st.st_mode & 07777, false) < 0)
		why_fail(why, cap, "%s/config.json: cannot write it: %s", bundle, strerror(errno));
	else
		rc = said(envp, bundle, s.gpu, "the cudaload hook added");
	if (fd >= 0)
		close(fd);
	if (dirfd >= 0)
		close(dirfd);
	free(text);
	free(entry);
	free(out);
	return rc;
}

int main(int argc, char **argv, char **envp)
{
	/* static: the loader's objects it links keep their frames small, and
	 * so does this */
	static char self[PATH_MAX], next[PATH_MAX], why[512];
	static struct settings s;
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = '\0';
	} else if (!realpath(argv[0], self)) {	/* no /proc: a chroot being set up */
		fprintf(stderr, "cudaload-runtime: cannot tell where this program is: /proc/self/exe: %s\n",
			strerror(errno));
		return 127;
	}
	if (argc > 1 && (strcmp(argv[1], "configure") == 0 || strcmp(argv[1], "unconfigure") == 0))
		return engines_main(argc - 1, argv + 1, self);

	settings_load_config(&s, envp, self);
	int found = next_runtime(s.runtime, getenv("PATH"), next, sizeof next, why, sizeof why);
	settings_free(&s);
	if (found < 0) {
		fprintf(stderr, "cudaload-runtime: %s\n", why);
		return 127;
	}
	int cmd = command_at(argc, argv);
	if (cmd && (strcmp(argv[cmd], "create") == 0 || strcmp(argv[cmd], "run") == 0) &&
	    add_hook(bundle_of(argc, argv, cmd), self, envp, why, sizeof why) < 0)
		fprintf(stderr, "cudaload-runtime: %s; the container starts without the cudaload hook\n", why);
	argv[0] = next;
	execv(next, argv);
	int err = errno;
	fprintf(stderr, "cudaload-runtime: %s: %s\n", next, strerror(err));
	return err == ENOENT ? 127 : 126;
}
