/* SPDX-License-Identifier: MIT */
#include "engines.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/base/atomicfile.h"
#include "../../common/base/sys.h"
#include "../../common/base/why.h"
#include "containerd.h"
#include "daemonjson.h"
#include "next.h"
#include "tomledit.h"

#define NAME "cudaload"
#define BACKUP ".cudaload-backup"
#define FILE_MAX (1024 * 1024)
/* The drop-in's last line where configure made its directory: what tells
 * unconfigure to remove the directory (when empty) with it. */
#define MADE_DIR "# cudaload-runtime made this directory; unconfigure removes it when empty.\n"

enum engine { DOCKER, CONTAINERD, CRIO, PODMAN };

static const struct engine_info {
	const char *name, *config, *dropin_dir, *dropin, *restart;
} engines[] = {
	[DOCKER] = { "docker", "/etc/docker/daemon.json", NULL, NULL, "systemctl restart docker" },
	[CONTAINERD] = { "containerd", "/etc/containerd/config.toml", "conf.d", "cudaload.toml",
			 "systemctl restart containerd" },
	[CRIO] = { "crio", "/etc/crio/crio.conf", "crio.conf.d", "99-cudaload.conf", "systemctl restart crio" },
	[PODMAN] = { "podman", "/etc/containers/containers.conf", "containers.conf.d", "99-cudaload.conf", NULL },
};

/* A file as read: absent, or its bytes and mode. */
struct file {
	char path[PATH_MAX];
	char *text;
	size_t len;
	bool exists;
	mode_t mode;
};

enum act_kind { ACT_MKDIR, ACT_WRITE, ACT_REMOVE, ACT_RMDIR };

/* What a run will do, all worked out before anything is done, so that bad
 * input changes nothing. */
struct action {
	enum act_kind kind;
	char path[PATH_MAX];
	const char *text;
	size_t len;
	mode_t mode;
	char say[160];
};

#define ACTIONS_MAX 8
static struct action steps[ACTIONS_MAX];
static size_t n_steps;
static char why[1024];
static bool quiet;	/* fail() says nothing: a check whose failure is not the run's */

