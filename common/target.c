/* SPDX-License-Identifier: MIT */
#include "target.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_exec_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int target_search_path(const char *name, const char *pathenv, char *out, size_t cap)
{
	if (!*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		if (strlen(name) >= cap)
			return -ENAMETOOLONG;
		strcpy(out, name);
		return 0;
	}
	if (!pathenv)
		pathenv = "/usr/local/bin:/bin:/usr/bin";
	int err = -ENOENT;
	for (const char *p = pathenv;; p++) {
		size_t n = strcspn(p, ":");
		const char *dir = n ? p : ".";
		int dn = n ? (int)n : 1;
		if ((size_t)snprintf(out, cap, "%.*s/%s", dn, dir, name) < cap) {
			if (is_exec_file(out))
				return 0;
			if (access(out, F_OK) == 0)
				err = -EACCES;	/* found but not executable: keep looking */
		}
		p += n;
		if (!*p)
			break;
	}
	return err;
}

/* "#!interp [arg]" -> interp and optional arg, like fs/binfmt_script.c. */
static int parse_shebang(const char *buf, size_t len, char *interp, size_t icap,
			 char *arg, size_t acap)
{
	const char *p = buf + 2, *end = memchr(buf, '\n', len);
	if (!end)
		end = buf + len;	/* kernel accepts a line cut at its buffer size */
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	const char *i0 = p;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	size_t il = (size_t)(p - i0);
	if (il == 0 || il >= icap)
		return -1;
	memcpy(interp, i0, il);
	interp[il] = '\0';
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	const char *e = end;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	size_t al = (size_t)(e - p);
	if (al >= acap)
		return -1;
	memcpy(arg, p, al);
	arg[al] = '\0';
	return 0;
}

/* "#!/usr/bin/env NAME" and "#!/usr/bin/env -S NAME ARGS": env would only
 * search PATH for NAME and exec it, so cudaload looks through it and decides
 * (and in exec mode sets the search list) for NAME itself, whose children
 * would otherwise get nothing.  Only these plain forms: with assignments,
 * other options, quotes or escapes, env runs as written.  Splits arg in
 * place; returns the number of words, 0 when env stays. */
#define ENV_MAX_WORDS 16

static int env_words(const char *interp, char *arg, char **w)
{
	const char *base = strrchr(interp, '/');
	base = base ? base + 1 : interp;
	if (strcmp(base, "env") != 0 || !arg[0])
		return 0;
	char *p = arg;
	bool split = strncmp(p, "-S", 2) == 0;
	if (split)
		p += 2;
	else if (strpbrk(p, " \t"))
		return 0;	/* env would look for a program named "a b" */
	if (strpbrk(p, "\"'\\$"))
		return 0;
	int n = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			*p++ = '\0';
		if (!*p)
			break;
		if (n == ENV_MAX_WORDS)
			return 0;
		w[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	if (n == 0 || w[0][0] == '-' || strchr(w[0], '='))
		return 0;
	return n;
}

static int read_program(int fd, struct elf_file *ef, struct elf_program *prog,
			char *why, size_t whycap)
{
	return elf_open_fd(ef, fd, why, whycap) < 0 ||
	       elf_read_program(ef, prog, why, whycap) < 0 ? -1 : 0;
}

static int fail(char *why, size_t whycap, int err, const char *msg)
{
	snprintf(why, whycap, "%s", msg ? msg : strerror(-err));
	return err;
}

void target_init(struct target *t)
{
	t->path[0] = t->interp[0] = t->recorded[0] = '\0';
	t->argv = t->owned_argv = NULL;
	t->argc = t->cls = t->machine = 0;
	t->has_interp = false;
}

int target_from_command(struct target *t, int argc, char **argv, const char *pathenv,
			char *why, size_t whycap)
{
	target_init(t);
	t->argv = argv;
	t->argc = argc;

	int r = target_search_path(argv[0], pathenv, t->path, sizeof t->path);
	if (r < 0)
		return fail(why, whycap, r == -EACCES ? -EACCES : -ENOENT,
			    r == -ENOENT ? "not found" : strerror(-r));

	for (int depth = 0;; depth++) {
		int fd = open_ro(t->path, 0);
		if (fd < 0) {
			int e = -fd;
			return fail(why, whycap, e == ENOENT || e == ENOTDIR ? -ENOENT : -EACCES, NULL);
		}
		struct stat st;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || access(t->path, X_OK) < 0) {
			close(fd);
			return fail(why, whycap, -EACCES, "Permission denied");
		}
		char head[256];
		ssize_t n = pread(fd, head, sizeof head, 0);
		if (n >= 2 && head[0] == '#' && head[1] == '!') {
			close(fd);
			char interp[CL_PATH_MAX], arg[256];
			if (depth >= TARGET_MAX_SCRIPT_DEPTH)
				return fail(why, whycap, -ELOOP, "too many levels of #! interpreters");
			if (parse_shebang(head, (size_t)n, interp, sizeof interp, arg, sizeof arg) < 0)
				return fail(why, whycap, -ENOEXEC, "bad #! line");
			/* argv becomes: interp [arg] script args[1..], or through
			 * env: NAME [ARGS] script args[1..] */
			char *words[ENV_MAX_WORDS], found[CL_PATH_MAX];
			char argcopy[sizeof arg];
			memcpy(argcopy, arg, sizeof arg);
			int nw = env_words(interp, argcopy, words);
			if (nw && target_search_path(words[0], pathenv, found, sizeof found) < 0)
				nw = 0;	/* not found: env says so itself */
			int extra = nw ? nw + 1 : arg[0] ? 2 : 1;
			char **nv = calloc((size_t)(t->argc + extra + 1), sizeof *nv);
			if (!nv)
				return fail(why, whycap, -ENOMEM, NULL);
			int k = 0;
			if (nw) {
				for (int i = 0; i < nw; i++)
					nv[k++] = strdup(words[i]);
				strcpy(interp, found);
			} else {
				nv[k++] = strdup(interp);
				if (arg[0])
					nv[k++] = strdup(arg);
			}
			nv[k++] = strdup(t->path);
			for (int i = 1; i < t->argc; i++)
				nv[k++] = strdup(t->argv[i]);
			for (int i = 0; i < k; i++)
				if (!nv[i])
					return fail(why, whycap, -ENOMEM, NULL);
			target_free(t);
			t->owned_argv = t->argv = nv;
			t->argc = k;
			if (strlen(interp) >= sizeof t->path)
				return fail(why, whycap, -ENAMETOOLONG, NULL);
			strcpy(t->path, interp);
			continue;
		}
		struct elf_file ef;
		struct elf_program prog;
		char reason[128];
		if (read_program(fd, &ef, &prog, reason, sizeof reason) < 0) {
			close(fd);
			char msg[160];
			snprintf(msg, sizeof msg, "cannot execute: %s", reason);
			return fail(why, whycap, -ENOEXEC, msg);
		}
		close(fd);
		t->cls = ef.cls;
		t->machine = ef.machine;
		t->has_interp = prog.has_interp;
		strcpy(t->interp, prog.interp);
		strcpy(t->recorded, prog.recorded);
		break;
	}
	/* ld.so searches a bare name like a library (docs/design.md §3). */
	if (!strchr(t->path, '/')) {
		char tmp[CL_PATH_MAX];
		if (snprintf(tmp, sizeof tmp, "./%s", t->path) >= (int)sizeof tmp)
			return fail(why, whycap, -ENAMETOOLONG, NULL);
		strcpy(t->path, tmp);
	}
	return 0;
}

