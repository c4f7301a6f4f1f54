/* SPDX-License-Identifier: MIT */
/*
 * cudaload: pick the CUDA driver for this device at exec time, then hand
 * over to the real dynamic loader.
 *
 * The flow runs one way: options -> program and loader -> host probe ->
 * compat candidates -> decision -> search list -> exec.  Everything that
 * decides lives in common/; this file only gathers inputs and hands over.
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
#include <time.h>
#include <unistd.h>

#include "../common/compat.h"
#include "../common/config.h"
#include "../common/decide.h"
#include "../common/diag.h"
#include "../common/identity.h"
#include "../common/ldso.h"
#include "../common/pin.h"
#include "../common/plan.h"
#include "../common/probe.h"
#include "../common/reach.h"
#include "../common/report.h"
#include "../common/secure.h"
#include "../common/tables.h"
#include "../common/target.h"
#include "../common/verdict.h"
#include "chain.h"
#include "firstuse.h"
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
 * candidate (common/identity.h). */
IDENTITY_NOTE(IDENTITY_NOTE_TYPE);

static const char usage[] =
	"usage: cudaload [--policy auto|compat|system] [--] PROGRAM [ARGS...]\n"
	"       cudaload --explain [--json] [--policy P] [PROGRAM]\n"
	"       cudaload --verify [--json] [--timeout SECONDS] [PROGRAM...]\n"
	"       cudaload --status [--json | --prometheus] [--textfile DIR] [--root DIR]\n"
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
	"  --root DIR   with --status: the machine or image under DIR\n"
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
	bool explain, json, verify, status;
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
			       CUDALOAD_VERSION, cuda_format(tables_edition, v, sizeof v), tables_checked,
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
	if (o->so.prometheus || o->so.textfile_dir || o->root)
		die(EXIT_USAGE, "--prometheus, --textfile and --root go with --status");
	if (o->json && !o->explain)
		die(EXIT_USAGE, "--json goes with --explain or --status");
	if (!o->explain && i >= argc) {
		fputs(usage, stderr);
		exit(EXIT_USAGE);
	}
}

/* /proc/self/exe's name into out (CL_PATH_MAX): false when there is none
 * (no /proc: early boot, a chroot) or the file is gone ("(deleted)"). */
static bool exe_name(char *out)
{
	static const char deleted[] = " (deleted)";
	size_t dl = sizeof deleted - 1;
	ssize_t n = readlink("/proc/self/exe", out, CL_PATH_MAX - 1);
	if (n <= 0)
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
	if (out && !exe_name(out))
		execfn_name(out);
	return out;
}

/* Where the held file sits in the program and every child it starts: the
 * last slot of the table the kernel gives each process (64 slots on 64-bit
 * Linux, NR_OPEN_DEFAULT in fs/file.c), so it costs no kernel memory there
 * (at 1023 it grew each one's table: 7 KiB a process, measured), above the
 * numbers programs choose themselves (3 and up for inherited sockets, 10 and
 * up for a shell's redirections) and below select()'s limit. */
#define HELD_FD 63

/* The file the kernel ran, held: opening /proc/self/exe follows the
 * kernel's own reference to it, whatever has been renamed over its name,
 * linked to it or deleted since (docs/design.md §6).  O_PATH: the
 * descriptor grants no access of its own, so an execute-only set-id program
 * stays unreadable to the children it starts after dropping privileges.
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

/* AT_SECURE without a change of ids: this exec granted file capabilities
 * (or a security module's transition), which a second one, of ld.so, would
 * not grant again.  Told from set-id, whose ids outlive an exec, by the
 * auxiliary vector: no system call. */
static bool secure_by_capabilities(void)
{
	return getauxval(AT_UID) == getauxval(AT_EUID) && getauxval(AT_GID) == getauxval(AT_EGID);
}

/* As the interpreter, in exec mode: what ld.so is handed as the program.
 * Secure mode (set-id; file capabilities when chain failed):
 * /proc/self/fd/N of the held file, never a name, which anyone who can
 * write where it points could change between the kernel's check and
 * ld.so's open.  Otherwise the name,
 * so that the program's $ORIGIN is its directory (nobody gains a privilege
 * by changing it), unless the name is gone.  NULL in secure mode without
 * /proc. */
static const char *program_for_ldso(bool secure)
{
	static char held[sizeof "/proc/self/fd/" + 12];
	char *name = secure ? NULL : malloc(CL_PATH_MAX);
	if (!secure && !name)
		die(EXIT_CANNOT_EXEC, "out of memory");
	if (name && exe_name(name))
		return name;
	int fd = hold_kernel_file();
	if (fd >= 0) {
		free(name);
		snprintf(held, sizeof held, "/proc/self/fd/%d", fd);
		return held;
	}
	if (name)
		execfn_name(name);	/* no /proc: all there is */
	return name;
}

