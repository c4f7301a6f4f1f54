/* SPDX-License-Identifier: MIT */
#include "settings.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/array.h"
#include "../base/diag.h"
#include "../elf/elfread.h"
#include "../base/version.h"

#define CONFIG_MAX_SIZE (64 * 1024)
#define CONFIG_MAX_LINE (CL_PATH_MAX + 64)
#define CONFIG_SMALL 1024	/* a config file shorter than this is read on the stack */

const char *const config_default_compat[] = {
	"/usr/local/cuda-*/compat",
	"/usr/local/cuda-*/compat_orin",
	"/usr/local/cuda/compat",
};
const int config_default_compat_n = 3;

static const int default_compat_cuda[3];	/* none stated */

int policy_parse(const char *text, enum policy *out)
{
	if (strcmp(text, "auto") == 0)
		*out = POLICY_AUTO;
	else if (strcmp(text, "compat") == 0)
		*out = POLICY_COMPAT;
	else if (strcmp(text, "system") == 0)
		*out = POLICY_SYSTEM;
	else
		return -1;
	return 0;
}

const char *policy_name(enum policy p)
{
	return p == POLICY_COMPAT ? "compat" : p == POLICY_SYSTEM ? "system" : "auto";
}

const char *mode_name(enum mode m)
{
	return m == MODE_CHAIN ? "chain" : "exec";
}

static int mode_parse(const char *text, enum mode *out)
{
	if (strcmp(text, "exec") == 0)
		*out = MODE_EXEC;
	else if (strcmp(text, "chain") == 0)
		*out = MODE_CHAIN;
	else
		return -1;
	return 0;
}

void settings_warn(struct settings *s, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* A set-id program's stderr is its user's, and the config may be
	 * readable by root alone: its words stay out of it. */
	if (s->secure) {
		if (!s->n_warnings)
			fputs("cudaload: the configuration has a problem (as root: cudaload --explain)\n",
			      stderr);
	} else {
		fprintf(stderr, "cudaload: %s\n", msg);
	}
	if (s->n_warnings < CONFIG_MAX_WARNINGS && (s->warnings[s->n_warnings] = strdup(msg)))
		s->n_warnings++;
}

/* Add the first len bytes of value to list, which has room for *cap.  A
 * list bounds the work a variable or a config can ask of every start; past
 * its bound an entry is dropped, said once per list (*full), never silently. */
static void add_n(struct settings *s, bool *full, char ***list, int *n, size_t *cap,
		  const char *value, size_t len, const char *what)
{
	if (*n >= CONFIG_MAX_LIST) {
		if (!*full)
			settings_warn(s, "%s: more than %d entries; '%.*s' and every later one ignored",
				      what, CONFIG_MAX_LIST, (int)(len > 200 ? 200 : len), value);
		*full = true;
		return;
	}
	char *copy = array_room(list, (size_t)*n, cap, sizeof **list, 8) == 0 ? strndup(value, len) : NULL;
	if (copy)
		(*list)[(*n)++] = copy;
}

static void add(struct settings *s, bool *full, char ***list, int *n, size_t *cap,
		const char *value, const char *what)
{
	add_n(s, full, list, n, cap, value, strlen(value), what);
}

/* A compat entry and the CUDA version stated for it (0 none). */
static void add_compat(struct settings *s, const char *value, int cuda)
{
	int before = s->n_compat;
	if (array_room(&s->compat_cuda, (size_t)before, &s->cap_compat_cuda,
			sizeof *s->compat_cuda, 8) == 0)
		add(s, &s->full_compat, &s->compat, &s->n_compat, &s->cap_compat, value, "compat");
	if (s->n_compat > before)
		s->compat_cuda[before] = cuda;
}

