/* SPDX-License-Identifier: MIT */
/*
 * cudaload: pick the CUDA driver for this device at exec time, then hand
 * over to the real dynamic loader.
 *
 * The flow runs one way, as main's steps: options -> the program ->
 * the mode -> its loader -> a prepared decision that still holds
 * (common/stores/prepared.h) or the host judged (common/decision/judge.h: probe, packages,
 * verdicts, decision, pin, search list) -> hand-over.  Everything that decides lives
 * in common/; this file only gathers inputs and hands over.
 * Whatever goes wrong before the decision, the program still runs with the
 * system driver; only a missing program or loader stops it (127/126).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/packages/compat.h"
#include "../common/settings/settings.h"
#include "../common/decision/decide.h"
#include "../common/base/diag.h"
#include "../common/base/identity.h"
#include "../common/decision/judge.h"
#include "../common/elf/ldso.h"
#include "../common/decision/pin.h"
#include "../common/decision/plan.h"
#include "../common/stores/prepared.h"
#include "../common/host/probe.h"
#include "../common/packages/reach.h"
#include "../common/report/report.h"
#include "../common/packages/secure.h"
#include "../common/host/tables.h"
#include "../common/elf/target.h"
#include "../common/packages/verdict.h"
#include "chain.h"
#include "firstuse.h"
#include "ocihook.h"
#include "pick.h"
#include "status.h"
#include "start.h"

#ifndef CUDALOAD_VERSION
#define CUDALOAD_VERSION "0.1.0"
#endif

/* execline's exit codes; 126 and 127 in pick.h */
#define EXIT_USAGE 100

extern const ElfW(Ehdr) __ehdr_start;

/* Marks this binary as cudaload for any cudaload that meets it as a loader
 * candidate (common/base/identity.h). */
IDENTITY_NOTE(IDENTITY_NOTE_TYPE);

static const char usage[] =
	"usage: cudaload [--policy auto|compat|system] [--] PROGRAM [ARGS...]\n"
	"       cudaload --explain [--json] [--policy P] [--root DIR] [PROGRAM]\n"
	"       cudaload --verify [--json] [--timeout SECONDS] [PROGRAM...]\n"
	"       cudaload --status [--json | --prometheus] [--textfile DIR] [--root DIR]\n"
	"       cudaload --oci-hook   (an OCI createContainer hook: the state on stdin)\n"
	"       cudaload --version | --help\n"
	"Runs PROGRAM with the newest CUDA forward-compatibility driver valid for\n"
	"this device, or with the system driver.  See CUDALOAD_DEBUG=1.\n"
	"  --policy P   auto (default), compat (any package for the machine) or\n"
	"               system (never a package)\n"
	"  --explain    print what was found and decided, run nothing\n"
	"  --json       with --explain, --verify or --status: one JSON object\n"
	"               (keys in cudaload(1))\n"
	"  --verify     use each compat package and the system driver in a child\n"
	"               (cuInit, a context and a PTX module on every device), store\n"
	"               the verdicts: as root in /run/cudaload/verdicts, as\n"
	"               another user in that user's own ($XDG_RUNTIME_DIR/cudaload\n"
	"               or ~/.cache/cudaload), which its programs read after root's;\n"
	"               also the packages each recorded program and PROGRAM reach\n"
	"  --timeout S  with --verify: kill a child after S seconds (default 60)\n"
	"  --status     the whole machine: host, compat packages and their\n"
	"               verdicts, the pin, every program cudaload-patch recorded\n"
	"               and whether what it loads holds; exit 0 all holds, 1 not\n"
	"               (or a verdict is stale), 2 the status cannot be told\n"
	"  --prometheus with --status: node_exporter's textfile format\n"
	"  --textfile D with --status: also write D/cudaload.prom, atomically\n"
	"  --oci-hook   judge a container's image against this host and make its\n"
	"               loader agree (docs/containers.md); exits 0 whatever happens\n"
	"  --root DIR   with --status or --explain: the image under DIR, its\n"
	"               paths as its own, nothing run (PROGRAM: its path there)\n"
	"  --version    print the version\n"
	"  --help       print this\n"
	"As a program's interpreter (cudaload-patch) cudaload reads no option.\n"
	"Exit status: the program's; before it runs, 100 usage, 126 cannot\n"
	"execute, 127 not found.\n";

__attribute__((noreturn, format(printf, 2, 3)))
static void die(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("cudaload: ", stderr);
	vfprintf(stderr, fmt, ap);	/* unbounded: a long path is still said whole */
	fputc('\n', stderr);
	va_end(ap);
	exit(status);
}

struct options {
	bool explain, json, verify, status, oci_hook;
	struct status_options so;
	const char *root;	/* --root DIR */
	int first;		/* index of PROGRAM in argv */
};