/* Where else the program can get a libcuda (common/reach.h): its name, its
 * search paths, its environment (user_llp: LD_LIBRARY_PATH without what a
 * cudaload above handed down).  Apart from main, like explained_mode. */
__attribute__((noinline))
static void reach_more(const struct settings *s, const struct target *t, bool as_interp,
		       bool explain, char **envp, const char *user_llp, struct host *h,
		       struct candidates *c)
{
	struct reach r = { .root = s->root, .machine = t->machine, .explain = explain || diag_on };
	char *name = NULL, *paths = NULL;
	if (as_interp) {
		/* The file the kernel runs: AT_EXECFN names a script whose #! line
		 * started it, and a venv's python is a link into its conda
		 * environment.  Without /proc, the name it was started by. */
		const char *fn = (const char *)getauxval(AT_EXECFN);
		if ((name = malloc(CL_PATH_MAX)) && exe_name(name))
			r.program = name = realloc(name, strlen(name) + 1);	/* the rest given back */
		else if (fn && fn[0] == '/' && !s->secure)
			r.program = fn;
		reach_paths_from_memory(start_program.phdr, start_program.phnum, start_program.phent,
					&r.rpath, &r.runpath, &r.cudart);
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
		r.llp = user_llp;
		r.conda_prefix = env_get(envp, "CONDA_PREFIX");
		r.cuda_home = env_get(envp, "CUDA_HOME");
		r.cuda_home_from = "CUDA_HOME";
		if (!r.cuda_home) {
			r.cuda_home = env_get(envp, "CUDA_PATH");
			r.cuda_home_from = "CUDA_PATH";
		}
	}
	if (reach_discover(&r, h, c) < 0)
		diag("out of memory while looking where else a libcuda is");
	free(paths);
	free(name);
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
	const char *own = secure ? NULL : env_get(envp, INHERITED);
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
	if (patched && configured == MODE_CHAIN) {
		/* the mode bits, as other users start it (root, who explains, may own it) */
		bool setid = stat(t->path, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID));
		*why = setid ? "its interpreter is cudaload; set-id programs use exec"
			     : "its interpreter is cudaload";
		return setid ? "exec" : "chain";
	}
	if (have_program && configured == MODE_CHAIN)
		*why = "run as `cudaload PROGRAM`; chain needs cudaload as the interpreter";
	return mode_name(s->mode);
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

/* --verify: cuInit needs glibc's libcuda, which this static musl program
 * cannot load, so the verifier is a separate glibc program
 * (tools/cudaload-verify.c) beside cudaload or in ../libexec/cudaload. */
__attribute__((noreturn))
static void run_verifier(int argc, char **argv, char **envp)
{
	char *self = path_from_kernel();
	char *helper = malloc(CL_PATH_MAX);
	char *slash = self ? strrchr(self, '/') : NULL;
	if (!slash)
		die(EXIT_NOT_FOUND, "--verify: cannot tell where cudaload lives (no /proc?)");
	if (!helper)
		die(EXIT_CANNOT_EXEC, "out of memory");
	*slash = '\0';
	char **av = calloc((size_t)argc + 4, sizeof *av);
	if (!av)
		die(EXIT_CANNOT_EXEC, "out of memory");
	static char opt_dir[] = "--cudaload-dir";
	int k = 1;
	av[k++] = opt_dir;
	av[k++] = self;
	for (int i = 1; i < argc; i++)
		av[k++] = argv[i];
	int e = first_use_exec_verifier(self, helper, av, envp);
	if (e != ENOENT)
		die(EXIT_CANNOT_EXEC, "%s: %s", helper, strerror(e));
	die(EXIT_NOT_FOUND, "--verify: no cudaload-verify in %s or %s/../libexec/cudaload", self, self);
}

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