void settings_from_env(struct settings *s, char *const *envp, bool secure)
{
	memset(s, 0, sizeof *s);
	s->root = "";
	s->secure = secure;
	s->policy_from = "default";
	s->mode = MODE_CHAIN;	/* no second execve; exec is the fallback (docs/design.md §6) */
	/* The defaults in place, not copies: start-up allocates nothing on the
	 * way to the system driver.  Never written: the first config line that
	 * names a compat place replaces the list with one of its own. */
	s->compat = (char **)config_default_compat;
	s->compat_cuda = (int *)default_compat_cuda;
	s->n_compat = config_default_compat_n;
	if (secure)
		return;	/* an unprivileged user must not steer a privileged program */

	/* one pass over the environment for every name (a start's own
	 * variables are read before anything else) */
#define VARS(X) X(DEBUG, "CUDALOAD_DEBUG") X(POLICY, "CUDALOAD_POLICY") X(MODE, "CUDALOAD_MODE") \
	X(FIRST_USE, "CUDALOAD_FIRST_USE") X(ROOT, "CUDALOAD_ROOT") X(LDSO, "CUDALOAD_LDSO") \
	X(COMPAT_PATH, "CUDALOAD_COMPAT_PATH") X(VISIBLE, "CUDA_VISIBLE_DEVICES") X(ORDER, "CUDA_DEVICE_ORDER")
	enum { VARS(ENV_ID) N_NAMES };
	static const char names[] = VARS(ENV_NAME);
	static const unsigned char lens[] = { VARS(ENV_LEN) };
#undef VARS
	_Static_assert(N_NAMES <= ENV_EACH_MAX, "env_get_each looks up no more names");
	const char *vals[N_NAMES], *v;
	env_get_each(envp, names, lens, vals, N_NAMES);
	if ((v = vals[DEBUG]) && *v && strcmp(v, "0") != 0)
		s->debug = true;
	diag_on = s->debug;
	if ((v = vals[POLICY])) {
		if (policy_parse(v, &s->policy) == 0) {
			s->policy_from = "CUDALOAD_POLICY";
			s->policy_locked = true;
		} else {
			settings_warn(s, "CUDALOAD_POLICY=%s: not auto, compat or system; ignored", v);
		}
	}
	if ((v = vals[MODE])) {
		if (mode_parse(v, &s->mode) == 0)
			s->mode_locked = true;
		else
			settings_warn(s, "CUDALOAD_MODE=%s: not exec or chain; ignored", v);
	}
	if ((v = vals[FIRST_USE])) {
		if (strcmp(v, "verify") == 0 || strcmp(v, "off") == 0) {
			s->first_use_off = v[0] == 'o';
			s->first_use_locked = true;
		} else {
			settings_warn(s, "CUDALOAD_FIRST_USE=%s: not verify or off; ignored", v);
		}
	}
	if ((v = vals[ROOT]) && *v) {
		if (strlen(v) >= CL_PATH_MAX)
			settings_warn(s, "CUDALOAD_ROOT: too long; ignored");
		else
			s->root = v;
	}
	if ((v = vals[LDSO]) && *v)
		s->ldso_env = strdup(v);
	s->visible.devices = vals[VISIBLE];
	s->visible.pci_order = vals[ORDER] && strcmp(vals[ORDER], "PCI_BUS_ID") == 0;
	if ((v = vals[COMPAT_PATH])) {
		const char *p = v;
		while (*p) {
			size_t n = strcspn(p, ":");
			if (n >= CL_PATH_MAX)
				settings_warn(s, "CUDALOAD_COMPAT_PATH: an entry of %zu bytes is longer than a path can be; ignored", n);
			else if (n > 0)
				add_n(s, &s->full_compat_env, &s->compat_env, &s->n_compat_env,
				      &s->cap_compat_env, p, n, "CUDALOAD_COMPAT_PATH");
			p += n;
			if (*p == ':')
				p++;
		}
	}
}