static void parse_options(int argc, char **argv, struct settings *s, struct options *o)
{
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		} else if (strcmp(a, "--explain") == 0) {
			o->explain = true;
		} else if (strcmp(a, "--verify") == 0) {
			o->verify = true;	/* the rest is the verifier's */
			for (int k = i + 1; !o->root && k < argc && strcmp(argv[k], "--") != 0; k++)
				if (strncmp(argv[k], "--root", 6) == 0 && (!argv[k][6] || argv[k][6] == '='))
					o->root = argv[k];
			if (o->root)
				die(EXIT_USAGE, "--verify takes no --root: it would load an image's libraries "
						"as root and judge them by this host's driver");
			return;
		} else if (strcmp(a, "--oci-hook") == 0) {
			if (i != 1 || argc != 2)
				die(EXIT_USAGE, "--oci-hook takes nothing else: the OCI state comes on stdin");
			o->oci_hook = true;
			return;
		} else if (strcmp(a, "--json") == 0) {
			o->json = true;
		} else if (strcmp(a, "--status") == 0) {
			o->status = true;
		} else if (strcmp(a, "--prometheus") == 0) {
			o->so.prometheus = true;
		} else if (strcmp(a, "--textfile") == 0 || strcmp(a, "--root") == 0) {
			if (i + 1 >= argc || !argv[i + 1][0])
				die(EXIT_USAGE, "%s needs a directory", a);
			if (strcmp(a, "--root") == 0)
				o->root = argv[++i];
			else
				o->so.textfile_dir = argv[++i];
		} else if (strcmp(a, "--policy") == 0 || strncmp(a, "--policy=", 9) == 0) {
			const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : "");
			if (policy_parse(v, &s->policy) < 0)
				die(EXIT_USAGE, "--policy: '%s' is not auto, compat or system", v);
			s->policy_from = "--policy";
			s->policy_locked = true;
		} else if (strcmp(a, "--version") == 0) {
			char v[16];
			printf("cudaload %s\nNVIDIA tables: CUDA %s edition, checked %s; also %s\n",
			       CUDALOAD_VERSION, cuda_version_format(tables_edition, v, sizeof v), tables_checked,
			       tables_also);
			exit(0);
		} else if (strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			exit(0);
		} else {
			fputs(usage, stderr);
			die(EXIT_USAGE, "%s: unknown option", a);
		}
	}
	o->first = i;
	if (o->status) {
		if (o->explain || i < argc)
			die(EXIT_USAGE, "--status takes no program and no --explain");
		if (o->json && o->so.prometheus)
			die(EXIT_USAGE, "--json or --prometheus, not both");
		o->so.json = o->json;
		return;
	}
	if (o->so.prometheus || o->so.textfile_dir)
		die(EXIT_USAGE, "--prometheus and --textfile go with --status");
	if (o->root && !o->explain)
		die(EXIT_USAGE, "--root goes with --status or --explain");
	if (o->root && i < argc && argv[i][0] != '/')
		die(EXIT_USAGE, "--explain --root: %s: name the program by its path in the image", argv[i]);
	if (o->json && !o->explain)
		die(EXIT_USAGE, "--json goes with --explain or --status");
	if (!o->explain && i >= argc) {
		fputs(usage, stderr);
		exit(EXIT_USAGE);
	}
}

/* /proc/self/exe's name into out (cap bytes): false when there is none
 * (no /proc: early boot, a chroot), the file is gone ("(deleted)"), or the
 * name fills a buffer smaller than any path may be (it may be cut). */
static bool exe_name(char *out, size_t cap)
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
static char *path_from_kernel(void)
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

/* Why a program with file capabilities gets the system driver. */
static const char caps_why[] = "file capabilities (a second exec would drop them, and ld.so "
			       "reads no search list in secure mode)";

/* What ld.so is handed as a set-id program: the kernel's own reference to
 * the file it checked, opened by ld.so in this process (no exec between),
 * whatever has been renamed over the program's name since. */
static const char exe_self[] = "/proc/self/exe";

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
static const char *program_by_real_name(char **argv, int argc)
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
static const char *program_for_ldso(char **argv, int argc)
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
static const char *program_by_name(char **argv, int argc, const char *root)
{
	const char *fn = execfn_of_program(argv, argc);
	char c;
	if (!fn || (root_len(root) && !plain_absolute(fn)))
		return NULL;
	return readlink(fn, &c, 1) < 0 && errno == EINVAL ? fn : NULL;
}

/* A `cudaload PROGRAM` hands its choice down to the program's descendants
 * (workers that re-run sys.executable: torchrun, multiprocessing's spawn,
 * Ray), which start without cudaload, through LD_LIBRARY_PATH: the chosen
 * driver's own directories first, then the user's list, with
 * CUDALOAD_INHERITED_PATH naming those directories (docs/design.md §6).
 * The user's list is what follows them in llp (LD_LIBRARY_PATH as the
 * loader reads it); a cudaload below decides for itself on it.  NULL: the
 * user has none. */
#define INHERITED "CUDALOAD_INHERITED_PATH"

static const char *user_library_path(const char *llp, char **envp, bool secure)
{
	const char *own = secure || !llp ? NULL : env_get(envp, INHERITED);
	size_t n = own ? strlen(own) : 0;
	if (!llp || !n || strncmp(llp, own, n) != 0 || (llp[n] != ':' && llp[n] != '\0'))
		return llp;
	return llp[n] ? llp + n + 1 : NULL;
}

static bool is_variable(const char *entry, const char *name)
{
	size_t n = strlen(name);
	return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

/* "NAME=VALUE", malloc'd. */
static char *variable(const char *name, const char *value)
{
	size_t n = strlen(name) + strlen(value) + 2;
	char *v = malloc(n);
	if (v)
		snprintf(v, n, "%s=%s", name, value);
	return v;
}

/* The environment for the program of `cudaload PROGRAM`: envp with
 * LD_LIBRARY_PATH led by own (the chosen driver's directories; NULL: none)
 * and CUDALOAD_INHERITED_PATH naming them, or the user's list alone.
 * envp itself when there is nothing to hand down, or no memory. */
static char **inheritable_env(char **envp, const char *own, const char *user_llp)
{
	if (!own && !env_get(envp, INHERITED))
		return envp;
	size_t n = 0;
	while (envp[n])
		n++;
	char **out = calloc(n + 3, sizeof *out);
	if (!out)
		return envp;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!is_variable(envp[i], "LD_LIBRARY_PATH") && !is_variable(envp[i], INHERITED))
			out[k++] = envp[i];
	if (own) {
		/* "own" alone: the user had no list; "own:LIST" (LIST may be empty) */
		char *llp = malloc(strlen(own) + (user_llp ? strlen(user_llp) + 2 : 1));
		if (llp)
			strcat(strcat(strcpy(llp, own), user_llp ? ":" : ""), user_llp ? user_llp : "");
		char *entry = llp ? variable("LD_LIBRARY_PATH", llp) : NULL;
		/* the kernel's limit holds for environment strings too (E2BIG) */
		if (!entry || !plan_fits_argument(entry) || !(out[k + 1] = variable(INHERITED, own))) {
			free(entry);
			free(llp);
			return envp;	/* without the hand-down: the program itself is right */
		}
		out[k] = entry;
		k += 2;
		diag("descendants inherit LD_LIBRARY_PATH=%s", llp);
		free(llp);
	} else if (user_llp && !(out[k++] = variable("LD_LIBRARY_PATH", user_llp))) {
		return envp;
	}
	out[k] = NULL;
	return out;
}

