/* SPDX-License-Identifier: MIT */
/*
 * cudaload --oci-hook (ocihook.h).  The steps, as ocihook_run runs them:
 * the state and the bundle's config read (bundle.h); the image's mounts
 * (image.h); the container's GPUs; the judgement, in a child inside the
 * image (child.h), its word read (word.h); the edits (edits.h); the
 * account left in the container.
 */
#include "ocihook.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../../common/base/deadline.h"
#include "../../../common/base/diag.h"
#include "../../../common/base/inroot.h"
#include "../../../common/settings/settings.h"
#include "bundle.h"
#include "child.h"
#include "edits.h"
#include "image.h"
#include "word.h"

#define JUDGE_SECONDS 10		/* reading the image; a start takes milliseconds */

/* ---- saying why, and giving up ---- */

/* NULL until the state names it ("?"): an initialised pointer would be a
 * relocation every start of cudaload applies. */
static const char *hook_id;

__attribute__((format(printf, 1, 2)))
static void say(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "cudaload --oci-hook: container %.12s: %s\n", hook_id ? hook_id : "?", line);
}

/* All of fd within seconds, NUL-terminated: its length, or -1 with why. */
static ssize_t read_all(int fd, char *buf, size_t cap, int seconds, const char **why)
{
	struct deadline d;
	size_t got;
	deadline_in(&d, seconds * 1000L);
	switch (deadline_read(fd, buf, cap, &got, &d)) {
	case DEADLINE_EOF:
		return (ssize_t)got;
	case DEADLINE_FULL:
		*why = "too long";
		return -1;
	case DEADLINE_PASSED:
		*why = "timed out";
		return -1;
	default:
		*why = strerror(errno);
		return -1;
	}
}

/* The hook's environment, unless it is the container's: runc hands a hook
 * entry that names no env the container's own, whose CUDALOAD_* the
 * image's author chose (docs/design.md §11).  Then none. */
static char **trusted_env(char **envp, const struct bundle *b)
{
	/* read-only: the loader's writable data is one page, for every start */
	static char *const none[1] = { NULL };
	for (char **e = envp; *e; e++) {
		if (strncmp(*e, "CUDALOAD_", 9) != 0)
			continue;
		for (int i = 0; i < b->n_env; i++)
			if (strcmp(b->env[i], *e) == 0) {
				say("the hook's environment is the container's (%s is the image's): its "
				    "CUDALOAD_* settings are not read; name the hook's env in its entry", *e);
				return (char **)none;	/* never written: execve reads it */
			}
	}
	return envp;
}

/* The container's /dev/nvidiaN, where config.json names none (legacy mode
 * makes them in a prestart hook): read through inroot, nothing followed. */
static void gpus_in_dev(struct bundle *b, int rootfd)
{
	int fd = inroot_open(rootfd, "/dev", O_RDONLY | O_DIRECTORY);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	for (struct dirent *e; (e = readdir(d));) {
		struct stat st;
		if (bundle_nvidia_node(e->d_name) >= 0 &&
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISCHR(st.st_mode) &&
		    major(st.st_rdev) == NVIDIA_MAJOR) {
			bundle_add_minor(b, (long)minor(st.st_rdev));
			b->gpus_from = "/dev";
		}
	}
	closedir(d);
}

/* The state and config read, the image opened: NULL, or why not. */
static const char *read_bundle(struct bundle *b, struct image *img, char *why, size_t cap)
{
	char *state = malloc(BUNDLE_STATE_MAX), inner[512];
	const char *rwhy = "";
	ssize_t n = state ? read_all(0, state, BUNDLE_STATE_MAX, JUDGE_SECONDS, &rwhy) : -1;
	const char *problem = NULL;
	if (!state)
		problem = "out of memory";
	else if (n < 0)
		snprintf(why, cap, "the OCI state on standard input: %s", rwhy), problem = why;
	else if (bundle_parse_state(state, (size_t)n, b, inner, sizeof inner) < 0)
		snprintf(why, cap, "the OCI state on standard input: %s", inner), problem = why;
	else
		hook_id = b->id;
	free(state);
	if (!problem && (bundle_load_config(b, why, cap) < 0 || image_open(img, b->root, b->run_tmpfs, why, cap) < 0))
		problem = why;
	return problem;
}