int main(int argc, char **argv, char **envp)
{
	bool as_interp = getauxval(AT_BASE) != 0;
	struct settings s;
	struct options o = { 0 };
	struct target t;
	char why[160];

	settings_from_env(&s, envp, getauxval(AT_SECURE) != 0);
	if (!as_interp)
		parse_options(argc, argv, &s, &o);
	if (diag_on)
		diag_set_program(as_interp ? (argc ? argv[0] : NULL)
					   : o.first < argc ? argv[o.first] : "cudaload");
	if (o.verify)
		run_verifier(argc, argv, envp);
	if (o.status) {
		const char *self = path_from_kernel();
		if (o.root)
			s.root = o.root;
		settings_load_config(&s, envp, self);
		return status_run(&s, self, &o.so);
	}
	diag("%s%s", as_interp ? "as interpreter" : "as a command", s.secure ? ", secure" : "");

	/* ---- the program, and where this binary lives ---- */
	/* This binary's path: its directory holds ../etc/cudaload.conf. */
	const char *self = NULL;
	target_init(&t);
	if (as_interp) {
		t.argv = argv;
		t.argc = argc;
		t.cls = __ehdr_start.e_ident[EI_CLASS];
		t.machine = __ehdr_start.e_machine;
		t.has_interp = true;	/* we are it: never exec the program itself */
		if (target_interp_from_memory(&t, start_program.phdr, start_program.phnum,
					      start_program.phent) < 0) {
			/* From the file the kernel ran, not from a name (§6). */
			int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
			char *name = fd < 0 && !s.secure ? path_from_kernel() : NULL;
			if (name)
				fd = open(name, O_RDONLY | O_CLOEXEC);
			free(name);
			if (fd < 0)
				snprintf(why, sizeof why, "%s", strerror(errno));
			if (fd < 0 || target_interp_from_fd(&t, fd, why, sizeof why) < 0)
				diag("cannot read the program's PT_INTERP: %s", why);
			if (fd >= 0)
				close(fd);
		}
		self = t.interp;
	} else {
		self = path_from_kernel();
		if (o.first < argc) {
			int r = target_from_command(&t, argc - o.first, argv + o.first,
						    getenv("PATH"), why, sizeof why);
			if (r < 0)
				die(r == -ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC, "%s: %s",
				    argv[o.first], why);
		} else {
			t.cls = __ehdr_start.e_ident[EI_CLASS];
			t.machine = __ehdr_start.e_machine;
		}
	}
	settings_load_config(&s, envp, self);
	enum mode configured_mode = s.mode;
	/* Chain mode needs a mapped program (PT_INTERP) and an ld.so that reads
	 * LD_LIBRARY_PATH, which it does not in secure mode.  So a set-id
	 * program goes by exec, handed to ld.so as the file the kernel ran,
	 * held from here on (§6); without /proc it cannot be held, and chain
	 * mode runs it as the kernel mapped it, without a search list.  So does
	 * a program with file capabilities, which an exec of ld.so would drop:
	 * bare says why no list can be given, and nothing is looked for. */
	const char *handed = NULL, *bare = NULL;
	if (as_interp && s.secure && secure_by_capabilities()) {
		bare = caps_why;
		s.mode = MODE_CHAIN;
	} else if (as_interp && s.secure && !(handed = program_for_ldso(true))) {
		bare = "a set-id program without /proc";
		s.mode = MODE_CHAIN;
	} else if (s.mode == MODE_CHAIN && (!as_interp || s.secure)) {
		diag("chain mode %s; exec mode", s.secure ? "cannot pass the search list in secure mode"
						      : "needs cudaload as the interpreter");
		s.mode = MODE_EXEC;
	}
	diag("%s mode%s%s", mode_name(s.mode), bare ? ", the system driver: " : "", bare ? bare : "");

	/* A static program has no loader to hand over to: run it as it is.  Nor
	 * can one the kernel makes privileged (set-id, file capabilities) be
	 * handed to ld.so: only the kernel's exec of the program grants that, so
	 * it runs as without cudaload (a patched one starts cudaload again, as
	 * its interpreter, in secure mode). */
	bool have_program = as_interp || o.first < argc;
	bool is_static = have_program && !t.has_interp;
	if ((is_static || t.privileged) && !o.explain) {
		diag("%s is %s; running it directly", t.path,
		     is_static ? "statically linked" : "privileged by its file");
		exec_or_die(t.path, t.argv, envp);
	}

	struct ldso_info ldso;
	memset(&ldso, 0, sizeof ldso);
	ldso.fd = -1;
	ldso.keep = s.mode == MODE_CHAIN && !o.explain;	/* chain maps it next */
	ldso.path = "";
	char *ldso_problem = NULL;	/* set with a non-zero status only */
	bool patched = false;
	int ldso_status = have_program && !is_static
				  ? pick_ldso(&s, &t, as_interp, &ldso, &patched, &ldso_problem)
				  : 0;
	if (ldso_status && !o.explain)
		die(ldso_status, "%s", ldso_problem);

	/* ---- host, candidates, decision ---- */
	/* The user's list as this ld.so reads it, were the variable there twice */
	bool llp_first = ldso.kind == LDSO_MUSL;
	const char *user_llp = user_library_path((llp_first ? env_get : env_get_last)(envp, "LD_LIBRARY_PATH"),
						 envp, s.secure);
	struct host host;
	struct candidates cands;
	struct decision d;
	struct verdict system_verdict = { 0 };
	struct pin pin = { 0 };
	char *llp = NULL;
	if (bare) {
		/* nothing a search list could change: nothing to look at */
		memset(&host, 0, sizeof host);
		memset(&cands, 0, sizeof cands);
		memset(&d, 0, sizeof d);
		d.chosen = -1;
		snprintf(d.reason, sizeof d.reason, "system driver: %s", bare);
	} else {
		probe_host(s.root, (const char *const *)s.driver_dirs, s.n_driver_dirs,
			   o.explain || diag_on, &host);
		/* Looked for when one could be chosen, and wherever a GPU is: a package
		 * the policy refuses can still be named by a RUNPATH (pin.h). */
		if (!o.explain && !diag_on && !decide_may_use_compat(&host, s.policy) &&
		    host.platform == PLATFORM_NONE)
			memset(&cands, 0, sizeof cands);	/* nothing to choose or to hold against */
		else if (compat_discover(s.root, (const char *const *)s.compat_env, s.n_compat_env,
					 (const char *const *)s.compat, s.n_compat,
					 s.compat_from_config ? "config" : "default", &cands) < 0)
			diag("out of memory while looking for compat packages");
		else
			reach_more(&s, &t, as_interp, o.explain, envp, user_llp, &host, &cands);
		compat_apply_stated(s.root, &cands, (const char *const *)s.compat, s.compat_cuda, s.n_compat);
		if (s.secure)
			secure_filter(s.root, &host, &cands);
		/* Verdicts matter only when there is something to verify and the
		 * policy leaves the choice to the device (docs/design.md): root's
		 * store, then this user's own (never set-id, never on a Jetson; the
		 * real uid from the auxiliary vector, no system call). */
		unsigned uid = (unsigned)getauxval(AT_UID);
		if (cands.n > 0 && (s.policy == POLICY_AUTO || o.explain))
			verdict_load_stores(s.root, s.secure, envp, uid, &host, &cands, &system_verdict);
		decide(&host, &cands, s.policy, t.cls, t.machine, &d);
		/* What only the driver can judge is asked once, by the start that
		 * would take it (firstuse.h); then the stores are read again. */
		int ask[FIRST_USE_MAX], n_ask = o.explain ? 0
					: first_use_pending(&s, &host, &cands, &d, ask, FIRST_USE_MAX);
		if (n_ask && first_use_ask(self, envp, &cands, ask, n_ask)) {
			verdict_load_stores(s.root, s.secure, envp, uid, &host, &cands, &system_verdict);
			decide(&host, &cands, s.policy, t.cls, t.machine, &d);
		}
		for (size_t i = 0; i < cands.n; i++)
			diag("candidate %s (%s): %s: %s", cands.v[i].dir, reach_origin_text(cands.v[i].origin),
			     cands.v[i].usable ? "usable" : "refused", cands.v[i].reason);
		diag("decision: %s", d.reason);

		if (!d.use_compat && pin_needed(&cands, t.cls, t.machine)) {
			pin_system(s.root, self, &host, &cands, t.machine, s.secure, &pin);
			if (pin.dir)
				diag("pin %s (%s)", pin.dir, pin.links ? "links to the driver's files"
								       : "the driver's own directory");
			else
				diag("system driver not pinned: %s", pin.why);
		}
		llp = plan_library_path(s.root, &d, &cands, &host, pin.dir, user_llp, s.secure);
	}
	if (d.use_compat && !llp) {
		d.use_compat = false;
		snprintf(d.reason, sizeof d.reason, "system driver: no memory for the search list");
	}
	/* Exec mode passes the list as one argument, which the kernel may
	 * refuse (E2BIG): then no list, and the program runs (fail open). */
	if (llp && s.mode == MODE_EXEC && !plan_fits_argument(llp)) {
		settings_warn(&s, "the search list (%zu bytes) is longer than exec mode can pass in one "
			      "argument; the system driver, unpinned", strlen(llp));
		free(llp);
		llp = NULL;
		d.use_compat = false;
		snprintf(d.reason, sizeof d.reason,
			 "system driver: the search list (with LD_LIBRARY_PATH) is too long to pass in exec mode");
	}
	/* What `cudaload PROGRAM` of one the kernel makes privileged gets (it
	 * runs by itself), and a patched one with file capabilities (bare). */
	if (o.explain && ((t.privileged & TARGET_FILE_CAPS) || (t.privileged && !patched))) {
		free(llp);
		llp = NULL;
		d.use_compat = false;
		snprintf(d.reason, sizeof d.reason, "system driver: %s",
			 t.privileged & TARGET_FILE_CAPS ? caps_why : "set-id, it runs by itself");
	}
	char *libcuda = NULL, **rivals = NULL;
	int n_rivals = 0;
	if (o.explain || diag_on) {
		bool only;	/* the system driver, pinned or not: never its own rival */
		const char *sys_dir = pin.system_dir ? pin.system_dir
				      : pin_system_dir(s.root, &host, &cands, t.machine, &only);
		n_rivals = pin_rivals(s.root, have_program ? t.path : NULL,
				      d.use_compat ? cands.v[d.chosen].dir : sys_dir, llp != NULL,
				      user_llp, envp, s.secure, t.machine, &libcuda, &rivals);
		if (libcuda)
			diag("libcuda %s", libcuda);
		for (int i = 0; i < n_rivals; i++)
			diag("%s", rivals[i]);
	}

	if (o.explain) {
		const char *mode_why = NULL;
		const char *mode = explained_mode(&s, &t, configured_mode, have_program, is_static,
						  patched, &mode_why);
		struct report r = { &s, &host, &cands, &d, have_program ? t.path : NULL,
				    have_program && !is_static ? &ldso : NULL,
				    ldso_status ? ldso_problem : NULL, llp, &system_verdict,
				    (long long)time(NULL), mode, mode_why, &pin, libcuda, rivals, n_rivals };
		(o.json ? report_json : report_text)(stdout, &r);
		if (fflush(stdout) != 0)
			return 1;
		return ldso_status;	/* 127/126 when the real loader cannot be used */
	}

	/* ---- hand over ---- */
	if (s.secure)
		secure_env_filter(envp);
	if (!as_interp) {
		char *own = llp ? plan_library_path(s.root, &d, &cands, &host, pin.dir, NULL, s.secure)
				: NULL;
		envp = inheritable_env(envp, own, user_llp);
	}
	/* Run as a command with the system driver, nothing to pin, and the program's own loader:
	 * exec the program itself, exactly as without cudaload. */
	if (!as_interp && !llp && strcmp(ldso.from, "PT_INTERP") == 0)
		exec_or_die(t.path, t.argv, envp);

	if (s.mode == MODE_CHAIN) {
		struct chain_ldso cl;
		char *entry = llp ? malloc(strlen(llp) + sizeof "LD_LIBRARY_PATH=") : NULL;
		if (entry)
			strcat(strcpy(entry, "LD_LIBRARY_PATH="), llp);
		if (!ldso.n_ph)
			snprintf(why, sizeof why, "no program headers");
		else if ((!llp || entry) && chain_map(&ldso, t.machine, &cl, why, sizeof why) == 0) {
			ldso_release(&ldso);
			diag("chain %s at 0x%lx%s%s", ldso.path, (unsigned long)cl.base,
			     entry ? ", " : "", entry ? entry : "");
			chain_enter(&cl, argv, start_program.auxv, start_program.phdr,
				    start_program.phnum, start_program.phent, entry, llp_first);
			snprintf(why, sizeof why, "out of memory");
		}
		diag("chain mode: %s: %s; exec mode instead", ldso.path, entry || !llp ? why : "out of memory");
		ldso_release(&ldso);
		free(entry);
	}

	if (as_interp && !handed && !(handed = program_for_ldso(s.secure)))
		die(EXIT_CANNOT_EXEC, "a set-id program is handed to ld.so only as the file the kernel "
				      "ran, and /proc/self/exe cannot be opened");
	if (as_interp)
		t.path = handed;
	char **av = calloc((size_t)t.argc + 8, sizeof *av);
	if (!av)
		die(EXIT_CANNOT_EXEC, "out of memory");
	static char opt_library_path[] = "--library-path", opt_argv0[] = "--argv0";
	int k = 0;
	av[k++] = (char *)ldso.path;
	if (llp && !plan_fits_argument(llp)) {	/* chain fell back to exec: as above */
		settings_warn(&s, "the search list (%zu bytes) is longer than exec mode can pass in one "
			      "argument; the system driver, unpinned", strlen(llp));
		llp = NULL;
	}
	if (llp) {
		av[k++] = opt_library_path;
		av[k++] = llp;
	}
	if (ldso.argv0) {
		av[k++] = opt_argv0;
		av[k++] = t.argc > 0 ? t.argv[0] : (char *)t.path;
	}
	av[k++] = (char *)t.path;
	for (int i = 1; i < t.argc; i++)
		av[k++] = t.argv[i];
	av[k] = NULL;
	exec_or_die(ldso.path, av, envp);
}