/* For --explain, the mode that program runs in: a patched one starts
 * cudaload as its interpreter (chain unless configured otherwise or
 * set-id; always with file capabilities); a static one runs directly, and so
 * does one the kernel makes privileged, run as a command.  Apart from main: its stat buffer
 * would deepen main's frame on every start. */
__attribute__((noinline))
static const char *explained_mode(const struct settings *s, const struct target *t,
				  enum mode configured, bool have_program, bool is_static,
				  bool patched, const char **why)
{
	struct stat st;
	if (is_static) {
		*why = "statically linked: it runs directly, without a loader";
		return "direct";
	}
	if (t->privileged & TARGET_FILE_CAPS) {
		*why = patched ? "its interpreter is cudaload; file capabilities: chain keeps them"
			       : "file capabilities: it runs by itself, which keeps them";
		return patched ? "chain" : "direct";
	}
	if (t->privileged && !patched) {
		*why = "set-id: it runs by itself, which keeps that";
		return "direct";
	}
	/* the mode bits, as other users start it (root, who explains, may own it) */
	if (patched && (t->privileged || (stat(t->path, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID))))) {
		*why = "its interpreter is cudaload; set-id: ld.so mapped in place, run as a command";
		return "chain";
	}
	if (patched && configured == MODE_CHAIN) {
		*why = "its interpreter is cudaload";
		return "chain";
	}
	if (have_program && configured == MODE_CHAIN)
		*why = "run as `cudaload PROGRAM`; chain needs cudaload as the interpreter";
	return mode_name(s->mode);
}

/* --explain --root: every path shown as the image's own (the config, the
 * program, its loader, the search list, the pin, the libcuda, what else
 * names one).
 * Apart from main, like explained_mode. */
__attribute__((noinline))
static void image_paths(const char *root, struct settings *s, struct target *t,
			struct ldso_info *l, char *problem, char *llp, struct pin *pin, char *libcuda,
			char **rivals, int n_rivals)
{
	status_unprefix(root, s->config_path);
	for (int i = 0; i < s->n_warnings; i++)
		status_unprefix(root, s->warnings[i]);
	char *p = t->path ? strdup(t->path) : NULL, *lp = l->path ? strdup(l->path) : NULL;
	status_unprefix(root, p);
	status_unprefix(root, lp);
	t->path = p ? p : t->path;
	l->path = lp ? lp : l->path;
	status_unprefix(root, problem);
	status_unprefix(root, llp);
	status_unprefix(root, pin->dir);
	status_unprefix(root, libcuda);
	for (int i = 0; i < n_rivals; i++)
		status_unprefix(root, rivals[i]);
}

static void trace_command(char *const *av)
{
	if (!diag_on)
		return;
	char line[1024];
	size_t n = 0;
	for (; *av && n + 4 < sizeof line; av++) {
		int w = snprintf(line + n, sizeof line - n, "%s'%s'", n ? " " : "", *av);
		n += w > 0 ? (size_t)w : 0;
	}
	diag("exec %s", line);
}

/* Exec path with av, or exit 127 (not found) or 126 (cannot run) saying why. */
__attribute__((noreturn))
static void exec_or_die(const char *path, char *const *av, char **envp)
{
	trace_command(av);
	execve(path, av, envp);
	int e = errno;
	die(e == ENOENT || e == ENOTDIR ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC,
	    "%s: %s", path, e == E2BIG ? "argument list and environment too long (E2BIG)"
				      : strerror(e));
}

/* What each step of a start produced, handed from one to the next. */
struct start {
	/* the kernel and the command line */
	bool as_interp;		/* started as a program's interpreter */
	bool for_host;		/* --verify: prepare for a program that brings nothing */
	struct settings s;
	struct options o;
	int argc;
	char **argv, **envp;
	/* find_program: the program, and this binary's own path (for ../etc) */
	struct target t;
	const char *self;
	bool have_program, is_static;
	/* settle_mode */
	enum mode configured_mode;	/* before what this start allows */
	const char *handed;	/* the program as exec mode hands it to ld.so, settled at
				 * the hand-over (or by brings_package) */
	bool in_place;		/* set-id: ld.so mapped here, run as a command on exe_self */
	const char *bare;	/* why no search list can be given, or NULL */
	/* find_loader */
	struct ldso_info ldso;
	bool patched;		/* the program's PT_INTERP is cudaload */
	int ldso_status;	/* 0, or 126/127 with ldso_problem */
	char *ldso_problem;
	bool ldso_later;	/* find_loader left the pick to a prepared decision (pick_loader) */
	bool llp_first;		/* this ld.so reads the first LD_LIBRARY_PATH, not the last */
	const char *user_llp;	/* the user's list, without what a cudaload above handed down */
	/* the choice: a prepared decision's, or judged now */
	char *list;		/* the search list for ld.so, or NULL: none */
	char *own;		/* `cudaload PROGRAM`: the chosen driver's directories alone */
	char *prepared;		/* PREPARED_CAP bytes (main's, not zeroed: a page not
				 * touched unless read): a decision read, the list in it */
	char *exe;		/* EXE_CAP bytes, main's: /proc/self/exe's name, once read */
	bool exe_read;
};
#define EXE_CAP 512

/* The program, and where this binary lives (its directory holds
 * ../etc/cudaload.conf). */