/* The judgement, in a child inside the image, and its word read into e.
 * NULL, or why not. */
static const char *judge_image(const struct bundle *b, char **env, struct settings *s, char *msg,
			       struct edits *e, char *why, size_t cap)
{
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return snprintf(why, cap, "pipe: %s", strerror(errno)), why;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		child_judge(b, env, s, pipefd[1]);
	close(pipefd[1]);
	const char *rwhy = "";
	ssize_t n = pid < 0 ? -1 : read_all(pipefd[0], msg, WORD_MAX, JUDGE_SECONDS, &rwhy);
	close(pipefd[0]);
	struct deadline d;
	int status = 0;
	deadline_in(&d, n < 0 ? 0 : JUDGE_SECONDS * 1000L);
	bool ended = pid > 0 && deadline_wait(pid, &d, false, &status) == 0;
	if (pid < 0)
		return "cannot fork";
	if (n < 0)
		return snprintf(why, cap, "judging the image: %s", rwhy), why;
	if (!ended || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return "judging the image failed";
	return word_read(msg, (size_t)n, e);
}

int ocihook_run(char **envp)
{
	struct bundle b = { 0 };
	struct image img = { .rootfd = -1 };
	struct edits *e = calloc(1, sizeof *e);
	char *msg = malloc(WORD_MAX), *account = NULL, why[1024];
	size_t account_len = 0;
	struct settings *s = malloc(sizeof *s);
	if (!e || !msg || !s) {
		say("out of memory; the container starts unchanged");
		return 0;
	}
	const char *problem = read_bundle(&b, &img, why, sizeof why);
	if (problem) {
		say("%s; the container starts unchanged", problem);
		return 0;
	}
	if (!b.gpus_from)
		gpus_in_dev(&b, img.rootfd);
	char **env = trusted_env(envp, &b);
	settings_from_env(s, env, false);
	/* the container's GPUs are its device nodes; CUDA_VISIBLE_DEVICES is
	 * each of its processes' own, judged by their starts */
	s->visible.devices = NULL;
	diag("oci-hook: bundle %s, root %s, GPUs from %s", b.path, b.root, b.gpus_from ? b.gpus_from : "none named: all");

	e->log = open_memstream(&account, &account_len);
	if (!e->log) {
		say("out of memory; the container starts unchanged");
		return 0;
	}
	problem = judge_image(&b, env, s, msg, e, why, sizeof why);
	if (problem) {
		say("the image cannot be judged: %s; the container starts unchanged", problem);
		return 0;
	}
	bool done = edits_apply(&img, b.root, e, why, sizeof why) == 0;
	if (!done) {
		say("%s; what the hook did is undone, the container starts unchanged", why);
		fprintf(e->log, "oci-hook:     nothing done, the container as without the hook: %s\n", why);
	}
	fclose(e->log);
	/* the account, where a person in the container finds it */
	size_t rl = strlen(e->report), al = account ? strlen(account) : 0;
	char *text = malloc(rl + al + 256);
	if (text) {
		snprintf(text, rl + al + 256, "%soci-hook:     GPUs: %s\n%s", e->report,
			 b.gpus_from ? (strcmp(b.gpus_from, "/dev") == 0 ? "those in the container's /dev"
					: "those config.json names") : "all (the container names none)",
			 account ? account : "");
		if (edits_write_report(&img, text, why, sizeof why) < 0)
			say("the account is not left in the container: %s%s", why, done ? " (the edits stand)" : "");
	}
	if (diag_on)
		fputs(text ? text : "", stderr);
	return 0;
}