static char *strip(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

static void bad_line(struct settings *s, const char *name, int lineno, const char *msg)
{
	settings_warn(s, "%s:%d: %s", name, lineno, msg);
}

/* "DIR cuda=X.Y": cut the stated version off value.  0 when none is stated
 * (a path may hold spaces: only a last word starting "cuda=" is taken), -1
 * when it is stated badly. */
static int stated_cuda(char *value)
{
	char *sp = value + strlen(value);
	while (sp > value && !isspace((unsigned char)sp[-1]))
		sp--;
	if (sp == value || strncmp(sp, "cuda=", 5) != 0)
		return 0;
	int cuda = cuda_version_parse(sp + 5, false);
	if (cuda <= 0)
		return -1;
	sp[-1] = '\0';
	strip(value);
	return cuda;
}

/* The config text, cut into lines in place (no line buffer on the stack). */
static void parse_text(struct settings *s, char *text, const char *name)
{
	int lineno = 0;

	while (*text) {
		size_t n = strcspn(text, "\n");
		lineno++;
		char *line = text;
		text += n + (text[n] == '\n');
		if (n >= CONFIG_MAX_LINE) {
			bad_line(s, name, lineno, "line too long; skipped");
			continue;
		}
		line[n] = '\0';

		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *l = strip(line);
		if (!*l)
			continue;
		char *eq = strchr(l, '=');
		if (!eq) {
			bad_line(s, name, lineno, "expected 'key = value'; skipped");
			continue;
		}
		*eq = '\0';
		char *key = strip(l), *value = strip(eq + 1);
		if (!*value) {
			bad_line(s, name, lineno, "empty value; skipped");
		} else if (strcmp(key, "policy") == 0) {
			enum policy p;
			if (policy_parse(value, &p) < 0)
				bad_line(s, name, lineno, "policy must be auto, compat or system; skipped");
			else if (!s->policy_locked) {
				s->policy = p;
				s->policy_from = "config";
			}
		} else if (strcmp(key, "mode") == 0) {
			enum mode m;
			if (mode_parse(value, &m) < 0)
				bad_line(s, name, lineno, "mode must be exec or chain; skipped");
			else if (!s->mode_locked)
				s->mode = m;
		} else if (strcmp(key, "first_use") == 0) {
			if (strcmp(value, "verify") == 0 || strcmp(value, "off") == 0) {
				if (!s->first_use_locked)
					s->first_use_off = value[0] == 'o';
			} else
				bad_line(s, name, lineno, "first_use must be verify or off; skipped");
		} else if (strcmp(key, "compat") == 0 || strcmp(key, "driver_dir") == 0) {
			bool compat = key[0] == 'c';
			int cuda = compat ? stated_cuda(value) : 0;
			if (cuda < 0) {
				bad_line(s, name, lineno, "cuda= needs a version like 12.2; skipped");
				continue;
			}
			if (value[0] != '/') {
				bad_line(s, name, lineno, "path must be absolute; skipped");
				continue;
			}
			if (compat && !s->compat_from_config) {
				/* the first compat line replaces the defaults */
				s->compat = NULL;
				s->compat_cuda = NULL;
				s->n_compat = 0;
				s->cap_compat = s->cap_compat_cuda = 0;
				s->compat_from_config = true;
			}
			if (compat) {
				add_compat(s, value, cuda);
			} else
				add(s, &s->full_driver_dirs, &s->driver_dirs, &s->n_driver_dirs,
				    &s->cap_driver_dirs, value, "driver_dir");
		} else if (strcmp(key, "runtime") == 0) {
			/* cudaload-runtime's next runtime (tools/runtime/next.h); a
			 * start does not read it */
			free(s->runtime);
			s->runtime = strdup(value);
		} else if (strncmp(key, "ldso.", 5) == 0 && key[5]) {
			if (strlen(key + 5) >= sizeof s->ldso[0].machine || value[0] != '/') {
				bad_line(s, name, lineno, "ldso.<machine> needs a machine name and an absolute path; skipped");
			} else if (s->n_ldso >= CONFIG_MAX_LDSO) {
				bad_line(s, name, lineno, "too many ldso entries; skipped");
			} else {
				if (elfread_machine_from_name(key + 5) < 0) {
					char msg[160];
					snprintf(msg, sizeof msg, "ldso.%.20s: no machine of that name (x86_64, aarch64, ...); kept, but no program will use it",
						 key + 5);
					bad_line(s, name, lineno, msg);
				}
				struct ldso_entry *e = &s->ldso[s->n_ldso];
				strcpy(e->machine, key + 5);
				if ((e->path = strdup(value)))
					s->n_ldso++;
			}
		} else {
			char msg[160];
			snprintf(msg, sizeof msg, "unknown key '%.40s'; skipped", key);
			bad_line(s, name, lineno, msg);
		}
	}
}

void settings_parse_config(struct settings *s, const char *text, const char *name)
{
	char *copy = strdup(text);
	if (copy)
		parse_text(s, copy, name);
	else
		settings_warn(s, "%s: out of memory; config ignored", name);
	free(copy);
}

static void settings_keep_config_path(struct settings *s, const char *path)
{
	if (s->config_path != s->config_path_here)
		free(s->config_path);
	size_t n = strlen(path);
	if (n < sizeof s->config_path_here)
		s->config_path = memcpy(s->config_path_here, path, n + 1);
	else
		s->config_path = strdup(path);
}

/* Read a config file.  In secure mode, only one root owns and only it may write. */
static bool read_config(struct settings *s, const char *path, bool must_exist)
{
	int fd = open_ro(path, O_NONBLOCK);
	if (fd < 0) {
		if (must_exist || fd != -ENOENT)
			settings_warn(s, "%s: %s; config ignored", path, strerror(-fd));
		return false;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		settings_warn(s, "%s: not a regular file; config ignored", path);
		close(fd);
		return true;
	}
	if (s->secure && (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)))) {
		diag("%s: not root-owned or writable by others; ignored in secure mode", path);
		close(fd);
		return true;
	}
	size_t want = st.st_size < CONFIG_MAX_SIZE ? (size_t)st.st_size : CONFIG_MAX_SIZE;
	/* most config files: read on the stack, no heap (values are copied) */
	char small[CONFIG_SMALL];
	char *buf = want < sizeof small ? small : malloc(want + 1);
	size_t got = 0;
	ssize_t n = 0;
	while (buf && got < want && (n = read(fd, buf + got, want - got)) > 0)
		got += (size_t)n;
	close(fd);
	if (!buf || n < 0) {
		settings_warn(s, "%s: cannot read; config ignored", path);
	} else {
		buf[got] = '\0';
		if ((uint64_t)st.st_size > CONFIG_MAX_SIZE)
			settings_warn(s, "%s: larger than %d bytes; the rest is ignored",
				path, CONFIG_MAX_SIZE);
		if (strlen(buf) != got)
			settings_warn(s, "%s: contains a NUL byte; read up to it", path);
		settings_keep_config_path(s, path);
		parse_text(s, buf, path);
		diag("config %s", path);
	}
	if (buf != small)
		free(buf);
	return true;
}