static void find_program(struct start *st)
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
		struct options *o = &st->o;
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
static void settle_mode(struct start *st)
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
static void pick_loader(struct start *st)
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
static void find_loader(struct start *st)
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

/* This binary's GNU build ID, from its own program headers in memory: what
 * makes a prepared decision this build's (prepared.h).  NULL when none. */
static const unsigned char *build_id(size_t *len)
{
	const unsigned char *base = (const unsigned char *)&__ehdr_start;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + __ehdr_start.e_phoff);
	uintptr_t bias = (uintptr_t)base;	/* static-pie: the header is at address 0 */
	for (int i = 0; i < __ehdr_start.e_phnum; i++) {
		if (ph[i].p_type != PT_NOTE)
			continue;
		const unsigned char *p = (const unsigned char *)(bias + ph[i].p_vaddr);
		const unsigned char *end = p + ph[i].p_memsz;
		while (end - p >= 12) {
			const uint32_t *n = (const uint32_t *)(const void *)p;
			size_t name = (n[0] + 3) & ~3u, desc = (n[1] + 3) & ~3u;
			if ((size_t)(end - p) - 12 < name + desc)
				break;
			if (n[2] == NT_GNU_BUILD_ID && n[0] == 4 && memcmp(p + 12, "GNU", 4) == 0) {
				*len = n[1];
				return p + 12 + name;
			}
			p += 12 + name + desc;
		}
	}
	*len = 0;
	return NULL;
}

/* Can this start use a prepared decision, or write one (prepared.h)?  A
 * patched program, not set-id, on a host that may be a Jetson, that names
 * no directories of its own: no DT_RPATH or DT_RUNPATH, no LD_LIBRARY_PATH
 * (what its environment names is looked at each start: brings_package). */
static bool prepared_fits(const struct start *st)
{
	const char *rpath = NULL, *runpath = NULL, *cudart = NULL;
	if (st->for_host)
		return !st->s.secure && !st->user_llp && probe_tegra_possible(st->s.root);
	if (!st->as_interp || st->s.secure || st->bare || st->o.explain || st->is_static ||
	    st->ldso_status || st->user_llp || !probe_tegra_possible(st->s.root))
		return false;
	reach_paths_from_memory(start_program.phdr, start_program.phnum, start_program.phent,
				&rpath, &runpath, &cudart);
	return !rpath && !runpath;
}

/* Where this start keeps its prepared decision: root's for root, a user's
 * own in XDG_RUNTIME_DIR (which the user's session owns) for another. */
static int prepared_place(const struct start *st, bool users, char *out, size_t cap)
{
	if (!users)
		return prepared_path(out, cap, st->s.root, PREPARED_DIR, st->t.machine);
	/* the user's own only: a directory of that uid that nobody else may
	 * enter (as the verdict store's, verdict.h); one stat */
	const char *xdg = env_get(st->envp, "XDG_RUNTIME_DIR");
	struct stat sb;
	if (!xdg || xdg[0] != '/' || stat(xdg, &sb) < 0 || !S_ISDIR(sb.st_mode) ||
	    sb.st_uid != (uid_t)getauxval(AT_UID) || (sb.st_mode & 077))
		return -1;
	return prepared_path(out, cap, xdg, "/cudaload", st->t.machine);
}

/* The key of this start's prepared decision (prepared.h): 0 when this
 * binary has no build ID to tell its decisions from another build's. */
static uint64_t key_of(const struct start *st)
{
	size_t bl;
	const unsigned char *b = build_id(&bl);
	const char *slash = st->self ? strrchr(st->self, '/') : NULL;
	return b ? prepared_key(b, bl, st->self, slash ? (size_t)(slash - st->self) : 0, &st->s,
				st->t.cls, st->t.machine)
		 : 0;
}

/* Where the program's own package would be (PREFIX/cuda-compat), by_name
 * (program_by_name) or from exe, into dir (cap bytes): false when it has
 * none or the name does not fit. */
static bool own_package(const char *by_name, bool real_root, const char *exe, char *dir, size_t cap)
{
	if (!by_name || !real_root)
		return reach_own_env(by_name ? by_name : exe, dir, cap);
	/* by name on the real root, DIR/../cuda-compat: whatever DIR is
	 * called, a package there sends the start down the full path, which
	 * looks in PREFIX/bin's parent alone */
	static const char up[] = "/../cuda-compat";
	const char *slash = strrchr(by_name, '/');
	size_t dl = slash ? (size_t)(slash - by_name) : 1;
	if (dl + sizeof up > cap)
		return false;
	memcpy(dir, slash ? by_name : ".", dl);
	memcpy(dir + dl, up, sizeof up);
	return true;
}

/* Does the program bring a package the prepared decision did not judge:
 * its own environment's (PREFIX/cuda-compat), CONDA_PREFIX's cuda-compat,
 * CUDA_HOME's (else CUDA_PATH's) compat/ (reach.h)?  A stat each. */
