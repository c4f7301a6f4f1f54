/* SPDX-License-Identifier: MIT */
#include "bundle.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../../common/base/jsonread.h"
#include "../../../common/base/sys.h"
#include "../../../common/base/why.h"

/* ---- the state ---- */

static bool state_member(struct jsonread *r, const char *key, void *ctx)
{
	struct bundle *b = ctx;
	bool cut = false;
	char **field = strcmp(key, "bundle") == 0 ? &b->path : strcmp(key, "id") == 0 ? &b->id : NULL;
	size_t cap = field == &b->path ? CL_PATH_MAX : BUNDLE_ID_MAX;
	if (!field)
		return jsonread_skip(r);
	free(*field);
	/* on the heap: the loader's writable data is one page, for every start
	 * (docs/design.md §6) */
	*field = malloc(cap);
	if (!*field)
		return jsonread_fail(r, "out of memory");
	return jsonread_string(r, *field, cap, &cut) &&
	       (!cut || jsonread_fail(r, field == &b->path ? "\"bundle\" too long" : "\"id\" too long"));
}

int bundle_parse_state(const char *text, size_t len, struct bundle *b, char *why, size_t cap)
{
	struct jsonread r;
	jsonread_init(&r, text, len);
	r.any_number = true;
	if (!jsonread_object(&r, state_member, b, true, NULL))
		return why_fail(why, cap, "%s at byte %ld", r.err, (long)(r.p - text));
	if (!b->path || b->path[0] != '/')
		return why_fail(why, cap, "it names no absolute bundle");
	return 0;
}

/* ---- config.json ---- */

/* The process.env entries the judgement reads: the search list, the
 * places packages live, and CUDALOAD_* (to tell a hook environment that is
 * the container's). */
static bool keep_env(const char *e)
{
	/* one string, the names one after another: a table of pointers would
	 * be relocations that every start of cudaload applies */
	static const char names[] = "LD_LIBRARY_PATH=\0CONDA_PREFIX=\0CUDA_HOME=\0CUDA_PATH=\0CUDALOAD_\0";
	for (const char *n = names; *n; n += strlen(n) + 1)
		if (strncmp(e, n, strlen(n)) == 0)
			return true;
	return false;
}

struct config_read {
	struct bundle *b;
	char *text;		/* BUNDLE_ENV_ENTRY_MAX bytes */
	/* one linux.devices entry */
	char dev_path[64];
	long major, minor;
	bool has_minor, dev_path_cut;
	/* one mounts entry */
	char destination[16], type[16];
	bool destination_cut, type_cut;
};

static bool env_element(struct jsonread *r, size_t i, void *ctx)
{
	struct config_read *c = ctx;
	bool cut;
	(void)i;
	if (!jsonread_string(r, c->text, BUNDLE_ENV_ENTRY_MAX, &cut))
		return false;
	if (cut)
		return jsonread_fail(r, "a process.env entry is longer than 64 KiB");
	if (!keep_env(c->text))
		return true;
	if (c->b->n_env == BUNDLE_ENV_MAX)
		return jsonread_fail(r, "more CUDALOAD_*, search-list and toolkit variables in process.env "
				     "than the hook reads");
	return (c->b->env[c->b->n_env++] = strdup(c->text)) != NULL || jsonread_fail(r, "out of memory");
}

static bool process_member(struct jsonread *r, const char *key, void *ctx)
{
	return strcmp(key, "env") == 0 ? jsonread_array(r, env_element, ctx) : jsonread_skip(r);
}

static bool device_member(struct jsonread *r, const char *key, void *ctx)
{
	struct config_read *c = ctx;
	if (strcmp(key, "path") == 0)	/* a longer path is not an NVIDIA node */
		return jsonread_string(r, c->dev_path, sizeof c->dev_path, &c->dev_path_cut);
	if (strcmp(key, "major") == 0)
		return jsonread_number(r, &c->major);
	if (strcmp(key, "minor") == 0)
		return (c->has_minor = jsonread_number(r, &c->minor));
	return jsonread_skip(r);
}

long bundle_nvidia_node(const char *name)
{
	static const char prefix[] = "nvidia";
	if (strncmp(name, prefix, sizeof prefix - 1) != 0)
		return -1;
	const char *d = name + sizeof prefix - 1;
	char *end;
	long n = *d >= '0' && *d <= '9' ? strtol(d, &end, 10) : -1;
	return n >= 0 && n < 256 && !*end ? n : -1;
}

void bundle_add_minor(struct bundle *b, long minor)
{
	for (int i = 0; i < b->n_minors; i++)
		if (b->minors[i] == minor)
			return;
	if (b->n_minors == BUNDLE_MINORS_MAX)
		b->minors_full = true;
	else
		b->minors[b->n_minors++] = (int)minor;
}

static bool device_element(struct jsonread *r, size_t i, void *ctx)
{
	struct config_read *c = ctx;
	(void)i;
	c->dev_path[0] = '\0';
	c->dev_path_cut = false;
	c->major = NVIDIA_MAJOR;
	c->has_minor = false;
	if (!jsonread_object(r, device_member, c, false, NULL))
		return false;
	long n = !c->dev_path_cut && strncmp(c->dev_path, "/dev/", 5) == 0 ? bundle_nvidia_node(c->dev_path + 5)
									     : -1;
	if (n >= 0 && c->major == NVIDIA_MAJOR) {
		if (c->has_minor && (c->minor < 0 || c->minor > 255))
			return jsonread_fail(r, "an NVIDIA device's minor is out of range");
		bundle_add_minor(c->b, c->has_minor ? c->minor : n);
		c->b->gpus_from = "config.json";
	}
	return true;
}

