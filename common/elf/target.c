/* SPDX-License-Identifier: MIT */
#include "target.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../base/alloc.h"

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

/* The program's interpreter strings, read from fd, and with facts also its
 * class and machine.  The readers' structs are large: they live on the
 * heap, not the stack. */
static int read_program(struct target *t, int fd, bool facts, char *why, size_t whycap)
{
	struct reader {
		struct elf_file ef;
		struct elf_program prog;
	} *r = malloc(sizeof *r);
	if (!r) {
		snprintf(why, whycap, "out of memory");
		return -1;
	}
	int ok = elfread_open_fd(&r->ef, fd, why, whycap) == 0 &&
		 elfread_read_program(&r->ef, &r->prog, why, whycap) == 0;
	if (ok) {
		size_t il = strlen(r->prog.interp) + 1, rl = strlen(r->prog.recorded) + 1;
		char *copy = malloc(il + rl);
		ok = copy != NULL;
		if (ok) {
			memcpy(copy, r->prog.interp, il);
			memcpy(copy + il, r->prog.recorded, rl);
			free(t->owned_interp);
			t->owned_interp = copy;
			t->interp = copy;
			t->recorded = copy + il;
		}
		if (ok && facts) {
			t->cls = r->ef.cls;
			t->machine = r->ef.machine;
			t->has_interp = r->prog.has_interp;
		} else if (!ok) {
			snprintf(why, whycap, "out of memory");
		}
	}
	elfread_release(&r->ef);
	free(r);
	return ok ? 0 : -1;
}

static void free_argv(struct target *t);

/* What the kernel grants the program open at fd (st its fstat) when it runs
 * it: set-id bits that change this process's ids (a set-group-ID file
 * without group execute is not set-id), file capabilities.  The ids from the
 * auxiliary vector: no system call.  (A nosuid mount grants neither; the
 * program then runs by itself all the same, as without cudaload.) */
static unsigned privileges(int fd, const struct stat *st)
{
	unsigned p = 0;
	if ((st->st_mode & S_ISUID) && st->st_uid != (uid_t)getauxval(AT_EUID))
		p |= TARGET_SET_ID;
	if ((st->st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) &&
	    st->st_gid != (gid_t)getauxval(AT_EGID))
		p |= TARGET_SET_ID;
	if (fgetxattr(fd, "security.capability", NULL, 0) > 0)
		p |= TARGET_FILE_CAPS;
	return p;
}

static int fail(char *why, size_t whycap, int err, const char *msg)
{
	snprintf(why, whycap, "%s", msg ? msg : strerror(-err));
	return err;
}

void target_init(struct target *t)
{
	memset(t, 0, sizeof *t);
	t->interp = t->recorded = "";
}

/* A #! script: argv becomes interp [arg] script args[1..], or through env:
 * NAME [ARGS] script args[1..]; path (CL_PATH_MAX) becomes the interpreter.
 * The two path buffers come from the heap (alloc.h); the copies made after
 * them are newer, so that block is kept until exit: once per script. */
static int follow_shebang(struct target *t, const char *head, size_t n, const char *pathenv,
			  char *path, char *why, size_t whycap)
{
	char arg[256], argcopy[sizeof arg], *words[ENV_MAX_WORDS];
	char *interp = malloc(2 * CL_PATH_MAX);
	if (!interp)
		return fail(why, whycap, -ENOMEM, NULL);
	char *found = interp + CL_PATH_MAX;
	int r = 0;
	if (parse_shebang(head, n, interp, CL_PATH_MAX, arg, sizeof arg) < 0) {
		r = fail(why, whycap, -ENOEXEC, "bad #! line");
		goto out;
	}
	memcpy(argcopy, arg, sizeof arg);
	int nw = env_words(interp, argcopy, words);
	if (nw && target_search_path(words[0], pathenv, found, CL_PATH_MAX) < 0)
		nw = 0;	/* not found: env says so itself */
	int extra = nw ? nw + 1 : arg[0] ? 2 : 1;
	char **nv = calloc((size_t)(t->argc + extra + 1), sizeof *nv);
	if (!nv) {
		r = fail(why, whycap, -ENOMEM, NULL);
		goto out;
	}
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
	free_argv(t);
	t->owned_argv = t->argv = nv;
	t->argc = k;
	for (int i = 0; i < k; i++)
		if (!nv[i]) {
			r = fail(why, whycap, -ENOMEM, NULL);
			goto out;
		}
	strcpy(path, interp);	/* both CL_PATH_MAX */
out:
	free(interp);
	return r;
}

static int from_command(struct target *t, int argc, char **argv, const char *pathenv,
			char *why, size_t whycap)
{
	target_init(t);
	t->argv = argv;
	t->argc = argc;
	char *path = t->owned_path = malloc(CL_PATH_MAX);
	if (!path)
		return fail(why, whycap, -ENOMEM, NULL);
	t->path = path;

	int r = target_search_path(argv[0], pathenv, path, CL_PATH_MAX);
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
			if (depth >= TARGET_MAX_SCRIPT_DEPTH)
				return fail(why, whycap, -ELOOP, "too many levels of #! interpreters");
			int sr = follow_shebang(t, head, (size_t)n, pathenv, path, why, whycap);
			if (sr < 0)
				return sr;
			continue;
		}
		char reason[128];
		if (read_program(t, fd, true, reason, sizeof reason) < 0) {
			close(fd);
			char msg[160];
			snprintf(msg, sizeof msg, "cannot execute: %s", reason);
			return fail(why, whycap, -ENOEXEC, msg);
		}
		t->privileged = privileges(fd, &st);
		close(fd);
		break;
	}
	/* ld.so searches a bare name like a library (docs/design.md §3). */
	if (!strchr(path, '/')) {
		size_t n = strlen(path);
		if (n + 3 > CL_PATH_MAX)
			return fail(why, whycap, -ENAMETOOLONG, NULL);
		memmove(path + 2, path, n + 1);
		memcpy(path, "./", 2);
	}
	return 0;
}

int target_from_command(struct target *t, int argc, char **argv, const char *pathenv,
			char *why, size_t whycap)
{
	int r = from_command(t, argc, argv, pathenv, why, whycap);
	if (r < 0)
		target_free(t);	/* nothing of a failed one is used */
	return r;
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
	return elfread_interp_parts((const char *)(base + interp->p_vaddr), interp->p_filesz,
				&t->interp, &t->recorded);
}

int target_interp_from_fd(struct target *t, int fd, char *why, size_t whycap)
{
	return read_program(t, fd, false, why, whycap);
}

static void free_argv(struct target *t)
{
	if (t->owned_argv) {
		for (char **a = t->owned_argv; *a; a++)
			free(*a);
		free(t->owned_argv);
	}
	t->owned_argv = NULL;
}

void target_free(struct target *t)
{
	free_argv(t);
	free(t->owned_path);
	free(t->owned_interp);
	t->owned_path = t->owned_interp = NULL;
}