static bool brings_package(struct start *st, const struct prepared_view *v)
{
	char full[1024], *exe = st->exe;	/* one buffer: start-up counts its stack pages */
#define VARS(X) X(CONDA, "CONDA_PREFIX") X(HOME, "CUDA_HOME") X(PATH, "CUDA_PATH")
	enum { VARS(ENV_ID) N_NAMES };
	static const char names[] = VARS(ENV_NAME);
	static const unsigned char lens[] = { VARS(ENV_LEN) };
#undef VARS
	const char *vals[N_NAMES];
	env_get_each(st->envp, names, lens, vals, N_NAMES);
	const char *conda = vals[CONDA], *home = vals[HOME] ? vals[HOME] : vals[PATH];
	size_t rl = root_len(st->s.root);
	/* By the name the program was run by where that finds the same (under
	 * a root the full path takes the name too, reach_more); else
	 * /proc/self/exe's.  Exec mode hands ld.so the name /proc/self/exe
	 * gives: found here once, by name where that is it, else read onto
	 * the stack, whatever finds the package.  Chain mode needs none. */
	bool chain = st->s.mode == MODE_CHAIN;
	const char *by_name = chain ? NULL : (st->handed = program_by_real_name(st->argv, st->argc));
	if (!by_name && (chain || rl))
		by_name = program_by_name(st->argv, st->argc, st->s.root);
	bool need_exe = chain ? !by_name : !st->handed;
	if (need_exe && !exe_name(exe, EXE_CAP))
		return true;	/* no /proc, gone, or a long name: the full path sees to it */
	st->exe_read = need_exe;	/* program_for_ldso's answer, for exec mode */
	if (rl >= sizeof full / 2)
		return true;
	memcpy(full, st->s.root, rl);
	for (int k = 0; k < 3; k++) {
		const char *base = k == 1 ? conda : home, *tail = k == 1 ? "/cuda-compat" : "/compat";
		char *dir = full + rl;
		size_t cap = sizeof full - rl;
		if (k == 0 ? !own_package(by_name, !rl, exe, dir, cap)
			   : !base || base[0] != '/' || snprintf(dir, cap, "%s%s", base, tail) >= (int)cap)
			continue;
		struct stat sb;
		if (stat(full, &sb) == 0 && S_ISDIR(sb.st_mode) &&
		    !prepared_has_candidate(v, sb.st_dev, sb.st_ino))
			return true;
	}
	return false;
}

/* Exec mode: the loader as the prepared decision kept it, where the pick
 * would look there first, the file is the one read then (one stat) and
 * what it said then settles what it takes (ldso_settle_known): no open and
 * no read of it.  Else the pick reads it (pick_loader). */
static bool loader_from_prepared(struct start *st, const struct prepared_view *v)
{
	struct ldso_info *l = &st->ldso;
	const struct prepared_loader *kept = &v->loader;
	if (!kept->path || !pick_ldso_first(&st->s, &st->t, st->as_interp, l) ||
	    strcmp(kept->path, l->path) != 0 || (l->named && !kept->named) ||
	    !ldso_settle_known(l, kept->kind, kept->minor) || !prepared_loader_holds(kept))
		return false;
	/* the key's: a loader for another machine or class is never kept */
	l->machine = st->t.machine;
	l->cls = st->t.cls;
	st->patched = st->t.recorded[0] != '\0';	/* as pick_ldso says as the interpreter */
	st->llp_first = l->kind == LDSO_MUSL;
	st->ldso_later = false;
	return true;
}

/* The choice from a prepared decision that still holds (prepared.h): a
 * readlink, a stat per input, the program's own environment. */
__attribute__((noinline))
static bool use_prepared(struct start *st)
{
	uint64_t key = prepared_fits(st) ? key_of(st) : 0;
	if (!key)
		return false;
	unsigned uid = (unsigned)getauxval(AT_UID);
	char *path = st->exe;	/* free until brings_package reads the name into it */
	struct prepared_view v;
	const char *why = "none";
	bool held = false;
	for (int users = 0; users < 2 && !held; users++) {
		if ((users && uid == 0) || prepared_place(st, users, path, EXE_CAP) < 0)
			break;
		held = prepared_check(path, key, st->prepared, &v, &why);
		if (held && uid != 0 && !users && v.users_stores) {
			held = false;	/* a user's verdicts count here: root's is root's */
			why = "root's is not this user's (users' verdict stores count on this host)";
		}
	}
	if (held && brings_package(st, &v)) {
		held = false;
		why = "the program's environment names a package it did not judge";
	}
	if (diag_on) {
		/* the full path, whole, and nothing written: the trace's start
		 * looks wider than one without it (packages on a host without a GPU) */
		diag("prepared decision: %s%s", held ? "holds (the full path runs for this trace)" : why,
		     held ? "" : "; a start without CUDALOAD_DEBUG writes one");
		return false;
	}
	if (!held)
		return false;
	if (st->ldso_later && !loader_from_prepared(st, &v))
		pick_loader(st);
	st->list = v.list[0] ? (char *)v.list : NULL;
	return true;
}

/* Keep what the full path decided for the next start (prepared.h): unless
 * a package the program's environment named was among those judged (then
 * the decision is the program's, not the host's). */
__attribute__((noinline))
static void prepare(struct start *st, struct prepared_record *rec, const struct host *h,
		    const struct candidates *c, const struct decision *d)
{
	/* the origins reach.h gives what the environment names (no table:
	 * pointers would land in the loader's one writable page) */
	for (size_t i = 0; i < c->n; i++) {
		const char *o = c->v[i].origin;
		if (strcmp(o, "environment") == 0 || strcmp(o, "CONDA_PREFIX") == 0 ||
		    strncmp(o, "CUDA_", 5) == 0) {
			return;	/* the decision is the program's, not the host's */
		}
	}
	unsigned uid = (unsigned)getauxval(AT_UID);
	bool users = uid != 0;
	char path[CL_PATH_MAX / 4];
	const struct ldso_info *l = &st->ldso;
	struct prepared_decision pd = {
		.key = key_of(st), .cands = c, .compat = d->use_compat, .list = st->list,
		.reason = d->reason, .users_stores = h->platform != PLATFORM_TEGRA,
		.loader = { .path = st->ldso_status == 0 && l->path && l->path[0] ? l->path : NULL,
			    .named = l->named, .kind = l->file_kind,
			    .minor = l->file_kind == 'g' ? l->glibc_minor : 0 },
	};
	if (!pd.key)
		return;
	bool lasting = false;
	char *store = users && pd.users_stores ? verdict_user_store(st->envp, uid, &lasting) : NULL;
	pd.user_store = store;
	const char *why;
	if (prepared_place(st, users, path, sizeof path) == 0) {
		char *slash = strrchr(path, '/');
		*slash = '\0';
		mkdir(path, users ? 0700 : 0755);
		*slash = '/';
		prepared_write(rec, path, &pd, &why);	/* not written: the next start probes */
	}
	free(store);
}