void settings_load_config(struct settings *s, char *const *envp, const char *self_path)
{
	const char *v = s->secure ? NULL : env_get(envp, "CUDALOAD_CONFIG");

	if (v && *v) {
		read_config(s, v, true);
		return;
	}
	const char *etc = "/etc/cudaload.conf";
	char small[256];	/* most paths: no allocation on the way to the driver */
	const char *root = s->secure ? NULL : s->root;
	char *path = root_join(small, sizeof small, root, etc) == 0 ? small : root_path(root, etc);
	bool found = path && read_config(s, path, false);
	if (path != small)
		root_path_free(path, etc);
	const char *slash = self_path ? strrchr(self_path, '/') : NULL;
	if (found || s->secure || !slash)
		return;
	static const char beside[] = "/../etc/cudaload.conf";
	size_t dl = (size_t)(slash - self_path);
	path = dl + sizeof beside <= sizeof small ? small : malloc(dl + sizeof beside);
	if (!path)
		return;
	memcpy(path, self_path, dl);
	memcpy(path + dl, beside, sizeof beside);
	read_config(s, path, false);
	if (path != small)
		free(path);
}

const char *settings_ldso_for(const struct settings *s, const char *machine)
{
	for (int i = s->n_ldso - 1; i >= 0; i--)
		if (machine && strcmp(s->ldso[i].machine, machine) == 0)
			return s->ldso[i].path;
	return NULL;
}

void settings_free(struct settings *s)
{
	free(s->ldso_env);
	free(s->runtime);
	if (s->config_path != s->config_path_here)
		free(s->config_path);
	for (int i = 0; i < s->n_compat_env; i++)
		free(s->compat_env[i]);
	if (s->compat_from_config) {
		for (int i = 0; i < s->n_compat; i++)
			free(s->compat[i]);
		free(s->compat);
		free(s->compat_cuda);
	}
	for (int i = 0; i < s->n_driver_dirs; i++)
		free(s->driver_dirs[i]);
	free(s->compat_env);
	free(s->driver_dirs);
	for (int i = 0; i < s->n_ldso; i++)
		free(s->ldso[i].path);
	for (int i = 0; i < s->n_warnings; i++)
		free(s->warnings[i]);
	memset(s, 0, sizeof *s);
}
