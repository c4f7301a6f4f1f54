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
#include "start.h"

#ifndef CUDALOAD_VERSION
#define CUDALOAD_VERSION "0.1.0"
#endif

/* execline's exit codes */
#define EXIT_USAGE 100
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND 127

extern const ElfW(Ehdr) __ehdr_start;

/* Marks this binary as cudaload for any cudaload that meets it as a loader
 * candidate (common/identity.h). */
__attribute__((used, section(".note.cudaload"), aligned(4)))
static const struct identity_note identity = {
	sizeof IDENTITY_NOTE_OWNER, 0, IDENTITY_NOTE_TYPE, IDENTITY_NOTE_OWNER,
};

static const char usage[] =
	"usage: cudaload [--policy auto|compat|system] [--] PROGRAM [ARGS...]\n"
	"       cudaload --explain [--json] [--policy P] [PROGRAM]\n"
	"       cudaload --verify [--json] [--timeout SECONDS]   (as root)\n"
	"       cudaload --version | --help\n"
	"Runs PROGRAM with the newest CUDA forward-compatibility driver valid for\n"
	"this device, or with the system driver.  See CUDALOAD_DEBUG=1.\n"
	"  --policy P   auto (default), compat (any package for the machine) or\n"
	"               system (never a package)\n"
	"  --explain    print what was found and decided, run nothing\n"
	"  --json       with --explain or --verify: one JSON object (keys in\n"
	"               cudaload(1))\n"
	"  --verify     as root: cuInit each compat package and the system driver\n"
	"               in a child, store the verdicts in /run/cudaload/verdicts\n"
	"  --timeout S  with --verify: kill a child after S seconds (default 60)\n"
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
	bool explain, json, verify;
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
	if (o->json && !o->explain)
		die(EXIT_USAGE, "--json goes with --explain");
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

/* The file the kernel ran, held: opening /proc/self/exe follows the
 * kernel's own reference to it, whatever has been renamed over its name,
 * linked to it or deleted since (docs/design.md §6).  O_PATH: the
 * descriptor grants no access of its own, so an execute-only set-id program
 * stays unreadable to the children it starts after dropping privileges.
 * Kept across the exec of ld.so (no O_CLOEXEC), at 3 or above so that it
 * never stands in for a closed standard stream.  -1 without /proc. */
static int hold_kernel_file(void)
{
	int fd = open("/proc/self/exe", O_PATH);
	if (fd >= 0 && fd < 3) {
		int high = fcntl(fd, F_DUPFD, 3);
		close(fd);
		fd = high;
	}
	return fd;
}

/* As the interpreter, in exec mode: what ld.so is handed as the program.
 * Secure mode (set-id, file capabilities): /proc/self/fd/N of the held
 * file, never a name, which anyone who can write where it points could
 * change between the kernel's check and ld.so's open.  Otherwise the name,
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
 * search paths, its environment.  Apart from main, like explained_mode. */