/* What else names a libcuda for the program (the trace and --explain),
 * then, for --explain, the choice's whole story, and exit: 0, or 126/127
 * when the real loader cannot be used.  Apart from main, like judge_start. */
__attribute__((noinline))
static void explain(struct start *st, const struct judge_in *in, struct judgement *j)
{
	struct settings *s = &st->s;
	struct target *t = &st->t;
	struct decision *d = &j->d;
	char *llp = st->list;
	/* What `cudaload PROGRAM` of one the kernel makes privileged gets (it
	 * runs by itself), and a patched one with file capabilities (bare). */
	if (st->o.explain && ((t->privileged & TARGET_FILE_CAPS) || (t->privileged && !st->patched))) {
		free(llp);
		llp = NULL;
		d->use_compat = false;
		snprintf(d->reason, sizeof d->reason, "system driver: %s",
			 t->privileged & TARGET_FILE_CAPS ? caps_why : "set-id, it runs by itself");
	}
	char *libcuda = NULL, **rivals = NULL;
	int n_rivals = judge_rivals(in, j, st->have_program ? t->path : NULL, llp != NULL, &libcuda,
				    &rivals);
	if (libcuda)
		diag("libcuda %s", libcuda);
	for (int i = 0; i < n_rivals; i++)
		diag("%s", rivals[i]);
	if (!st->o.explain)
		return;
	const char *mode_why = NULL;
	const char *mode = explained_mode(s, t, st->configured_mode, st->have_program, st->is_static,
					  st->patched, &mode_why);
	if (st->o.root)
		image_paths(st->o.root, s, t, &st->ldso, st->ldso_problem, llp, &j->pin, libcuda, rivals,
			    n_rivals);
	struct report r = { s, &j->host, &j->cands, d, st->have_program ? t->path : NULL,
			    st->have_program && !st->is_static ? &st->ldso : NULL,
			    st->ldso_status ? st->ldso_problem : NULL, llp, &j->system_verdict,
			    (long long)time(NULL), mode, mode_why, &j->pin, libcuda, rivals, n_rivals };
	(st->o.json ? report_json : report_text)(stdout, &r);
	exit(fflush(stdout) != 0 ? 1 : st->ldso_status);
}

/* Where else the program can get a libcuda (common/packages/reach.h): its name, its
 * search paths, its environment (the user's LD_LIBRARY_PATH, without what a
 * cudaload above handed down).  The start's reach (judge.h); -1 only when
 * out of memory. */
static int reach_more(void *ctx, struct host *h, struct candidates *c)
{
	const struct start *st = ctx;
	const struct settings *s = &st->s;
	const struct target *t = &st->t;
	bool as_interp = st->as_interp;
	char **envp = st->envp;
	struct reach r = { .root = s->root, .machine = t->machine, .explain = st->o.explain || diag_on };
	char *name = NULL, *paths = NULL;
	if (as_interp) {
		/* The file the kernel runs: AT_EXECFN names a script whose #! line
		 * started it, and a venv's python is a link into its conda
		 * environment.  Without /proc, the name it was started by. */
		const char *fn = (const char *)getauxval(AT_EXECFN);
		if ((name = malloc(CL_PATH_MAX)) && exe_name(name, CL_PATH_MAX))
			r.program = name = realloc(name, strlen(name) + 1);	/* the rest given back */
		else if (fn && fn[0] == '/' && !s->secure)
			r.program = fn;
		reach_paths_from_memory(start_program.phdr, start_program.phnum, start_program.phent,
					&r.rpath, &r.runpath, &r.cudart);
		if (root_len(s->root))
			r.own_name = program_by_name(t->argv, t->argc, s->root);
	} else if (t->path) {
		r.program = t->path[0] == '/' ? t->path : (name = realpath(t->path, NULL));
		if ((paths = malloc(2 * 1024 + REACH_CUDART_MAX)) &&
		    reach_paths_from_file(t->path, paths, paths + 1024, paths + 2048, 1024) == 0) {
			r.rpath = paths;
			r.runpath = paths + 1024;
			r.cudart = paths[2048] ? paths + 2048 : NULL;
		}
	}
	if (!s->secure) {
		r.llp = st->user_llp;
		r.conda_prefix = env_get(envp, "CONDA_PREFIX");
		r.cuda_home = env_get(envp, "CUDA_HOME");
		r.cuda_home_from = "CUDA_HOME";
		if (!r.cuda_home) {
			r.cuda_home = env_get(envp, "CUDA_PATH");
			r.cuda_home_from = "CUDA_PATH";
		}
	}
	int got = reach_discover(&r, h, c);
	free(paths);
	free(name);
	return got;
}

/* The start's first use (firstuse.h): the driver asked about what only it
 * can judge of the packages this start would take. */
static bool ask_driver(void *ctx, const struct judgement *j)
{
	struct start *st = ctx;
	int ask[FIRST_USE_MAX];
	int n = first_use_pending(&st->s, &j->host, &j->cands, &j->d, ask, FIRST_USE_MAX);
	return n && first_use_ask(st->self, st->envp, &j->cands, ask, n);
}

/* Judge the host for the program (judge.h) and keep it for the next start
 * (prepared.h); explain (and exit) or leave the list for the hand-over.  Apart from main: its frame holds what a prepared decision
 * spares. */
