/* SPDX-License-Identifier: MIT */
#include "steps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../common/base/alloc.h"
#include "../../common/base/diag.h"
#include "../../common/base/env.h"
#include "../../common/base/sys.h"
#include "../../common/packages/reach.h"
#include "pick.h"
#include "start.h"

void die(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("cudaload: ", stderr);
	vfprintf(stderr, fmt, ap);	/* unbounded: a long path is still said whole */
	fputc('\n', stderr);
	va_end(ap);
	exit(status);
}

/* /proc/self/exe's name into out (cap bytes): false when there is none
 * (no /proc: early boot, a chroot), the file is gone ("(deleted)"), or the
 * name fills a buffer smaller than any path may be (it may be cut). */
bool exe_name(char *out, size_t cap)
{
	static const char deleted[] = " (deleted)";
	size_t dl = sizeof deleted - 1;
	ssize_t n = readlink("/proc/self/exe", out, cap - 1);
	if (n <= 0 || ((size_t)n == cap - 1 && cap < CL_PATH_MAX))
		return false;
	out[n] = '\0';
	return (size_t)n <= dl || strcmp(out + n - dl, deleted) != 0;
}

/* The name given to execve, relative ones made to contain a '/'. */
static void execfn_name(char *out)
{
	const char *fn = (const char *)getauxval(AT_EXECFN);
	snprintf(out, CL_PATH_MAX, "%s%s", fn && !strchr(fn, '/') ? "./" : "", fn ? fn : "");
}

/* This binary's own path, for finding what lies beside it.  malloc'd, or
 * NULL when out of memory. */
char *path_from_kernel(void)
{
	char *out = malloc(CL_PATH_MAX);
	if (out && !exe_name(out, CL_PATH_MAX))
		execfn_name(out);
	return out;
}

/* Where the held file (a program whose name is gone) sits in the program
 * and every child it starts: the
 * last slot of the table the kernel gives each process (64 slots on 64-bit
 * Linux, NR_OPEN_DEFAULT in fs/file.c), so it costs no kernel memory there
 * (at 1023 it grew each one's table: 7 KiB a process, measured), above the
 * numbers programs choose themselves (3 and up for inherited sockets, 10 and
 * up for a shell's redirections) and below select()'s limit. */
#define HELD_FD 63

/* The file the kernel ran, held: opening /proc/self/exe follows the
 * kernel's own reference to it, whatever has been renamed over its name or
 * deleted since (docs/design.md §6).  O_PATH: the descriptor grants no
 * access of its own.  Never for a privileged program, whose children
 * could run the file by it (execveat) after an upgrade replaced it.
 * Kept across the exec of ld.so (no O_CLOEXEC), at HELD_FD, else (a
 * descriptor limit of 63 or less) at 3 or above, so that it never stands in
 * for a closed standard stream.  -1 without /proc. */
static int hold_kernel_file(void)
{
	int fd = open("/proc/self/exe", O_PATH);
	if (fd >= 0 && fd != HELD_FD) {
		int high = fcntl(fd, F_DUPFD, HELD_FD);
		if (high < 0 && fd < 3)
			high = fcntl(fd, F_DUPFD, 3);
		if (high >= 0 || fd < 3) {
			close(fd);
			fd = high;
		}
	}
	return fd;
}

const char caps_why[] = "file capabilities (a second exec would drop them, and ld.so "
			       "reads no search list in secure mode)";

const char exe_self[] = "/proc/self/exe";

/* Can ld.so open the program as exe_self?  Not without /proc, nor when the
 * program's user may not read it (an execute-only file): ld.so opens it
 * as this process, so this open says what its own will. */