__attribute__((noinline))
static void reach_more(const struct settings *s, const struct target *t, bool as_interp,
		       bool explain, char **envp, struct host *h, struct candidates *c)
{
	struct reach r = { .root = s->root, .machine = t->machine, .explain = explain || diag_on };
	char *name = NULL, *paths = NULL;
	if (as_interp) {
		/* The file the kernel runs: AT_EXECFN names a script whose #! line
		 * started it, and a venv's python is a link into its conda
		 * environment.  Without /proc, the name it was started by. */
		const char *fn = (const char *)getauxval(AT_EXECFN);
		if ((name = malloc(CL_PATH_MAX)) && exe_name(name))
			r.program = name;
		else if (fn && fn[0] == '/' && !s->secure)
			r.program = fn;
		reach_paths_from_memory(start_program.phdr, start_program.phnum, start_program.phent,
					&r.rpath, &r.runpath);
	} else if (t->path) {
		r.program = t->path[0] == '/' ? t->path : (name = realpath(t->path, NULL));
		if ((paths = malloc(2 * 1024)) && reach_paths_from_file(t->path, paths, paths + 1024, 1024) == 0) {
			r.rpath = paths;
			r.runpath = paths + 1024;
		}
	}
	if (!s->secure) {
		r.llp = env_get(envp, "LD_LIBRARY_PATH");
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

/* "PATH (FROM): WHY", malloc'd: only a failure needs it. */
__attribute__((format(printf, 1, 2)))
static char *problem_text(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (p) {
		va_start(ap, fmt);
		vsnprintf(p, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	return p ? p : (char *)"out of memory";
}

/* Find the real loader.  0, or the exit status (127/126) with the problem
 * in *problem: --explain reports it, a run stops on it.  *patched: the
 * program's interpreter is cudaload (a recorded loader, or a PT_INTERP that
 * turned out to be cudaload). */
static int choose_ldso(struct settings *s, const struct target *t, bool as_interp,
		       struct ldso_info *l, bool *patched, char **problem)
{
	const char *machine = elfread_machine_name(t->machine);
	char cfgkey[32];
	snprintf(cfgkey, sizeof cfgkey, "config ldso.%s", machine ? machine : "?");
	/* A bad ldso.<machine> in the system-wide config would stop every
	 * patched program: warn and look further, as for other config mistakes.
	 * CUDALOAD_LDSO, named for one run, stays an error. */
	const struct {
		const char *path, *from;
		bool explicit;	/* the user named it: failures are errors */
		bool warn;	/* a configured one: failures are warnings */
	} tries[] = {
		{ s->ldso_env, "CUDALOAD_LDSO", true, false },
		{ settings_ldso_for(s, machine), cfgkey, false, true },
		{ t->recorded[0] ? t->recorded : NULL, "recorded by cudaload-patch", false, false },
		/* As the interpreter, PT_INTERP is this cudaload: not worth an open. */
		{ !as_interp && t->has_interp && t->interp[0] ? t->interp : NULL, "PT_INTERP", false, false },
		{ ldso_standard(t->machine, t->cls), "standard path", true, false },
	};
	*patched = t->recorded[0] != '\0';
	for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
		char why[160];
		if (!tries[i].path)
			continue;
		ldso_release(l);
		bool keep = l->keep;
		memset(l, 0, sizeof *l);
		l->keep = keep;
		l->fd = -1;
		l->path = tries[i].path;
		l->from = tries[i].from;
		int r = ldso_inspect(l, why, sizeof why);
		if (r == 0 && (l->machine != t->machine || l->cls != t->cls)) {
			snprintf(why, sizeof why, "is for %s, the program for %s",
				 elfread_machine_name(l->machine) ? elfread_machine_name(l->machine) : "another machine",
				 machine ? machine : "another machine");
			r = -ENOEXEC;
		}
		if (r == 0) {
			diag("loader %s (%s)%s", l->path, l->from,
			     l->argv0 ? ", takes --argv0" : ", no --argv0");
			return 0;
		}
		if (r == -ELOOP && !tries[i].explicit) {
			diag("%s %s is cudaload itself; looking further", l->from, l->path);
			*patched |= strcmp(tries[i].from, "PT_INTERP") == 0;
			if (tries[i].warn)
				settings_warn(s, "%s %s is cudaload itself; using the next loader",
					      l->from, l->path);
			continue;
		}
		if (tries[i].warn) {
			settings_warn(s, "%s %s: %s; using the next loader", l->from, l->path, why);
			continue;
		}
		if (!tries[i].explicit && r == -ENOEXEC) {
			diag("%s %s: %s; looking further", l->from, l->path, why);
			continue;
		}
		*problem = problem_text("%s (%s): %s", l->path, l->from, why);
		return r == -ENOENT || r == -ELOOP ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
	}
	l->path = "";
	*problem = problem_text("no dynamic loader known for machine %d", t->machine);
	return EXIT_NOT_FOUND;
}

/* For --explain, the mode that program runs in: a patched one starts
 * cudaload as its interpreter (chain unless configured otherwise or
 * set-id); a static one runs directly.  Apart from main: its stat buffer
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
	if (patched && configured == MODE_CHAIN) {
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
	static const char *const places[] = { "/cudaload-verify", "/../libexec/cudaload/cudaload-verify" };
	char **av = calloc((size_t)argc + 4, sizeof *av);
	if (!av)
		die(EXIT_CANNOT_EXEC, "out of memory");
	static char opt_dir[] = "--cudaload-dir";
	int k = 1;
	av[k++] = opt_dir;
	av[k++] = self;
	for (int i = 1; i < argc; i++)
		av[k++] = argv[i];
	for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
		snprintf(helper, CL_PATH_MAX, "%s%s", self, places[i]);
		av[0] = helper;
		execve(helper, av, envp);
		if (errno != ENOENT)
			die(EXIT_CANNOT_EXEC, "%s: %s", helper, strerror(errno));
	}
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
	 * LD_LIBRARY_PATH, which it does not in secure mode. */
	/* A set-id program is handed to ld.so as the file the kernel ran, held
	 * from here on (§6); without /proc it cannot be, and chain mode runs it
	 * as the kernel mapped it, with the system driver. */
	const char *handed = NULL;
	if (as_interp && s.secure && !(handed = program_for_ldso(true))) {
		diag("secure mode: no /proc to hold the program's file by; chain mode, no search list");
		s.mode = MODE_CHAIN;
	} else if (s.mode == MODE_CHAIN && (!as_interp || s.secure)) {
		diag("chain mode %s; exec mode", s.secure ? "cannot pass the search list in secure mode"
						      : "needs cudaload as the interpreter");
		s.mode = MODE_EXEC;
	}
	diag("%s mode", mode_name(s.mode));

	/* A static program has no loader to hand over to: run it as it is. */
	bool have_program = as_interp || o.first < argc;
	bool is_static = have_program && !t.has_interp;
	if (is_static && !o.explain) {
		diag("%s is statically linked; running it directly", t.path);
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
				  ? choose_ldso(&s, &t, as_interp, &ldso, &patched, &ldso_problem)
				  : 0;
	if (ldso_status && !o.explain)
		die(ldso_status, "%s", ldso_problem);

	/* ---- host, candidates, decision ---- */
	struct host host;
	struct candidates cands;
	struct decision d;
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
		reach_more(&s, &t, as_interp, o.explain, envp, &host, &cands);
	compat_apply_stated(s.root, &cands, (const char *const *)s.compat, s.compat_cuda, s.n_compat);
	if (s.secure)
		secure_filter(s.root, &host, &cands);
	/* Verdicts matter only when there is something to verify and the
	 * policy leaves the choice to the device (docs/design.md). */
	struct verdict system_verdict = { 0 };
	if (cands.n > 0 && (s.policy == POLICY_AUTO || o.explain))
		verdict_load(s.root, s.secure, &host, &cands, &system_verdict);
	decide(&host, &cands, s.policy, t.cls, t.machine, &d);
	for (size_t i = 0; i < cands.n; i++)
		diag("candidate %s: %s: %s", cands.v[i].dir,
		     cands.v[i].usable ? "usable" : "refused", cands.v[i].reason);
	diag("decision: %s", d.reason);

	struct pin pin = { 0 };
	if (!d.use_compat && pin_needed(&cands, t.cls, t.machine)) {
		pin_system(s.root, self, &host, &cands, t.machine, s.secure, &pin);
		if (pin.dir)
			diag("pin %s (%s)", pin.dir, pin.links ? "links to the driver's files"
							       : "the driver's own directory");
		else
			diag("system driver not pinned: %s", pin.why);
	}
	char *llp = plan_library_path(s.root, &d, &cands, &host, pin.dir,
				      env_get(envp, "LD_LIBRARY_PATH"), s.secure);
	if (as_interp && s.secure && !handed && llp) {
		free(llp);	/* chain in secure mode: ld.so would not read it */
		llp = NULL;
		d.use_compat = false;
		snprintf(d.reason, sizeof d.reason, "system driver: a set-id program without /proc");
	}
	if (d.use_compat && !llp) {
		d.use_compat = false;
		snprintf(d.reason, sizeof d.reason, "system driver: no memory for the search list");
	}
	char *libcuda = NULL, **rivals = NULL;
	int n_rivals = 0;
	if (o.explain || diag_on) {
		bool only;	/* the system driver, pinned or not: never its own rival */
		const char *sys_dir = pin.system_dir ? pin.system_dir
				      : pin_system_dir(s.root, &host, &cands, t.machine, &only);
		n_rivals = pin_rivals(s.root, have_program ? t.path : NULL,
				      d.use_compat ? cands.v[d.chosen].dir : sys_dir, llp != NULL,
				      env_get(envp, "LD_LIBRARY_PATH"), envp, s.secure, t.machine, &libcuda,
				      &rivals);
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
				    start_program.phnum, start_program.phent, entry);
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