__attribute__((noinline))
static void judge_start(struct start *st)
{
	struct judgement j;
	judge_init(&j);
	const struct judge_in in = {
		.s = &st->s, .cls = st->t.cls, .machine = st->t.machine, .self = st->self,
		.bare = st->bare, .full = st->o.explain || diag_on, .explain = st->o.explain,
		.reach = reach_more, .reach_ctx = st,
		.stores = JUDGE_STORES_START, .envp = st->envp, .uid = (unsigned)getauxval(AT_UID),
		.ask = st->o.explain ? NULL : ask_driver, .ask_ctx = st,
		.user_llp = st->user_llp, .one_argument = st->s.mode == MODE_EXEC,
	};
	struct prepared_record rec = { .seen = NULL };
	bool preparing = !diag_on && prepared_fits(st) && prepared_begin(&rec, st->s.root) == 0;
	judge_host(&in, &j);
	st->list = j.list;
	st->own = st->as_interp ? NULL : j.own;	/* `cudaload PROGRAM` hands these down */
	prepared_end(&rec);
	/* Kept where there is a GPU to judge: a host without one leaves no
	 * file behind (its full path is two failed opens and the device tree) */
	if (preparing && j.settled && j.whole && !st->bare && j.host.platform != PLATFORM_NONE)
		prepare(st, &rec, &j.host, &j.cands, &j.d);
	prepared_record_free(&rec);
	if (st->o.explain || diag_on)
		explain(st, &in, &j);	/* explain exits */
}

/* Chain mode: map ld.so here and enter it with the list in the
 * environment; returns only when it cannot (then exec mode). */
static void hand_over_chain(struct start *st, const char *llp)
{
	char why[160];
	struct ldso_info *l = &st->ldso;
	struct chain_ldso cl;
	static const char var[] = "LD_LIBRARY_PATH=";
	size_t n = llp ? strlen(llp) : 0;
	/* the variable: on the stack when short (a heap would cost its mapping) */
	char small[1024];
	char *entry = !llp ? NULL : n + sizeof var <= sizeof small ? small : malloc(n + sizeof var);
	if (entry)
		memcpy((char *)memcpy(entry, var, sizeof var - 1) + sizeof var - 1, llp, n + 1);
	if (!l->n_ph)
		snprintf(why, sizeof why, "no program headers");
	else if ((!llp || entry) && chain_map(l, st->t.machine, &cl, why, sizeof why) == 0) {
		ldso_release(l);
		diag("chain %s at 0x%lx%s%s", l->path, (unsigned long)cl.base, entry ? ", " : "",
		     entry ? entry : "");
		chain_enter(&cl, st->argv, start_program.auxv, start_program.phdr, start_program.phnum,
			    start_program.phent, entry, st->llp_first);
		snprintf(why, sizeof why, "out of memory");
	}
	diag("chain mode: %s: %s; exec mode instead", l->path, entry || !llp ? why : "out of memory");
	ldso_release(l);
	if (entry != small)
		free(entry);
}

/* Exec mode: ld.so with the list as its argument (which the kernel may
 * refuse, E2BIG: then no list, and the program runs: fail open). */
__attribute__((noreturn))
static void hand_over_exec(struct start *st, char *llp, char **envp)
{
	struct target *t = &st->t;
	if (st->as_interp && !st->handed && st->exe_read)
		st->handed = st->exe;	/* read already: program_for_ldso's answer */
	if (st->as_interp && !st->handed)
		st->handed = program_for_ldso(st->argv, st->argc);
	if (st->as_interp)
		t->path = st->handed;
	char *small[64];	/* most argument lists: no heap, no mapping */
	char **av = (size_t)t->argc + 8 <= sizeof small / sizeof *small
			    ? small : calloc((size_t)t->argc + 8, sizeof *av);
	if (!av)
		die(EXIT_CANNOT_EXEC, "out of memory");
	static char opt_library_path[] = "--library-path", opt_argv0[] = "--argv0";
	int k = 0;
	av[k++] = (char *)st->ldso.path;
	if (llp) {
		av[k++] = opt_library_path;
		av[k++] = llp;
	}
	if (st->ldso.argv0) {
		av[k++] = opt_argv0;
		av[k++] = t->argc > 0 ? t->argv[0] : (char *)t->path;
	}
	av[k++] = (char *)t->path;
	for (int i = 1; i < t->argc; i++)
		av[k++] = t->argv[i];
	av[k] = NULL;
	exec_or_die(st->ldso.path, av, envp);
}

/* A set-id program: ld.so mapped here and run as a command on exe_self,
 * as exec mode would run it but without an exec, which would need a
 * descriptor of the program's file kept open across it, left to the
 * program and its children (§6).  Never returns: a set-id program is
 * handed to ld.so no other way. */
__attribute__((noreturn))
static void hand_over_in_place(struct start *st, char *llp)
{
	char why[160];
	struct ldso_info *l = &st->ldso;
	struct chain_ldso cl;
	const char *lead[6];
	size_t k = 0;
	lead[k++] = l->path;
	if (llp) {
		lead[k++] = "--library-path";
		lead[k++] = llp;
	}
	if (l->argv0 && st->argc > 0) {
		lead[k++] = "--argv0";
		lead[k++] = st->argv[0];
	}
	lead[k++] = exe_self;
	if (!l->n_ph) {
		snprintf(why, sizeof why, "no program headers");
	} else if (chain_map(l, st->t.machine, &cl, why, sizeof why) == 0) {
		ldso_release(l);	/* secure: no trace to print */
		chain_enter_command(&cl, st->argv, start_program.auxv, start_program.phdr,
				    start_program.phnum, start_program.phent, lead, k);
		snprintf(why, sizeof why, cl.phdr ? "out of memory" : "its program headers are not loaded");
	}
	die(EXIT_CANNOT_EXEC, "%s: %s (a set-id program is handed to it only in place)", l->path, why);
}