static bool exe_self_readable(void)
{
	int fd = open(exe_self, O_RDONLY);	/* closed at once: no O_CLOEXEC (musl's is a call more) */
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* AT_SECURE without a change of ids: this exec granted file capabilities
 * (or a security module's transition), which a second one, of ld.so, would
 * not grant again.  Told from set-id, whose ids outlive an exec, by the
 * auxiliary vector: no system call. */
static bool secure_by_capabilities(void)
{
	return getauxval(AT_UID) == getauxval(AT_EUID) && getauxval(AT_GID) == getauxval(AT_EGID);
}

/* AT_EXECFN where it names the program the kernel ran: not a script a #!
 * line ran (AT_EXECFN names the script, which is then among the
 * arguments).  NULL when it is empty or may be a script's. */
static const char *execfn_of_program(char **argv, int argc)
{
	const char *fn = (const char *)getauxval(AT_EXECFN);
	if (!fn || !fn[0])
		return NULL;
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == fn[0] && strcmp(argv[i], fn) == 0)
			return NULL;	/* perhaps a script's name */
	return fn;
}

/* An absolute name without an empty, "." or ".." component. */
static bool plain_absolute(const char *p)
{
	if (p[0] != '/')
		return false;
	for (const char *c = p + 1;; c++) {
		const char *end = strchrnul(c, '/');
		size_t n = (size_t)(end - c);
		if (n == 0 || (c[0] == '.' && (n == 1 || (n == 2 && c[1] == '.'))))
			return false;
		if (!*end)
			return true;
		c = end;
	}
}

/* The program by the name it was run by, where that is the name
 * /proc/self/exe would give, found without /proc (whose per-process
 * entries cost a start about 10 us): a plain absolute AT_EXECFN of the
 * program itself, with no symbolic link anywhere on it, which openat2
 * refuses to follow (RESOLVE_NO_SYMLINKS: one call, and the close).  NULL
 * otherwise, and where the kernel has no openat2 (before Linux 5.6, a
 * seccomp filter that refuses it, qemu-user). */
const char *program_by_real_name(char **argv, int argc)
{
	const char *fn = execfn_of_program(argv, argc);
	if (!fn || !plain_absolute(fn))
		return NULL;
	struct {	/* struct open_how (linux/openat2.h, which musl's headers lack) */
		uint64_t flags, mode, resolve;
	} how = { O_PATH | O_CLOEXEC, 0, 0x04 /* RESOLVE_NO_SYMLINKS */ };
	long fd = syscall(SYS_openat2, AT_FDCWD, fn, &how, sizeof how);
	if (fd < 0)
		return NULL;
	close((int)fd);
	return fn;
}

/* As the interpreter, in exec mode (never in secure mode: settle_mode):
 * what ld.so is handed as the program.  The name /proc/self/exe gives (by
 * the name it was run by where that is the same: program_by_real_name), so
 * that the program's $ORIGIN is its directory, as without cudaload (nobody
 * gains a privilege by changing it), unless the name is gone: then the
 * held file, /proc/self/fd/N. */
const char *program_for_ldso(char **argv, int argc)
{
	static char held[sizeof "/proc/self/fd/" + 12];
	const char *real = program_by_real_name(argv, argc);
	if (real)
		return real;
	char *name = malloc(CL_PATH_MAX);
	if (!name)
		die(EXIT_CANNOT_EXEC, "out of memory");
	if (exe_name(name, CL_PATH_MAX))
		return name;
	int fd = hold_kernel_file();
	if (fd >= 0) {
		free(name);
		snprintf(held, sizeof held, "/proc/self/fd/%d", fd);
		return held;
	}
	execfn_name(name);	/* no /proc: all there is */
	return name;
}

/* The program by the name it was run by (AT_EXECFN), where that name
 * finds its own environment (reach_own_env) as /proc/self/exe's does:
 * the program's own name (execfn_of_program), not a link at its end (a
 * venv's python, linked into its conda environment): one readlink that
 * finds no link.  On the real root the kernel resolves the rest:
 * DIR/../cuda-compat, for the name DIR/NAME, is PREFIX/cuda-compat for the
 * file in PREFIX/bin.  Under CUDALOAD_ROOT the package is looked for as on
 * the target, where the host's links are not: by the name as written
 * (reach.h, own_name), a plain absolute one.  NULL: ask /proc/self/exe. */
const char *program_by_name(char **argv, int argc, const char *root)
{
	const char *fn = execfn_of_program(argv, argc);
	char c;
	if (!fn || (root_len(root) && !plain_absolute(fn)))
		return NULL;
	return readlink(fn, &c, 1) < 0 && errno == EINVAL ? fn : NULL;
}

/* The program, and where this binary lives (its directory holds
 * ../etc/cudaload.conf). */
void find_program(struct start *st)
{
	struct target *t = &st->t;
	char why[160];
	target_init(t);
	if (st->as_interp) {
		t->argv = st->argv;
		t->argc = st->argc;
		t->cls = __ehdr_start.e_ident[EI_CLASS];
		t->machine = __ehdr_start.e_machine;
		t->has_interp = true;	/* we are it: never exec the program itself */
		if (target_interp_from_memory(t, start_program.phdr, start_program.phnum,
					      start_program.phent) < 0) {
			/* From the file the kernel ran, not from a name (§6). */
			int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
			char *name = fd < 0 && !st->s.secure ? path_from_kernel() : NULL;
			if (name)
				fd = open(name, O_RDONLY | O_CLOEXEC);
			free(name);
			if (fd < 0)
				snprintf(why, sizeof why, "%s", strerror(errno));
			if (fd < 0 || target_interp_from_fd(t, fd, why, sizeof why) < 0)
				diag("cannot read the program's PT_INTERP: %s", why);
			if (fd >= 0)
				close(fd);
		}
		st->self = t->interp;
	} else {
		struct asked *o = &st->o;
		st->self = path_from_kernel();
		if (o->first < st->argc) {
			char **argv = st->argv;
			if (o->root && !(argv[o->first] = root_path(o->root, argv[o->first])))
				die(EXIT_CANNOT_EXEC, "out of memory");
			int r = target_from_command(t, st->argc - o->first, argv + o->first,
						    getenv("PATH"), why, sizeof why);
			if (r < 0)
				die(r == -ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC, "%s: %s",
				    argv[o->first], why);
		} else {
			t->cls = __ehdr_start.e_ident[EI_CLASS];
			t->machine = __ehdr_start.e_machine;
		}
	}
	st->have_program = st->as_interp || st->o.first < st->argc;
	st->is_static = st->have_program && !t->has_interp;
}

/* The mode this start can run in.  Chain mode needs a mapped program
 * (PT_INTERP) and an ld.so that reads LD_LIBRARY_PATH, which it does not in
 * secure mode; exec mode would leave a set-id program, and every child it
 * starts, a descriptor of its file to hand it over by (§6).  So a set-id
 * program is handed over in place: ld.so mapped here as in chain mode, and
 * run as a command, the list its argument, as exec mode runs it, on
 * exe_self; where ld.so could not open that (no /proc), chain mode runs the
 * program as the kernel mapped it, without a search list.  So does a
 * program with file capabilities, which an exec of ld.so would drop: bare
 * says why no list can be given, and nothing is looked for. */
void settle_mode(struct start *st)
{
	struct settings *s = &st->s;
	settings_load_config(s, st->envp, st->self);
	st->configured_mode = s->mode;
	if (st->as_interp && s->secure && secure_by_capabilities()) {
		st->bare = caps_why;
		s->mode = MODE_CHAIN;
	} else if (st->as_interp && s->secure) {
		s->mode = MODE_CHAIN;
		st->in_place = exe_self_readable();
		if (!st->in_place)
			st->bare = "a set-id program that ld.so cannot open as /proc/self/exe (no /proc, "
				   "or not readable)";
	} else if (s->mode == MODE_CHAIN && !st->as_interp) {
		diag("chain mode needs cudaload as the interpreter; exec mode");
		s->mode = MODE_EXEC;
	}
	diag("%s mode%s%s%s", mode_name(s->mode), st->in_place ? ", ld.so run as a command in place" : "",
	     st->bare ? ", the system driver: " : "", st->bare ? st->bare : "");
}

/* The real loader (pick.h), unless it is picked already; a run stops where
 * there is none to hand over to. */
void pick_loader(struct start *st)
{
	st->ldso_later = false;
	if (st->have_program && !st->is_static)
		st->ldso_status = pick_ldso(&st->s, &st->t, st->as_interp, &st->ldso, &st->patched,
					    &st->ldso_problem);
	if (st->ldso_status && !st->o.explain)
		die(st->ldso_status, "%s", st->ldso_problem);
	st->llp_first = st->ldso.kind == LDSO_MUSL;
}

/* The real loader, and the user's search list as it reads it (were the
 * variable there twice).  An exec start of a program that brings no list
 * leaves the loader to the prepared decision, which may know it already
 * (loader_from_prepared): the list is none whichever ld.so reads it. */
void find_loader(struct start *st)
{
	struct ldso_info *l = &st->ldso;
	memset(l, 0, sizeof *l);
	l->fd = -1;
	l->keep = st->s.mode == MODE_CHAIN && !st->o.explain;	/* chain maps it next */
	l->command = st->in_place;	/* and runs it as a command: --argv0 */
	l->path = "";
	/* exec mode hands ld.so --argv0 where it takes it: what the program
	 * asks of glibc may say so without a read of the loader (reach.h) */
	if (st->as_interp && (!l->keep || l->command))
		st->t.glibc_floor = reach_glibc_floor(start_program.phdr, start_program.phnum,
						      start_program.phent);
	const char *llp = env_get_last(st->envp, "LD_LIBRARY_PATH");	/* glibc's */
	st->ldso_later = st->as_interp && !l->keep && !st->s.secure && !st->bare && !diag_on && !llp &&
			 st->have_program && !st->is_static;
	if (!st->ldso_later)
		pick_loader(st);
	if (llp && st->llp_first)
		llp = env_get(st->envp, "LD_LIBRARY_PATH");
	st->user_llp = user_library_path(llp, st->envp, st->s.secure);
}

const char *user_library_path(const char *llp, char **envp, bool secure)
{
	const char *own = secure || !llp ? NULL : env_get(envp, INHERITED);
	size_t n = own ? strlen(own) : 0;
	if (!llp || !n || strncmp(llp, own, n) != 0 || (llp[n] != ':' && llp[n] != '\0'))
		return llp;
	return llp[n] ? llp + n + 1 : NULL;
}