/* One line on stderr; -1. */
__attribute__((format(printf, 1, 2))) static int fail(const char *fmt, ...)
{
	va_list ap;
	if (quiet)
		return -1;
	va_start(ap, fmt);
	fprintf(stderr, "cudaload-runtime: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return -1;
}

static struct action *act(enum act_kind kind, const char *path)
{
	if (n_steps == ACTIONS_MAX) {
		fail("%s: more changes than there is room for (a bug)", path);
		exit(2);
	}
	struct action *a = &steps[n_steps++];
	memset(a, 0, sizeof *a);
	a->kind = kind;
	snprintf(a->path, sizeof a->path, "%s", path);
	return a;
}

static void step_write(const char *path, const char *text, size_t len, mode_t mode, const char *say)
{
	struct action *a = act(ACT_WRITE, path);
	a->text = text;
	a->len = len;
	a->mode = mode;
	snprintf(a->say, sizeof a->say, "%s", say);
}

static void step_other(enum act_kind kind, const char *path, const char *say)
{
	snprintf(act(kind, path)->say, sizeof steps[0].say, "%s", say);
}

/* path read whole (at most FILE_MAX bytes, a plain file, never through a
 * link: the file written back replaces what is at the name).  0, or -1
 * with its line on stderr. */
static int load(struct file *f, const char *path)
{
	struct stat st;
	memset(f, 0, sizeof *f);
	if (snprintf(f->path, sizeof f->path, "%s", path) >= (int)sizeof f->path)
		return fail("%s: the path is too long", path);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 && errno == ELOOP)
		return fail("%s: a symbolic link; give the file it points to with --config", path);
	if (fd < 0)
		return fail("%s: %s", path, strerror(errno));
	int rc = -1;
	if (fstat(fd, &st) < 0)
		fail("%s: %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		fail("%s: not a regular file", path);
	else if (st.st_size > FILE_MAX)
		fail("%s: larger than %d KiB", path, FILE_MAX >> 10);
	else if (!(f->text = malloc((size_t)st.st_size + 1)))
		fail("%s: %s", path, strerror(ENOMEM));
	else if (pread_full(fd, f->text, (size_t)st.st_size, 0) < 0)
		fail("%s: cannot read it: %s", path, strerror(errno));
	else
		rc = 0;
	close(fd);
	if (rc < 0) {
		free(f->text);
		f->text = NULL;
		return -1;
	}
	f->text[st.st_size] = '\0';
	f->len = (size_t)st.st_size;
	f->exists = true;
	f->mode = st.st_mode & 07777;
	return 0;
}

static bool same(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && memcmp(a, b, alen) == 0;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* dir and name of path into their buffers. */
static void split(const char *path, char *dir, char *name)
{
	const char *slash = strrchr(path, '/');
	if (!slash) {
		strcpy(dir, ".");
		strcpy(name, path);
	} else {
		snprintf(dir, PATH_MAX, "%.*s", slash == path ? 1 : (int)(slash - path), path);
		snprintf(name, NAME_MAX + 1, "%s", slash + 1);
	}
}

static int write_file(const struct action *a)
{
	static char dir[PATH_MAX], name[NAME_MAX + 1];
	split(a->path, dir, name);
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -1;
	int rc = atomic_replace(dirfd, name, a->text, a->len, a->mode, true);
	int saved = errno;
	close(dirfd);
	errno = saved;
	return rc;
}

/* The steps carried out, each one said.  The exit status. */
static int apply(const struct engine_info *e)
{
	size_t done = 0;
	for (size_t i = 0; i < n_steps; i++) {
		const struct action *a = &steps[i];
		int rc = 0;
		switch (a->kind) {
		case ACT_MKDIR: rc = mkdir(a->path, 0755); break;
		case ACT_WRITE: rc = write_file(a); break;
		case ACT_REMOVE: rc = unlink(a->path) < 0 && errno != ENOENT ? -1 : 0; break;
		case ACT_RMDIR:
			if (rmdir(a->path) < 0) {
				if (errno == ENOTEMPTY || errno == EEXIST)
					printf("kept %s: it holds other files\n", a->path);
				else if (errno != ENOENT)
					rc = -1;
				continue;
			}
			break;
		}
		if (rc < 0) {
			fail("%s: %s", a->path, strerror(errno));
			if (done)
				fprintf(stderr, "cudaload-runtime: the changes before it were made; run it again\n");
			return 1;
		}
		printf("%s %s\n", a->say, a->path);
		done++;
	}
	if (!done)
		printf("%s: nothing to change\n", e->name);
	else if (e->restart)
		printf("%s: restart it to take this: %s\n", e->name, e->restart);
	else
		printf("%s: each podman command reads it; nothing to restart\n", e->name);
	return 0;
}

/* ---- the drop-in engines' texts ---- */

/* CRI-O's and podman's drop-in for self (set_default: made the default). */
static int simple_dropin(enum engine which, const char *self, bool set_default, char **out, size_t *out_len)
{
	FILE *f = open_memstream(out, out_len);
	if (!f)
		return fail("%s", strerror(ENOMEM));
	fprintf(f, "# Written by `cudaload-runtime configure --runtime=%s`, removed by\n"
		"# `cudaload-runtime unconfigure --runtime=%s` (cudaload-runtime(1)).\n",
		engines[which].name, engines[which].name);
	if (which == CRIO) {
		if (set_default)
			fputs("[crio.runtime]\ndefault_runtime = \"" NAME "\"\n\n", f);
		fputs("[crio.runtime.runtimes." NAME "]\nruntime_path = ", f);
		toml_put_string(f, self);
		fputs("\nruntime_type = \"oci\"\n", f);
	} else {
		if (set_default)
			fputs("[engine]\nruntime = \"" NAME "\"\n\n", f);
		fputs("[engine.runtimes]\n" NAME " = [", f);
		toml_put_string(f, self);
		fputs("]\n", f);
	}
	if (fclose(f) != 0) {
		free(*out);
		return fail("%s", strerror(ENOMEM));
	}
	return 0;
}

/* containerd's sources: the main file, then what it imports, in its order
 * (glob's sorted matches for a pattern), the drop-in left out. */
struct sources {
	const char *main_dir, *dropin;
	struct containerd_source src[64];
	struct file files[64];
	size_t n;
	bool failed;
};

static bool add_import(const char *pattern, size_t start, size_t end, void *ctx)
{
	static char full[PATH_MAX], clean[PATH_MAX];
	struct sources *s = ctx;
	glob_t g;
	(void)start;
	(void)end;
	/* as containerd resolves it (cleaned, relative to the main file's
	 * directory), so that the drop-in is known however it is named */
	if (!containerd_resolve(s->main_dir, pattern, full, sizeof full))
		return true;
	if (!strchr(pattern, '*')) {
		/* a path, not a pattern, for containerd, whatever it holds */
		memset(&g, 0, sizeof g);
		static char *one[2];
		one[0] = full;
		g.gl_pathc = 1;
		g.gl_pathv = one;
	} else if (glob(full, 0, NULL, &g) != 0) {
		return true;	/* nothing there: containerd skips it too */
	}
	for (size_t i = 0; i < g.gl_pathc && !s->failed; i++) {
		if (containerd_clean(g.gl_pathv[i], clean, sizeof clean) && strcmp(clean, s->dropin) == 0)
			continue;
		if (s->n == sizeof s->src / sizeof s->src[0]) {
			fail("%s: imports more than %zu files", s->main_dir, sizeof s->src / sizeof s->src[0]);
			s->failed = true;
			break;
		}
		struct file *f = &s->files[s->n];
		if (load(f, g.gl_pathv[i]) < 0) {
			s->failed = true;
			break;
		}
		if (!f->exists)
			continue;
		s->src[s->n++] = (struct containerd_source){ f->path, f->text, f->len };
	}
	if (strchr(pattern, '*'))
		globfree(&g);
	return !s->failed;
}

/* ---- the commands ---- */

struct run {
	enum engine which;
	bool configure, set_default;
	const char *self;
	char config[PATH_MAX], dir[PATH_MAX], dropin_dir[PATH_MAX], dropin[PATH_MAX], backup[PATH_MAX];
};

/* The main file's new text for configure (edit) or the one with our entries
 * taken out (strip), for the engines that edit it (docker, containerd). */
static int main_edit(const struct run *r, const char *text, size_t len, const struct file *backup, bool set_default,
		     bool strip, char **out, size_t *out_len)
{
	int rc;
	const char *b = backup && backup->exists ? backup->text : NULL;
	size_t b_len = b ? backup->len : 0;
	if (r->which == DOCKER)
		rc = strip ? daemonjson_unconfigure(text, len, b, b_len, out, out_len, why, sizeof why)
			   : daemonjson_configure(text, len, b, b_len, r->self, set_default, out, out_len, why,
						  sizeof why);
	else
		rc = strip ? containerd_imports_remove(text, len, r->dir, r->dropin, out, out_len, why, sizeof why)
			   : containerd_imports_add(text, len, r->dir, r->dropin, out, out_len, why, sizeof why);
	return rc < 0 ? fail("%s: %s", r->config, why) : 0;
}

static int made_from(const struct run *r, const char *base, size_t base_len, const struct file *now, bool *yes);

static int steps_main_configure(const struct run *r, const struct file *main)
{
	static struct file backup;
	char *text;
	size_t len;
	if (main->exists && load(&backup, r->backup) < 0)
		return -1;
	/* the file before configure: the backup, else the file as it is now
	 * (which becomes the backup) */
	if (main_edit(r, main->exists ? main->text : NULL, main->len, backup.exists ? &backup : main, r->set_default,
		      false, &text, &len) < 0)
		return -1;
	if (main->exists && same(text, len, main->text, main->len))
		return 0;
	/* no backup of a file configure made (it has none to give back) */
	bool made = false;
	if (main->exists && !backup.exists && made_from(r, NULL, 0, main, &made) < 0)
		return -1;
	if (main->exists && !backup.exists && !made)
		step_write(r->backup, main->text, main->len, main->mode, "kept the file as it was in");
	step_write(r->config, text, len, main->exists ? main->mode : 0644, main->exists ? "changed" : "made");
	return 0;
}

/* Is text what configure makes of base, with or without --set-as-default? */
static int made_from(const struct run *r, const char *base, size_t base_len, const struct file *now, bool *yes)
{
	*yes = false;
	for (int d = 0; d < 2 && !*yes; d++) {
		char *text;
		size_t len;
		if (main_edit(r, base, base_len, NULL, d, false, &text, &len) < 0)
			return -1;
		*yes = same(text, len, now->text, now->len);
		free(text);
	}
	return 0;
}

static int steps_main_unconfigure(const struct run *r, const struct file *main)
{
	static struct file backup;
	bool ours;
	if (!main->exists)
		return 0;
	if (load(&backup, r->backup) < 0)
		return -1;
	if (made_from(r, backup.exists ? backup.text : NULL, backup.len, main, &ours) < 0)
		return -1;
	if (ours && backup.exists) {
		step_write(r->config, backup.text, backup.len, backup.mode, "gave back, byte for byte,");
		step_other(ACT_REMOVE, r->backup, "removed");
		return 0;
	}
	if (ours) {
		step_other(ACT_REMOVE, r->config, "removed (configure had made it)");
		return 0;
	}
	char *text;
	size_t len;
	if (main_edit(r, main->text, main->len, &backup, false, true, &text, &len) < 0)
		return -1;
	if (same(text, len, main->text, main->len))
		return 0;
	/* containerd's: the import is all configure added, and the backup is
	 * an old copy of a file the admin has changed since */
	bool drop_backup = r->which == CONTAINERD && backup.exists;
	printf("%s was changed since configure: only cudaload's entries are taken out%s\n", r->config,
	       drop_backup	     ? " (its copy from before configure, " BACKUP ", is removed)"
	       : backup.exists ? " (the file before configure: " BACKUP ")"
			       : "");
	step_write(r->config, text, len, main->mode, "took cudaload's entries out of");
	if (drop_backup)
		step_other(ACT_REMOVE, r->backup, "removed");
	return 0;
}

/* The drop-in's text for this run's engine; *note for containerd. */
static int dropin_text(const struct run *r, const struct file *main, bool set_default, bool made_dir, char **out,
		       size_t *out_len, struct containerd_note *note)
{
	static struct sources s;
	char *text = NULL;
	size_t len = 0;
	if (r->which != CONTAINERD) {
		if (simple_dropin(r->which, r->self, set_default, &text, &len) < 0)
			return -1;
	} else {
		long version = 2;
		for (size_t i = 0; i < s.n; i++)
			free(s.files[i].text);
		memset(&s, 0, sizeof s);
		s.main_dir = r->dir;
		s.dropin = r->dropin;
		if (main->exists) {
			if (containerd_version(main->text, main->len, &version, why, sizeof why) < 0)
				return fail("%s: %s", r->config, why);
			s.src[s.n++] = (struct containerd_source){ main->path, main->text, main->len };
			int rc = containerd_imports(main->text, main->len, add_import, &s, why, sizeof why);
			if (s.failed)
				return -1;	/* said */
			if (rc < 0)
				return fail("%s: %s", r->config, why);
		}
		if (containerd_dropin(s.src, s.n, version, r->self, set_default, &text, &len, note, why,
				      sizeof why) < 0)
			return fail("%s", why);
	}
	if (made_dir) {
		char *grown = realloc(text, len + sizeof MADE_DIR);
		if (!grown) {
			free(text);
			return fail("%s", strerror(ENOMEM));
		}
		memcpy(grown + len, MADE_DIR, sizeof MADE_DIR);
		text = grown;
		len += sizeof MADE_DIR - 1;
	}
	*out = text;
	*out_len = len;
	return 0;
}

static bool has_line(const struct file *f, const char *line)
{
	return f->exists && f->len && memmem(f->text, f->len, line, strlen(line)) != NULL;
}

/* Where the nvidia handler's runtime is not the one cudaload-runtime would
 * find itself, the line that tells it. */
static void say_next(const struct containerd_note *note)
{
	static char named[PATH_MAX], found[PATH_MAX], ignored[256];
	if (!note->nvidia_binary[0])
		return;
	bool resolved = next_runtime(note->nvidia_binary, getenv("PATH"), named, sizeof named, ignored,
				     sizeof ignored) == 0;
	bool fallback = next_runtime(NULL, getenv("PATH"), found, sizeof found, ignored, sizeof ignored) == 0;
	if (resolved && fallback && strcmp(named, found) == 0)
		return;
	printf("the nvidia handler runs %s, which cudaload-runtime does not find by itself: put this line in "
	       "/etc/cudaload.conf:\nruntime = %s\n",
	       note->nvidia_binary, resolved ? named : note->nvidia_binary);
}

static int steps_dropin_configure(const struct run *r, const struct file *main)
{
	static struct file old;
	static struct containerd_note note;
	char *text;
	size_t len;
	if (load(&old, r->dropin) < 0)
		return -1;
	bool dir_there = is_dir(r->dropin_dir);
	bool made_dir = !dir_there || has_line(&old, MADE_DIR);
	if (dropin_text(r, main, r->set_default, made_dir, &text, &len, &note) < 0)
		return -1;
	if (!dir_there)
		step_other(ACT_MKDIR, r->dropin_dir, "made the directory");
	if (!old.exists || !same(text, len, old.text, old.len))
		step_write(r->dropin, text, len, 0644, old.exists ? "rewrote" : "wrote");
	if (note.handler[0])
		printf("the handler " NAME " takes the settings of the handler %s\n", note.handler);
	say_next(&note);
	return 0;
}

/* The drop-in with our tables and defaults taken out: *any_left when an
 * entry of the admin's stays. */
static int strip_dropin(const struct file *f, char **out, size_t *out_len, bool *any_left)
{
	static const char *const ours[] = {
		"crio.runtime.runtimes." NAME, "engine.runtimes." NAME,
		"plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes." NAME,
		"plugins.\"io.containerd.cri.v1.runtime\".containerd.runtimes." NAME,
	};
	static const char *const defaults[] = {
		"crio.runtime.default_runtime", "engine.runtime",
		"plugins.\"io.containerd.grpc.v1.cri\".containerd.default_runtime_name",
		"plugins.\"io.containerd.cri.v1.runtime\".containerd.default_runtime_name",
	};
	static char value[256];
	struct toml_doc d;
	if (toml_parse(&d, f->text, f->len, why, sizeof why) < 0)
		return fail("%s: %s", f->path, why);
	FILE *o = open_memstream(out, out_len);
	if (!o) {
		toml_free(&d);
		return fail("%s", strerror(ENOMEM));
	}
	bool skipping = false;
	*any_left = false;
	for (size_t i = 0; i < d.n; i++) {
		const struct toml_item *it = &d.items[i];
		bool drop = false;
		if (it->kind == TOML_TABLE || it->kind == TOML_ARRAY_TABLE) {
			skipping = false;
			for (size_t k = 0; k < sizeof ours / sizeof ours[0]; k++)
				skipping = skipping || toml_under(it->path, ours[k]);
		}
		if (it->kind == TOML_ENTRY) {
			for (size_t k = 0; k < sizeof ours / sizeof ours[0]; k++)
				drop = drop || toml_under(it->path, ours[k]);
			for (size_t k = 0; k < sizeof defaults / sizeof defaults[0]; k++)
				drop = drop || (strcmp(it->path, defaults[k]) == 0 &&
						toml_string(&d, it, value, sizeof value) && strcmp(value, NAME) == 0);
			if (!drop && !skipping)
				*any_left = true;
		}
		bool marker = it->kind == TOML_BLANK &&
			      same(d.text + it->start, it->end - it->start, MADE_DIR, strlen(MADE_DIR));
		if (drop || skipping || marker)
			continue;
		fwrite(d.text + it->start, 1, it->end - it->start, o);
	}
	toml_free(&d);
	if (fclose(o) != 0) {
		free(*out);
		return fail("%s", strerror(ENOMEM));
	}
	return 0;
}

static int steps_dropin_unconfigure(const struct run *r, const struct file *main)
{
	static struct file old;
	static struct containerd_note note;
	if (load(&old, r->dropin) < 0)
		return -1;
	if (!old.exists)
		return 0;
	bool made_dir = has_line(&old, MADE_DIR), ours = false;
	/* containerd's drop-in is configure's own file whole, as its first line
	 * says: besides the handler it holds a copy of the CRI section, which
	 * would go on shadowing the admin's settings */
	bool whole = r->which == CONTAINERD && old.len >= strlen(CONTAINERD_HEADER) &&
		     memcmp(old.text, CONTAINERD_HEADER, strlen(CONTAINERD_HEADER)) == 0;
	quiet = whole;
	for (int d = 0; d < 2 && !ours; d++) {
		char *text;
		size_t len;
		if (dropin_text(r, main, d, made_dir, &text, &len, &note) < 0) {
			if (whole)
				break;
			quiet = false;
			return -1;
		}
		ours = same(text, len, old.text, old.len);
		free(text);
	}
	quiet = false;
	if (whole && !ours)
		printf("%s is not what configure would write now (a source changed since): removed whole all the "
		       "same, as its first line says, with the copy of the CRI section it holds\n",
		       r->dropin);
	bool any_left = false;
	if (!ours && !whole) {
		char *text;
		size_t len;
		if (strip_dropin(&old, &text, &len, &any_left) < 0)
			return -1;
		if (any_left) {
			printf("%s was changed since configure: only cudaload's entries are taken out\n", r->dropin);
			step_write(r->dropin, text, len, old.mode, "took cudaload's entries out of");
			return 0;
		}
		free(text);
	}
	step_other(ACT_REMOVE, r->dropin, "removed");
	if (made_dir)
		step_other(ACT_RMDIR, r->dropin_dir, "removed the directory");
	return 0;
}

static int usage(const char *what, const char *word)
{
	fail("%s%s", what, word);
	fprintf(stderr, "usage: cudaload-runtime configure   --runtime=docker|containerd|crio|podman "
			"[--config=FILE] [--set-as-default]\n"
			"       cudaload-runtime unconfigure --runtime=docker|containerd|crio|podman [--config=FILE]\n");
	return 2;
}

/* --name=value or --name value: the value, or NULL where arg is not --name. */
static const char *option(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);
	const char *a = argv[*i];
	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] == '\0' && *i + 1 < argc)
		return argv[++*i];
	return NULL;
}