static bool linux_member(struct jsonread *r, const char *key, void *ctx)
{
	return strcmp(key, "devices") == 0 ? jsonread_array(r, device_element, ctx) : jsonread_skip(r);
}

static bool mount_member(struct jsonread *r, const char *key, void *ctx)
{
	struct config_read *c = ctx;
	if (strcmp(key, "destination") == 0)
		return jsonread_string(r, c->destination, sizeof c->destination, &c->destination_cut);
	if (strcmp(key, "type") == 0)
		return jsonread_string(r, c->type, sizeof c->type, &c->type_cut);
	return jsonread_skip(r);
}

/* Only "/run" and "tmpfs" matter: a longer value is neither. */
static bool mount_element(struct jsonread *r, size_t i, void *ctx)
{
	struct config_read *c = ctx;
	(void)i;
	c->destination[0] = c->type[0] = '\0';
	c->destination_cut = c->type_cut = false;
	if (!jsonread_object(r, mount_member, c, false, NULL))
		return false;
	if (!c->destination_cut && !c->type_cut && (strcmp(c->destination, "/run") == 0 ||
						    strcmp(c->destination, "/run/") == 0))
		c->b->run_tmpfs = strcmp(c->type, "tmpfs") == 0;	/* the last mount there wins */
	return true;
}

static bool root_member(struct jsonread *r, const char *key, void *ctx)
{
	struct config_read *c = ctx;
	if (strcmp(key, "path") != 0)
		return jsonread_skip(r);
	bool cut;
	free(c->b->root);
	c->b->root = NULL;
	return jsonread_string(r, c->text, CL_PATH_MAX, &cut) && (!cut || jsonread_fail(r, "root.path too long")) &&
	       ((c->b->root = strdup(c->text)) != NULL || jsonread_fail(r, "out of memory"));
}

static bool config_member(struct jsonread *r, const char *key, void *ctx)
{
	if (strcmp(key, "root") == 0)
		return jsonread_object(r, root_member, ctx, false, NULL);
	if (strcmp(key, "process") == 0)
		return jsonread_object(r, process_member, ctx, false, NULL);
	if (strcmp(key, "linux") == 0)
		return jsonread_object(r, linux_member, ctx, false, NULL);
	if (strcmp(key, "mounts") == 0)
		return jsonread_array(r, mount_element, ctx);
	return jsonread_skip(r);
}

int bundle_parse_config(const char *text, size_t len, struct bundle *b, char *why, size_t cap)
{
	struct config_read c = { .b = b, .text = malloc(BUNDLE_ENV_ENTRY_MAX > CL_PATH_MAX ? BUNDLE_ENV_ENTRY_MAX
											   : CL_PATH_MAX) };
	if (!c.text)
		return why_fail(why, cap, "out of memory");
	struct jsonread r;
	jsonread_init(&r, text, len);
	r.any_number = true;	/* memory limits of 2^63-1 */
	int rc = 0;
	if (!jsonread_object(&r, config_member, &c, true, NULL))
		rc = why_fail(why, cap, "%s at byte %ld", r.err, (long)(r.p - text));
	else if (!b->root || !b->root[0])
		rc = why_fail(why, cap, "no root.path");
	free(c.text);
	return rc;
}

int bundle_load_config(struct bundle *b, char *why, size_t cap)
{
	char *path = malloc(CL_PATH_MAX), *text = NULL, inner[256];
	struct stat st;
	int fd = -1, rc = -1;
	if (!path || snprintf(path, CL_PATH_MAX, "%s/config.json", b->path) >= CL_PATH_MAX)
		why_fail(why, cap, "out of memory, or the bundle's name is too long");
	else if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0)
		why_fail(why, cap, "%s: %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode) || st.st_size > BUNDLE_CONFIG_MAX)
		why_fail(why, cap, "%s: not a regular file of at most %d MiB", path, BUNDLE_CONFIG_MAX >> 20);
	else if (!(text = malloc((size_t)st.st_size + 1)) || pread_full(fd, text, (size_t)st.st_size, 0) < 0)
		why_fail(why, cap, "%s: cannot read it", path);
	else if (bundle_parse_config(text, (size_t)st.st_size, b, inner, sizeof inner) < 0)
		why_fail(why, cap, "%s: %s", path, inner);
	else
		rc = 0;
	if (rc == 0 && b->root[0] != '/') {	/* relative to the bundle */
		if (snprintf(path, CL_PATH_MAX, "%s/%s", b->path, b->root) >= CL_PATH_MAX) {
			rc = why_fail(why, cap, "root.path too long");
		} else {
			free(b->root);
			b->root = strdup(path);
		}
	}
	char *canonical = rc == 0 && b->root ? realpath(b->root, NULL) : NULL;
	if (rc == 0 && !canonical)
		rc = why_fail(why, cap, "root.path %s: %s", b->root ? b->root : "", strerror(b->root ? errno : ENOMEM));
	else if (rc == 0 && strcmp(canonical, "/") == 0)
		rc = why_fail(why, cap, "the container's root is the host's: no image to judge");
	if (rc == 0) {
		free(b->root);
		b->root = canonical;
	} else {
		free(canonical);
	}
	if (fd >= 0)
		close(fd);
	free(text);
	free(path);
	return rc;
}

void bundle_free(struct bundle *b)
{
	free(b->id);
	free(b->path);
	free(b->root);
	for (int i = 0; i < b->n_env; i++)
		free(b->env[i]);
	memset(b, 0, sizeof *b);
}