int target_interp_from_memory(struct target *t, const void *phdr, size_t phnum,
			      size_t phentsize)
{
	const unsigned char *p = phdr;
	const ElfW(Phdr) *interp = NULL, *self = NULL;
	if (!phdr || phentsize < sizeof(ElfW(Phdr)))
		return -1;
	for (size_t i = 0; i < phnum; i++) {
		const ElfW(Phdr) *ph = (const void *)(p + i * phentsize);
		if (ph->p_type == PT_PHDR)
			self = ph;
		else if (ph->p_type == PT_INTERP && !interp)
			interp = ph;
	}
	if (!self || !interp || interp->p_filesz < 2 || interp->p_filesz > CL_PATH_MAX)
		return -1;
	uintptr_t base = (uintptr_t)phdr - self->p_vaddr;
	/* The string must lie in a mapped PT_LOAD before we touch it. */
	bool mapped = false;
	for (size_t i = 0; i < phnum && !mapped; i++) {
		const ElfW(Phdr) *ph = (const void *)(p + i * phentsize);
		mapped = ph->p_type == PT_LOAD && interp->p_vaddr >= ph->p_vaddr &&
			 interp->p_vaddr - ph->p_vaddr <= ph->p_filesz &&
			 interp->p_filesz <= ph->p_filesz - (interp->p_vaddr - ph->p_vaddr);
	}
	if (!mapped)
		return -1;
	t->has_interp = true;
	return elf_split_interp((const char *)(base + interp->p_vaddr), interp->p_filesz,
				t->interp, sizeof t->interp, t->recorded, sizeof t->recorded);
}

int target_interp_from_file(struct target *t, char *why, size_t whycap)
{
	struct elf_file ef;
	struct elf_program prog;
	int fd = open_ro(t->path, 0);
	if (fd < 0) {
		snprintf(why, whycap, "%s", strerror(-fd));
		return -1;
	}
	int r = read_program(fd, &ef, &prog, why, whycap);
	close(fd);
	if (r == 0) {
		strcpy(t->interp, prog.interp);
		strcpy(t->recorded, prog.recorded);
	}
	return r;
}

void target_free(struct target *t)
{
	if (t->owned_argv) {
		for (char **a = t->owned_argv; *a; a++)
			free(*a);
		free(t->owned_argv);
	}
	t->owned_argv = NULL;
}