int engines_main(int argc, char **argv, const char *self)
{
	static struct run r;
	static struct file main_file;
	const char *runtime = NULL, *config = NULL, *v;
	r.configure = strcmp(argv[0], "configure") == 0;
	r.self = self;
	for (int i = 1; i < argc; i++) {
		if ((v = option(argc, argv, &i, "--runtime")))
			runtime = v;
		else if ((v = option(argc, argv, &i, "--config")))
			config = v;
		else if (r.configure && strcmp(argv[i], "--set-as-default") == 0)
			r.set_default = true;
		else
			return usage("unknown argument: ", argv[i]);
	}
	if (!runtime)
		return usage("which engine? --runtime= is missing", "");
	size_t which = 0;
	while (which < sizeof engines / sizeof engines[0] && strcmp(engines[which].name, runtime) != 0)
		which++;
	if (which == sizeof engines / sizeof engines[0])
		return usage("unknown --runtime (docker, containerd, crio or podman): ", runtime);
	const struct engine_info *e = &engines[which];
	r.which = (enum engine)which;
	if (!config)
		config = e->config;
	if (!*config || snprintf(r.config, sizeof r.config, "%s", config) >= (int)sizeof r.config - 64)
		return usage("--config: an empty or too long path: ", config);
	static char name[NAME_MAX + 1], raw[PATH_MAX], cwd[PATH_MAX];
	split(r.config, raw, name);
	/* the directory absolute and clean, as containerd names the files it
	 * resolves: the drop-in's path and the imports are compared so */
	if (raw[0] != '/' && (!getcwd(cwd, sizeof cwd) || strlen(cwd) + strlen(raw) + 2 > sizeof raw)) {
		fail("%s: cannot make it absolute: %s", raw, strerror(errno ? errno : ENAMETOOLONG));
		return 1;
	}
	if (raw[0] != '/') {
		memmove(raw + strlen(cwd) + 1, raw, strlen(raw) + 1);
		memcpy(raw, cwd, strlen(cwd));
		raw[strlen(cwd)] = '/';
	}
	if (!containerd_clean(raw, r.dir, sizeof r.dir)) {
		fail("%s: the path is too long", raw);
		return 1;
	}
	snprintf(r.backup, sizeof r.backup, "%s" BACKUP, r.config);
	if (!is_dir(r.dir)) {
		fail("%s: no such directory (is %s installed?)", r.dir, e->name);
		return 1;
	}
	if (e->dropin) {
		snprintf(r.dropin_dir, sizeof r.dropin_dir, "%s/%s", strcmp(r.dir, "/") ? r.dir : "", e->dropin_dir);
		snprintf(r.dropin, sizeof r.dropin, "%s/%s", r.dropin_dir, e->dropin);
	}
	/* the main file is read for every engine: one that cannot be read
	 * is bad input, even where only its directory is used */
	if (load(&main_file, r.config) < 0)
		return 1;
	if (r.which == CONTAINERD) {
		/* k3s's config.toml.tmpl replaces the config k3s generates: one
		 * made here would drop all of it, and one that is a template
		 * ({{ template "base" . }}) is not TOML */
		size_t n = strlen(name);
		bool tmpl = n > 5 && strcmp(name + n - 5, ".tmpl") == 0;
		bool go = main_file.exists && memmem(main_file.text, main_file.len, "{{", 2);
		if (go && !tmpl) {
			struct toml_doc d;
			go = toml_parse(&d, main_file.text, main_file.len, why, sizeof why) < 0;
			if (!go)
				toml_free(&d);
		}
		if (tmpl && !main_file.exists) {
			fail("%s: not there, and a k3s template made anew would replace k3s's whole containerd config: "
			     "it must start with {{ template \"base\" . }}, which cudaload-runtime cannot edit; "
			     "write it by hand with the handler's tables after that line (cudaload-runtime(1), K3S)",
			     r.config);
			return 1;
		}
		if (go) {
			fail("%s: a Go template (k3s's), which cudaload-runtime cannot edit; add the handler's tables "
			     "after its {{ template \"base\" . }} line by hand (cudaload-runtime(1), K3S)",
			     r.config);
			return 1;
		}
	}
	if ((r.which == CRIO || r.which == PODMAN) && main_file.exists) {
		struct toml_doc d;
		if (toml_parse(&d, main_file.text, main_file.len, why, sizeof why) < 0) {
			fail("%s: %s", r.config, why);
			return 1;
		}
		toml_free(&d);
	}
	int rc = 0;
	bool edits_main = r.which == DOCKER || r.which == CONTAINERD;
	if (r.configure) {
		if (e->dropin)
			rc = steps_dropin_configure(&r, &main_file);
		if (rc == 0 && edits_main)
			rc = steps_main_configure(&r, &main_file);
	} else {
		/* the main file first: an import of a drop-in that is gone keeps
		 * containerd from starting, so the import goes before the file
		 * (where the rewrite fails, or the run dies between the two, the
		 * drop-in is still there for the import) */
		if (edits_main)
			rc = steps_main_unconfigure(&r, &main_file);
		if (rc == 0 && e->dropin)
			rc = steps_dropin_unconfigure(&r, &main_file);
	}
	if (rc < 0)
		return 1;
	return apply(e);
}