/* Give the program to ld.so with the choice. */
__attribute__((noreturn))
static void hand_over(struct start *st)
{
	char **envp = st->envp;
	char *llp = st->list;
	if (st->s.secure)
		secure_env_filter(envp);
	if (!st->as_interp)
		envp = inheritable_env(envp, llp ? st->own : NULL, st->user_llp);
	/* Run as a command with the system driver, nothing to pin, and the
	 * program's own loader: exec the program itself, exactly as without
	 * cudaload. */
	if (!st->as_interp && !llp && strcmp(st->ldso.from, "PT_INTERP") == 0)
		exec_or_die(st->t.path, st->t.argv, envp);
	if (st->in_place)
		hand_over_in_place(st, llp);
	if (st->s.mode == MODE_CHAIN)
		hand_over_chain(st, llp);
	/* A privileged program whose loader cannot be mapped: an exec would
	 * hand it over by a name or a descriptor (§6) */
	if (st->as_interp && st->s.secure)
		die(EXIT_CANNOT_EXEC, "%s: cannot be mapped, and a privileged program is handed to it "
				      "only in this process", st->ldso.path);
	if (llp && !plan_fits_argument(llp)) {	/* chain fell back to exec: as above */
		settings_warn(&st->s, "the search list (%zu bytes) is longer than exec mode can pass in "
				      "one argument; the system driver, unpinned", strlen(llp));
		llp = NULL;
	}
	hand_over_exec(st, llp, envp);
}

/* After --verify: the host's decision prepared for the programs that
 * bring nothing of their own (prepared.h), as a start of a program of
 * cudaload's own machine would make it; nothing run. */
static void prepare_for_host(struct start *st)
{
	st->for_host = true;
	st->self = path_from_kernel();
	settings_load_config(&st->s, st->envp, st->self);
	target_init(&st->t);
	st->t.cls = __ehdr_start.e_ident[EI_CLASS];
	st->t.machine = __ehdr_start.e_machine;
	st->user_llp = user_library_path(env_get(st->envp, "LD_LIBRARY_PATH"), st->envp, st->s.secure);
	if (prepared_fits(st))
		judge_start(st);
}

/* cudaload --verify: cuInit needs glibc's libcuda, which this static musl
 * program cannot load, so the verifier is a glibc program of its own
 * (tools/cudaload-verify.c, beside this binary or in ../libexec/cudaload),
 * run in a child; then the decision prepared with its verdicts; its exit
 * status. */
__attribute__((noreturn))
static void run_verifier(struct start *st)
{
	char *self = path_from_kernel();
	char *helper = malloc(CL_PATH_MAX);
	char *slash = self ? strrchr(self, '/') : NULL;
	if (!slash)
		die(EXIT_NOT_FOUND, "--verify: cannot tell where cudaload lives (no /proc?)");
	if (!helper)
		die(EXIT_CANNOT_EXEC, "out of memory");
	*slash = '\0';
	char **av = calloc((size_t)st->argc + 4, sizeof *av);
	if (!av)
		die(EXIT_CANNOT_EXEC, "out of memory");
	static char opt_dir[] = "--cudaload-dir";
	int k = 1;
	av[k++] = opt_dir;
	av[k++] = self;
	for (int i = 1; i < st->argc; i++)
		av[k++] = st->argv[i];
	fflush(NULL);
	pid_t pid = fork();
	if (pid <= 0) {	/* the child, or no child: the verifier in its place */
		int e = first_use_exec_verifier(self, helper, av, st->envp);
		if (e != ENOENT)
			die(EXIT_CANNOT_EXEC, "%s: %s", helper, strerror(e));
		die(EXIT_NOT_FOUND, "--verify: no cudaload-verify in %s or %s/../libexec/cudaload", self,
		    self);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	*slash = '/';
	/* The store just written is racy for PREPARED_RACY_S (prepared.h):
	 * wait that out, so that the next start finds the decision prepared. */
	struct timespec racy = { PREPARED_RACY_S, 100 * 1000 * 1000 };
	while (nanosleep(&racy, &racy) < 0 && errno == EINTR)
		;
	prepare_for_host(st);
	exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

int main(int argc, char **argv, char **envp)
{
	struct start st = { .as_interp = false };
	char prepared[PREPARED_CAP], exe[EXE_CAP];
	st.prepared = prepared;
	st.exe = exe;
	st.as_interp = getauxval(AT_BASE) != 0;
	st.argc = argc;
	st.argv = argv;
	st.envp = envp;
	settings_from_env(&st.s, envp, getauxval(AT_SECURE) != 0);
	if (!st.as_interp)
		parse_options(argc, argv, &st.s, &st.o);
	if (diag_on)
		diag_set_program(st.as_interp ? (argc ? argv[0] : NULL)
					      : st.o.first < argc ? argv[st.o.first] : "cudaload");
	if (st.o.oci_hook)
		return ocihook_run(envp);
	if (st.o.verify)
		run_verifier(&st);
	if (st.o.root) {
		const char *problem = status_check_root(st.o.root);
		if (problem)
			die(STATUS_UNREADABLE, "--root %s: %s", st.o.root, problem);
		st.s.root = st.o.root;	/* a view of the image: its paths, its ld.so, nothing run */
		st.o.so.image = true;
	}
	if (st.o.status) {
		const char *self = path_from_kernel();
		settings_load_config(&st.s, envp, self);
		return status_run(&st.s, self, &st.o.so);
	}
	diag("%s%s", st.as_interp ? "as interpreter" : "as a command", st.s.secure ? ", secure" : "");

	find_program(&st);
	settle_mode(&st);
	/* A static program has no loader to hand over to: run it as it is.  Nor
	 * can one the kernel makes privileged (set-id, file capabilities) be
	 * handed to ld.so: only the kernel's exec of the program grants that, so
	 * it runs as without cudaload (a patched one starts cudaload again, as
	 * its interpreter, in secure mode). */
	if ((st.is_static || st.t.privileged) && !st.o.explain) {
		diag("%s is %s; running it directly", st.t.path,
		     st.is_static ? "statically linked" : "privileged by its file");
		exec_or_die(st.t.path, st.t.argv, envp);
	}
	find_loader(&st);
	if (!use_prepared(&st)) {
		if (st.ldso_later)
			pick_loader(&st);
		judge_start(&st);
	}
	hand_over(&st);
}
