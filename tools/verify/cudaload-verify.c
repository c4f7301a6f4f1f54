/* SPDX-License-Identifier: MIT */
/*
 * cudaload-verify: ask the driver itself about each compat candidate, once,
 * and store the verdicts for every later exec (common/stores/verdicts.h).
 *
 * Run as `cudaload --verify [--json] [--timeout S]` (cudaload execs this
 * helper, which lives beside it or in ../libexec/cudaload).  It is a
 * dynamically linked glibc program because libcuda needs glibc; cudaload
 * itself cannot load it.  For the system driver (the baseline) and for each
 * candidate it starts a child, itself again, with exactly the search list
 * the hand-over would give a program; the child dlopens libcuda.so.1, calls
 * cuInit(0), cuDriverGetVersion and cuDeviceGetCount, and on every device
 * makes the primary context current and loads a PTX module chosen for it
 * (ptx.h), reporting each step on a pipe (the first failure ends it).
 * A crash is a verdict, a child that outlives the time limit is killed and
 * that is a verdict too; the verifier itself never depends on the child.
 *
 * Run by root it writes root's store; run by any other user, that user's
 * own (verdicts.h), which that user's programs read after root's.
 *
 * Exit status: 0 when it ran, whatever the verdicts; 100 on a usage error;
 * 111 when it could not run (no store directory, cannot write).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../common/packages/compat.h"
#include "../../common/settings/settings.h"
#include "../../common/decision/decide.h"
#include "../../common/base/deadline.h"
#include "../../common/base/diag.h"
#include "../../common/elf/elfread.h"
#include "../../common/base/identity.h"
#include "../../common/base/json.h"
#include "../../common/decision/judge.h"
#include "../../common/elf/ldso.h"
#include "../../common/stores/patchlist.h"
#include "../../common/decision/pin.h"
#include "../../common/decision/searchlist.h"
#include "../../common/host/probe.h"
#include "../../common/packages/reach.h"
#include "../../common/packages/secure.h"
#include "../../common/base/utf8.h"
#include "../../common/stores/verdicts.h"
#include "ptx.h"

#define EXIT_USAGE 100
#define EXIT_CANNOT_RUN 111

#if defined(__x86_64__)
#define SELF_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define SELF_MACHINE EM_AARCH64
#else
#error "cudaload-verify: unknown machine"
#endif

extern char **environ;

IDENTITY_NOTE(IDENTITY_NOTE_TYPE_TOOL);

/* ---- the child: load libcuda as a program would, and use it ----------------- */

/* The child reports on its stdout, one line a step, flushed before each
 * call that may crash or hang (what came before still counts):
 *   path P / version N / load WHY       what was loaded
 *   step init                           then: init R
 *   step count                          then: count R N
 *   step device D                       then: device D R MAJOR MINOR
 *   step context D                      then: context D R
 *   step module D TARGET ISA GUESSED    then: module D R
 *   done                                every step passed
 * R is the CUresult; a failure ends the run. */

typedef int (*cu_int_fn)(int *);
typedef int (*cu_init_fn)(unsigned int);
typedef int (*cu_get_fn)(int *, int);
typedef int (*cu_attr_fn)(int *, int, int);
typedef int (*cu_retain_fn)(void **, int);
typedef int (*cu_dev_fn)(int);
typedef int (*cu_ctx_fn)(void *);
typedef int (*cu_load_fn)(void **, const void *);
typedef int (*cu_unload_fn)(void *);

#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CUDA_ERROR_NOT_FOUND 500	/* a function the driver does not have */

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

/* The symbol a program compiled against cuda.h calls: the _v2 one where
 * the header maps the name to it. */
static void *sym(void *h, const char *name, const char *v2)
{
	void *f = v2 ? dlsym(h, v2) : NULL;
	return f ? f : dlsym(h, name);
}

/* One device: its capability, its primary context, a module on it. */
static int child_device(void *h, int d)
{
	cu_get_fn get = (cu_get_fn)sym(h, "cuDeviceGet", NULL);
	cu_attr_fn attr = (cu_attr_fn)sym(h, "cuDeviceGetAttribute", NULL);
	cu_retain_fn retain = (cu_retain_fn)sym(h, "cuDevicePrimaryCtxRetain", NULL);
	cu_dev_fn release = (cu_dev_fn)sym(h, "cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2");
	cu_ctx_fn set = (cu_ctx_fn)sym(h, "cuCtxSetCurrent", NULL);
	cu_load_fn load = (cu_load_fn)sym(h, "cuModuleLoadData", NULL);
	cu_unload_fn unload = (cu_unload_fn)sym(h, "cuModuleUnload", NULL);

	int dev = 0, major = -1, minor = -1, r;
	say("step device %d\n", d);
	if (!get || !attr)
		r = CUDA_ERROR_NOT_FOUND;
	else if ((r = get(&dev, d)) == 0 &&
		 (r = attr(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)) == 0)
		r = attr(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
	say("device %d %d %d %d\n", d, r, major, minor);
	if (r)
		return r;

	void *ctx = NULL;
	say("step context %d\n", d);
	if (!retain || !release || !set)
		r = CUDA_ERROR_NOT_FOUND;
	else if ((r = retain(&ctx, dev)) == 0 && (r = set(ctx)) != 0)
		release(dev);
	say("context %d %d\n", d, r);
	if (r)
		return r;

	struct ptx_choice c;
	char ptx[256];
	if (ptx_choose(major, minor, &c) < 0 || ptx_module(&c, ptx, sizeof ptx) < 0) {
		c = (struct ptx_choice){ 0, 0, true };
		ptx[0] = '\0';	/* a capability no target names: the JIT says what it says */
	}
	void *mod = NULL;
	say("step module %d %d %d %d\n", d, c.target, c.isa, c.guessed);
	if (!load || !unload)
		r = CUDA_ERROR_NOT_FOUND;
	else if ((r = load(&mod, ptx)) == 0)
		r = unload(mod);
	say("module %d %d\n", d, r);
	/* the context goes whatever the module did; a failing release is the
	 * context's failure, after a module that worked */
	set(NULL);
	int rr = release(dev);
	if (r == 0 && rr != 0) {
		say("step context %d\n", d);
		say("context %d %d\n", d, rr);
		return rr;
	}
	return r;
}

static int child(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		say("load %s\n", e ? e : "?");
		return 0;
	}
	struct link_map *lm = NULL;
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm)
		say("path %s\n", lm->l_name);
	cu_init_fn init = (cu_init_fn)dlsym(h, "cuInit");
	cu_int_fn version = (cu_int_fn)dlsym(h, "cuDriverGetVersion");
	cu_int_fn count = (cu_int_fn)dlsym(h, "cuDeviceGetCount");
	if (!init) {
		say("load libcuda.so.1 has no cuInit\n");
		return 0;
	}
	int v = 0;
	if (version && version(&v) == 0)
		say("version %d\n", v);
	say("step init\n");
	int r = init(0);
	say("init %d\n", r);
	if (r)
		return 0;
	int n = 0;
	say("step count\n");
	r = count ? count(&n) : CUDA_ERROR_NOT_FOUND;
	say("count %d %d\n", r, r ? 0 : n);
	if (r)
		return 0;
	for (int d = 0; d < n && d < VERDICT_DEVICES_MAX; d++)
		if (child_device(h, d))
			return 0;
	say("done\n");
	return 0;
}

/* ---- the parent: one child per library list --------------------------------- */

#define SHOW_DEVICES 8	/* each one's capability and module, for people */

struct outcome {
	struct verdict v;
	int version;		/* -1 when not told */
	char path[CL_PATH_MAX];	/* the libcuda that was loaded */
	char load_error[256];
	bool counted;		/* cuDeviceGetCount answered */
	int n_shown;		/* devices whose module was chosen (at most SHOW_DEVICES) */
	struct ptx_choice ptx[SHOW_DEVICES];
};

static void parse_report(char *text, struct outcome *o)
{
	bool load = false, done = false, answered = false;
	int step = -1, dev = -1, r = 0, n = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		int a = -1, b = -1, c = -1, d = -1;
		if (strncmp(line, "step ", 5) == 0) {
			/* the names as verdict_step_name gives them, up to module */
			static const char names[][8] = { "init", "count", "device", "context", "module" };
			char w[16] = "";
			int k = sscanf(line + 5, "%15s %d %d %d %d", w, &d, &a, &b, &c);
			step = -1;
			for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
				if (strcmp(w, names[i]) == 0)
					step = i;
			dev = k >= 2 && d >= 0 && d < VERDICT_DEVICES_MAX ? d : -1;
			answered = false;
			if (step == VSTEP_MODULE && k == 5 && dev >= 0 && dev < SHOW_DEVICES) {
				o->ptx[dev] = (struct ptx_choice){ a, b, c != 0 };
				if (dev + 1 > o->n_shown)
					o->n_shown = dev + 1;
			}
		} else if (strncmp(line, "init ", 5) == 0) {
			r = atoi(line + 5);
			answered = true;
		} else if (strncmp(line, "count ", 6) == 0 && sscanf(line + 6, "%d %d", &a, &b) == 2) {
			r = a;
			n = b;
			answered = true;
		} else if ((sscanf(line, "device %d %d", &d, &a) == 2 || sscanf(line, "context %d %d", &d, &a) == 2 ||
			    sscanf(line, "module %d %d", &d, &a) == 2) && d == dev) {
			r = a;
			answered = true;
		} else if (strcmp(line, "done") == 0) {
			done = true;
		} else if (strncmp(line, "version ", 8) == 0) {
			o->version = atoi(line + 8);
		} else if (strncmp(line, "path ", 5) == 0) {
			snprintf(o->path, sizeof o->path, "%s", line + 5);
		} else if (strncmp(line, "load ", 5) == 0) {
			snprintf(o->load_error, sizeof o->load_error, "%s", line + 5);
			load = true;
		}
	}
	o->v.devices = (short)(n < 0 ? 0 : n > VERDICT_DEVICES_MAX ? VERDICT_DEVICES_MAX : n);
	o->v.device = -1;
	if (done) {
		o->v.kind = VERDICT_CU;
		o->v.step = VSTEP_DONE;
	} else if (load) {
		o->v.kind = VERDICT_LOAD;
	} else {
		/* where it ended; a CUresult when the step answered one, else
		 * the signal or the hang that run_child finds */
		if (step >= 0 && (step < VSTEP_DEVICE || dev >= 0)) {
			o->v.step = (unsigned char)step;
			if (step >= VSTEP_DEVICE)
				o->v.device = (short)dev;
		}
		if (answered && r != 0) {
			o->v.kind = VERDICT_CU;
			o->v.code = r;
		}
	}
	o->counted = n > 0 || (done && n == 0);
}

/* What the store allows (verdict.h), whatever the child said. */
static void normalize(struct verdict *v)
{
	if (v->kind == VERDICT_LOAD) {
		v->step = VSTEP_INIT;
		v->device = -1;
	}
	if (v->step == VSTEP_INIT || (v->step == VSTEP_COUNT && !(v->kind == VERDICT_CU && v->code == 0)))
		v->devices = 0;
	if (v->step >= VSTEP_DEVICE && v->step <= VSTEP_MODULE && v->device >= v->devices)
		v->devices = (short)(v->device + 1);
}

/* This program as the children run it: the real loader named outright, then
 * this file.  Started through its PT_INTERP, a helper that was patched after
 * all (by hand, or by an older cudaload-patch) would start them through
 * cudaload, whose own choice would replace the search list under test: the
 * system driver judged with a compat package.  The loader: the original
 * recorded in PT_INTERP, else PT_INTERP, else the standard one, the first
 * that is a loader and not cudaload. */
struct self {
	char path[CL_PATH_MAX];
	const char *ldso;
};

static int find_self(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	struct self *me = ctx;
	const char *interp = NULL, *recorded = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_INTERP)
			elfread_interp_parts((const char *)(info->dlpi_addr + ph->p_vaddr), ph->p_filesz,
					     &interp, &recorded);
	}
	const char *tries[] = { recorded, interp, ldso_standard(SELF_MACHINE, ELFCLASS64) };
	for (size_t i = 0; i < sizeof tries / sizeof tries[0] && !me->ldso; i++) {
		struct ldso_info l = { .path = tries[i], .fd = -1 };
		char why[160];
		if (tries[i] && tries[i][0] && ldso_inspect(&l, why, sizeof why) == 0)
			me->ldso = tries[i];
		ldso_release(&l);
	}
	/* run by a loader as a command, the main program has its path for a name */
	if (info->dlpi_name && info->dlpi_name[0])
		snprintf(me->path, sizeof me->path, "%s", info->dlpi_name);
	return 1;	/* the main program comes first: nothing more to see */
}

/* Run the child with LD_LIBRARY_PATH=llp (NULL: the environment as it is). */
static void run_child(const struct self *self, const char *llp, int timeout_s, struct outcome *o)
{
	int fds[2];
	memset(o, 0, sizeof *o);
	o->version = -1;
	o->v.when = (long long)time(NULL);
	if (pipe2(fds, O_CLOEXEC) < 0) {
		o->v.kind = VERDICT_LOAD;
		snprintf(o->load_error, sizeof o->load_error, "pipe: %s", strerror(errno));
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);	/* so that a hang is killed with whatever it started */
		int null = open("/dev/null", O_RDWR);
		if (fds[1] == STDOUT_FILENO)	/* dup2 onto itself keeps close-on-exec */
			fcntl(STDOUT_FILENO, F_SETFD, 0);
		else
			dup2(fds[1], STDOUT_FILENO);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDERR_FILENO);	/* libcuda's own chatter */
		}
		if (llp) {
			unsetenv("LD_LIBRARY_PATH");	/* every copy: ld.so reads the last */
			setenv("LD_LIBRARY_PATH", llp, 1);
		}
		/* every device, in the same order for every driver, each module
		 * compiled by the JIT under test (not taken from the cache) */
		unsetenv("CUDA_VISIBLE_DEVICES");
		unsetenv("CUDA_DISABLE_PTX_JIT");
		setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
		setenv("CUDA_CACHE_DISABLE", "1", 1);
		char *const av[] = { (char *)self->ldso, (char *)self->path, (char *)"--child", NULL };
		execv(self->ldso, av);
		_exit(127);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		o->v.kind = VERDICT_LOAD;
		snprintf(o->load_error, sizeof o->load_error, "fork: %s", strerror(errno));
		return;
	}
	/* room for every line of VERDICT_DEVICES_MAX devices: a child that
	 * cannot write its report would hang */
	size_t cap = 256 * 1024, got = 0;
	char *buf = malloc(cap);
	struct deadline d;
	int st = 0;
	if (!buf) {
		close(fds[0]);
		deadline_in(&d, 0);	/* killed at once */
		deadline_wait(pid, &d, true, &st);
		o->v.kind = VERDICT_LOAD;
		snprintf(o->load_error, sizeof o->load_error, "out of memory");
		return;
	}
	/* the report until EOF (the child is done, or passed the pipe on and
	 * hung), then its end, all within the limit; the child's process
	 * group killed with it */
	deadline_in(&d, timeout_s * 1000L);
	if (deadline_read(fds[0], buf, cap, &got, &d) == DEADLINE_PASSED)
		deadline_in(&d, 0);	/* it hung: killed at once */
	close(fds[0]);
	bool hung = deadline_wait(pid, &d, true, &st) < 0;
	buf[got] = '\0';
	parse_report(buf, o);
	free(buf);
	if (hung) {
		o->v.kind = VERDICT_HANG;
		o->v.code = timeout_s;
	} else if (WIFSIGNALED(st)) {
		o->v.kind = VERDICT_SIGNAL;
		o->v.code = WTERMSIG(st);
	} else if (o->v.kind == VERDICT_NONE) {
		/* exited without a word: cuInit called exit(), or exec failed */
		o->v.kind = WIFEXITED(st) && WEXITSTATUS(st) == 127 ? VERDICT_LOAD : VERDICT_SIGNAL;
		o->v.code = 0;
		if (o->v.kind == VERDICT_LOAD)
			snprintf(o->load_error, sizeof o->load_error, "cannot start %s", self->path);
	}
	normalize(&o->v);
}

/* ---- output ------------------------------------------------------------------ */

static const char *describe(const struct outcome *o, char *buf, size_t cap)
{
	if (o->v.kind == VERDICT_SIGNAL && o->v.code == 0 && o->v.step == VSTEP_INIT)
		snprintf(buf, cap, "exited inside cuInit without an answer");
	else if (o->v.kind == VERDICT_SIGNAL && o->v.code == 0)
		snprintf(buf, cap, "exited in the %s step without an answer", verdict_step_name(&o->v));
	else if (o->v.kind == VERDICT_LOAD && o->load_error[0])
		snprintf(buf, cap, "libcuda.so.1 could not be loaded: %s", o->load_error);
	else
		verdict_describe(&o->v, buf, cap);
	return buf;
}

static void outcome_json(const struct outcome *o)
{
	char tok[32], what[512];
	fputs("{\"result\":", stdout);
	json_str(stdout, verdict_token(&o->v, tok, sizeof tok));
	fputs(",\"name\":", stdout);
	json_str(stdout, o->v.kind == VERDICT_CU ? verdict_cu_name(o->v.code) : NULL);
	fputs(",\"what\":", stdout);
	json_str(stdout, describe(o, what, sizeof what));
	printf(",\"ok\":%s,\"step\":", verdict_ok(&o->v) ? "true" : "false");
	json_str(stdout, verdict_step_name(&o->v));
	if (o->v.device >= 0)
		printf(",\"device\":%d", o->v.device);
	else
		fputs(",\"device\":null", stdout);
	fputs(",\"driver_version\":", stdout);
	if (o->version >= 0)
		printf("%d", o->version);
	else
		fputs("null", stdout);
	fputs(",\"devices\":", stdout);
	if (o->counted)
		printf("%d", o->v.devices);
	else
		fputs("null", stdout);
	fputs(",\"modules\":[", stdout);
	for (int i = 0; i < o->n_shown; i++)
		printf("%s{\"device\":%d,\"target\":\"sm_%d\",\"ptx\":\"%d.%d\",\"in_table\":%s}", i ? "," : "",
		       i, o->ptx[i].target, o->ptx[i].isa / 10, o->ptx[i].isa % 10,
		       o->ptx[i].guessed ? "false" : "true");
	fputs("],\"libcuda\":", stdout);
	json_str(stdout, o->path[0] ? o->path : NULL);
	putchar('}');
}

static void outcome_text(const char *what_for, const struct outcome *o, const char *meaning)
{
	char what[512], extra[512] = "";
	size_t n = 0;
	if (o->version >= 0)
		n += (size_t)snprintf(extra + n, sizeof extra - n, " [driver API %d", o->version);
	if (o->version >= 0 && o->counted)
		n += (size_t)snprintf(extra + n, sizeof extra - n, ", %d device%s", o->v.devices,
				      o->v.devices == 1 ? "" : "s");
	/* the module each device got, so that a JIT's refusal can be read */
	for (int i = 0; i < o->n_shown && o->version >= 0 && n < sizeof extra; i++)
		n += (size_t)snprintf(extra + n, sizeof extra - n, "%s sm_%d PTX %d.%d%s", i ? "," : ";",
				      o->ptx[i].target, o->ptx[i].isa / 10, o->ptx[i].isa % 10,
				      o->ptx[i].guessed ? " (a capability not in cudaload's table: its newest PTX)" : "");
	if (o->version >= 0 && n < sizeof extra)
		snprintf(extra + n, sizeof extra - n, "]");
	utf8_printf(stdout, "%s: %s%s: %s\n", what_for, describe(o, what, sizeof what), extra, meaning);
}

/* ---- the store ---------------------------------------------------------------- */

static void host_text(const struct host *h, char *buf, size_t cap)
{
	if (h->platform == PLATFORM_TEGRA)
		snprintf(buf, cap, "tegra %s L4T %s", h->soc, h->l4t_str[0] ? h->l4t_str : "unknown");
	else if (h->platform == PLATFORM_DGPU)
		snprintf(buf, cap, "dgpu driver %s", h->driver_str);
	else
		snprintf(buf, cap, "no NVIDIA GPU");
	for (char *p = buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
}

/* A directory of the user's store: made 0700 where missing; then it must
 * be a directory of uid's that nobody else may write (what the loader asks
 * of it).  0, or -1 having said why. */
static int user_dir(const char *dir, uid_t uid)
{
	struct stat st;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		fprintf(stderr, "cudaload: --verify: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != uid ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		fprintf(stderr, "cudaload: --verify: %s: not a directory of this user's that only this user may write\n",
			dir);
		return -1;
	}
	return 0;
}

/* The user's own store (verdicts.h): its path and directory into path and
 * dir (CL_PATH_MAX bytes each), the directories made, and for one that
 * outlives a boot this boot's ID into boot ("" otherwise).  0, or -1 having
 * said why. */
static int user_store(const char *root, uid_t uid, char *dir, char *path, char *boot, size_t cap)
{
	bool lasting;
	char *p = verdict_user_store(environ, (unsigned)uid, &lasting);
	if (!p) {
		fprintf(stderr, "cudaload: --verify: no store of this user's: XDG_RUNTIME_DIR is not this user's "
				"0700 directory and HOME is not an absolute path\n");
		return -1;
	}
	snprintf(path, CL_PATH_MAX, "%s", p);
	snprintf(dir, CL_PATH_MAX, "%s", p);
	free(p);
	*strrchr(dir, '/') = '\0';
	boot[0] = '\0';
	if (lasting) {
		/* ~/.cache first, as the XDG base directory spec makes it */
		char *slash = strrchr(dir, '/');
		*slash = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
			fprintf(stderr, "cudaload: --verify: %s: %s\n", dir, strerror(errno));
			return -1;
		}
		*slash = '/';
		/* a store that outlives the boot names the boot it was made in */
		if (verdict_boot_id(root, boot, cap) < 0) {
			fprintf(stderr, "cudaload: --verify: %s: cannot be read, and %s outlives the boot\n",
				VERDICT_BOOT_ID, path);
			return -1;
		}
	}
	return user_dir(dir, uid);
}

/* Every package a process may reach, so that its verdict is in the store
 * when a start finds it (reach.h): what a program started from here
 * reaches (this environment's CONDA_PREFIX, CUDA_HOME or CUDA_PATH and
 * LD_LIBRARY_PATH; ld.so.cache, which every program reaches), then what
 * each program cudaload-patch recorded and each one named reaches.  -1
 * only when out of memory. */
static int reach_all(const char *root, const char *llp, char **names, int n_names, struct host *h,
		     struct candidates *c)
{
	struct reach r = { .root = root, .machine = SELF_MACHINE, .llp = llp,
			   .conda_prefix = env_get(environ, "CONDA_PREFIX"),
			   .cuda_home = env_get(environ, "CUDA_HOME"), .cuda_home_from = "CUDA_HOME" };
	if (!r.cuda_home) {
		r.cuda_home = env_get(environ, "CUDA_PATH");
		r.cuda_home_from = "CUDA_PATH";
	}
	if (reach_discover(&r, h, c) < 0)
		return -1;

	char record[CL_PATH_MAX], why[160] = "";
	struct patchlist pl = { 0 };
	int skipped = 0, got = -1;
	if (root_join(record, sizeof record, root, PATCHLIST_FILE) < 0)
		snprintf(why, sizeof why, "%s", strerror(ENAMETOOLONG));
	else
		got = patchlist_read(record, &pl, &skipped, why, sizeof why);
	if (got < 0)
		fprintf(stderr, "cudaload: --verify: %s: %s: its programs are not looked at\n",
			PATCHLIST_FILE, why);
	else if (skipped)
		fprintf(stderr, "cudaload: --verify: %s: %s\n", PATCHLIST_FILE, why);
	int rc = 0;
	for (size_t i = 0; i < pl.n && rc == 0; i++)
		rc = reach_discover_program(root, SELF_MACHINE, pl.v[i].path, h, c);
	patchlist_free(&pl);
	for (int i = 0; i < n_names && rc == 0; i++)
		rc = reach_discover_program(root, SELF_MACHINE, names[i], h, c);
	return rc;
}

/* ---- first use: a start asks about the packages it would take --------------- */

/* What another first use (or --verify) stored for this host, kept by a
 * first use that verifies other packages: its compat lines, parsed. */
struct kept_store {
	char *text;
	struct verdict_store s;
	bool valid;
};

static void keep_store(const char *path, const struct host *h, const char *boot, struct kept_store *k)
{
	char why[160];
	size_t len = 0;
	memset(k, 0, sizeof *k);
	k->text = verdict_store_read(path, &len);
	k->valid = k->text && verdict_parse(k->text, len, &k->s, why, sizeof why) == 0 &&
		   k->s.host_key == verdict_host_key(h) && strcmp(k->s.boot, boot) == 0;
}

/* Does a kept verdict say something of the package whatever the baseline
 * it is stored with: it works, or it failed where its own baseline got
 * past?  An inconclusive one (the GPU was busy for both) is asked again,
 * and not kept beside a new baseline, which could make it a failure. */
static bool kept_conclusive(const struct kept_store *k, const struct verdict *v)
{
	return verdict_ok(v) || verdict_past(&k->s.system, v);
}

/* Does the kept store hold a conclusive verdict for dir's present libcuda
 * (st)?  Then a first use that started at the same moment asked already. */
static bool kept_applies(const struct kept_store *k, const char *dir, const struct stat *st)
{
	struct verdict_entry e;
	for (size_t pos = 0; k->valid && verdict_next(&k->s, &pos, &e);)
		if (e.dir_len == strlen(dir) && memcmp(e.dir, dir, e.dir_len) == 0)
			return kept_conclusive(k, &e.v) && verdict_file_is(&e.file, st);
	return false;
}

/* Append to text (len, at most VERDICT_STORE_MAX) the kept store's
 * conclusive lines but those of the packages of c verified now (fresh[i]). */
static void append_kept(const struct kept_store *k, const struct candidates *c, const bool *fresh,
			char *text, int *len)
{
	struct verdict_entry e;
	size_t at = k->s.entries;
	for (size_t pos = 0; k->valid && verdict_next(&k->s, &pos, &e); at = pos) {
		bool ours = false;
		for (size_t i = 0; i < c->n && !ours; i++)
			ours = fresh[i] && strlen(c->v[i].dir) == e.dir_len &&
			       memcmp(c->v[i].dir, e.dir, e.dir_len) == 0;
		size_t n = pos - at;
		if (!ours && kept_conclusive(k, &e.v) && *len + n < VERDICT_STORE_MAX) {
			memcpy(text + *len, k->s.text + at, n);
			*len += (int)n;
			text[*len] = '\0';
		}
	}
}

static void usage_exit(void)
{
	fputs("usage: cudaload --verify [--json] [--timeout SECONDS] [PROGRAM...]\n"
	      "       cudaload-verify --first-use [--timeout SECONDS] --package DIR...\n"
	      "Loads each compat candidate's libcuda.so.1 in a child process, calls cuInit,\n"
	      "makes a context and loads a PTX module on every device, and stores the\n"
	      "verdicts in " VERDICT_STORE_PATH " (root) or the user's own store\n"
	      "($XDG_RUNTIME_DIR/cudaload, else ~/.cache/cudaload) for every later exec.\n"
	      "Candidates: the configured packages, what this environment, ld.so.cache,\n"
	      "each program cudaload-patch recorded and each PROGRAM reach; with\n"
	      "--first-use (a start of a program that would take them) only each DIR,\n"
	      "kept beside the store's other verdicts.  Only packages that no one but\n"
	      "root (and the user verifying) can change are loaded.\n", stderr);
	exit(EXIT_USAGE);
}

/* Descriptors 0-2 left closed by whoever started us (a service, a job
 * with >&-) would be taken by the child's pipe (its stdout then not the
 * pipe: wrong verdicts) or by the store (messages written into it): hold
 * them with /dev/null first.  open takes the lowest free number, so each
 * lands where it is missing.  false when that cannot be done. */
static bool standard_fds(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF && open("/dev/null", O_RDWR) != fd)
			return false;
	return true;
}

/* ---- main, as its steps ---------------------------------------------------------
 * Read the command line, find how to start the children, name the store;
 * gather the candidates, judge the system driver and then each candidate;
 * store the verdicts.  Each step fills its part of one struct verify_run
 * and answers 0, or the exit status having said why. */

struct verify_run {
	/* the command line (read_arguments) */
	bool json, first_use;
	int timeout_s;
	char **names;			/* the programs named; resolved by resolve_programs */
	int n_names;
	const char **packages;		/* --package: a first use's packages */
	int n_packages;
	const char *cl_dir;		/* --cudaload-dir: where cudaload lives */

	/* how the children are started (find_own_program) */
	struct self self;

	/* the settings, as a start reads them (main) */
	struct settings s;

	/* the store (open_store) */
	uid_t uid;
	bool user;			/* not root: the user's own store */
	char dir[CL_PATH_MAX], path[CL_PATH_MAX];
	char boot[VERDICT_BOOT_ID_LEN + 2];	/* a lasting store's boot, else "" */
	int lock;			/* a first use's lock on the store, -1: none */

	/* the candidates (gather_candidates): the judgement's look around */
	struct judge_in in;
	struct judgement j;
	char *cl_self;			/* cudaload's path, for the pin beside it */
	const char *user_llp;		/* this environment's LD_LIBRARY_PATH */
	struct kept_store earlier;	/* a first use's: what the store holds already */
	bool *fresh;			/* cands.n + 1: verified by this run */

	/* the system driver (judge_system_driver) */
	char hosttxt[160];		/* the host, as the store and the report name it */
	struct outcome base;		/* the baseline */
	char *text;			/* the store's text, VERDICT_STORE_MAX bytes ... */
	int len;			/* ... len of them written; judge_candidate adds to it */
};

/* What the command line asks, into r: options, the programs named and a
 * first use's packages.  A usage error exits (EXIT_USAGE). */
static void read_arguments(int argc, char **argv, struct verify_run *r)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--verify") == 0) {
			continue;
		} else if (strcmp(a, "--json") == 0) {
			r->json = true;
		} else if (strcmp(a, "--timeout") == 0 && i + 1 < argc) {
			char *end;
			long t = strtol(argv[++i], &end, 10);
			if (*end || t < 1 || t > 3600) {
				fprintf(stderr, "cudaload: --timeout: '%s' is not 1..3600 seconds\n", argv[i]);
				exit(EXIT_USAGE);
			}
			r->timeout_s = (int)t;
		} else if (strcmp(a, "--cudaload-dir") == 0 && i + 1 < argc) {
			r->cl_dir = argv[++i];
		} else if (strcmp(a, "--first-use") == 0) {
			r->first_use = true;
		} else if (strcmp(a, "--package") == 0 && i + 1 < argc && argv[i + 1][0] == '/') {
			r->packages[r->n_packages++] = argv[++i];
		} else if (a[0] != '-') {
			r->names[r->n_names++] = argv[i];	/* resolved once the root is known */
		} else {
			fprintf(stderr, "cudaload: %s: unknown option for --verify\n", a);
			usage_exit();
		}
	}

	if (r->first_use != (r->n_packages > 0) || (r->first_use && (r->n_names || r->json))) {
		fputs("cudaload: --first-use goes with --package DIR and nothing else\n", stderr);
		usage_exit();
	}
	/* A start that gave up waiting has closed the pipe: the verdicts are
	 * still worth storing for the next one. */
	if (r->first_use)
		signal(SIGPIPE, SIG_IGN);
}

/* How the children are started: this program's path and a loader that is
 * not cudaload (struct self). */
static int find_own_program(struct self *self)
{
	dl_iterate_phdr(find_self, self);
	if (!self->path[0]) {
		ssize_t n = readlink("/proc/self/exe", self->path, sizeof self->path - 1);
		if (n <= 0) {
			fprintf(stderr, "cudaload: --verify: cannot find its own program: %s\n",
				strerror(errno));
			return EXIT_CANNOT_RUN;
		}
		self->path[n] = '\0';
	}
	if (!self->ldso) {
		fprintf(stderr, "cudaload: --verify: no dynamic loader to run its children with\n");
		return EXIT_CANNOT_RUN;
	}
	return 0;
}

/* Which file each program named is: as a start of it would see itself
 * (/proc/self/exe: links resolved, so its own environment is the real
 * one); under a root, a path as on the target, taken as it is. */
static int resolve_programs(struct verify_run *r)
{
	for (int i = 0; i < r->n_names; i++) {
		char full[CL_PATH_MAX];
		const char *why = NULL;
		char *name = NULL;
		if (!r->s.root[0])
			why = (name = realpath(r->names[i], NULL)) ? NULL : strerror(errno);
		else if (r->names[i][0] != '/')
			why = "under CUDALOAD_ROOT, a program is named by its absolute path in the root";
		else if (root_join(full, sizeof full, r->s.root, r->names[i]) < 0 || access(full, F_OK) < 0)
			why = "no such file under CUDALOAD_ROOT";
		else if (!(name = strdup(r->names[i])))
			why = "out of memory";
		if (why) {
			fprintf(stderr, "cudaload: --verify: %s: %s\n", r->names[i], why);
			return EXIT_USAGE;
		}
		r->names[i] = name;
	}
	return 0;
}

/* Where the verdicts go: root's store, under the root like the config;
 * for any other user that user's own (verdicts.h), named by the
 * environment.  Its directory made and writable, and for a first use the
 * store's lock held. */
static int open_store(struct verify_run *r)
{
	char run[CL_PATH_MAX];
	struct stat st;
	r->uid = getuid();
	r->user = r->uid != 0;
	if (geteuid() != r->uid) {
		fprintf(stderr, "cudaload: --verify: runs set-id: it must run as the user it verifies for\n");
		return EXIT_CANNOT_RUN;
	}
	if (r->user) {
		if (user_store(r->s.root, r->uid, r->dir, r->path, r->boot, sizeof r->boot) < 0)
			return EXIT_CANNOT_RUN;
	} else if (root_join(run, sizeof run, r->s.root, "/run") < 0 ||
		   root_join(r->dir, sizeof r->dir, r->s.root, VERDICT_STORE_DIR) < 0 ||
		   root_join(r->path, sizeof r->path, r->s.root, VERDICT_STORE_PATH) < 0) {
		fprintf(stderr, "cudaload: --verify: CUDALOAD_ROOT too long\n");
		return EXIT_CANNOT_RUN;
	} else if (stat(run, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "cudaload: --verify: %s: no such directory for the store\n", run);
		return EXIT_CANNOT_RUN;
	} else if (mkdir(r->dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "cudaload: --verify: %s: %s\n", r->dir, strerror(errno));
		return EXIT_CANNOT_RUN;
	}
	if (access(r->dir, W_OK) < 0) {
		fprintf(stderr, "cudaload: --verify: %s: %s\n", r->dir, strerror(errno));
		return EXIT_CANNOT_RUN;
	}
	/* First uses that start together (torchrun's ranks) ask once: each
	 * waits for the one before, then finds its verdicts (kept_applies). */
	if (r->first_use) {
		char lockpath[CL_PATH_MAX + 8];
		snprintf(lockpath, sizeof lockpath, "%s/.lock", r->dir);
		r->lock = open(lockpath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		while (r->lock >= 0 && flock(r->lock, LOCK_EX) < 0 && errno == EINTR)
			;
	}
	return 0;
}

/* Which packages are asked about: the host probed; a first use's packages,
 * else the configured ones and every one a process may reach (reach_all);
 * for a first use, what the store holds already (keep_store). */
static int reach_everything(void *ctx, struct host *h, struct candidates *c)
{
	const struct verify_run *r = ctx;
	return reach_all(r->s.root, r->user_llp, r->names, r->n_names, h, c);
}

static int gather_candidates(struct verify_run *r)
{
	const char *dir = r->cl_dir ? r->cl_dir : ".";
	r->user_llp = env_get_last(environ, "LD_LIBRARY_PATH");	/* as glibc's ld.so */
	r->cl_self = malloc(strlen(dir) + sizeof "/cudaload");
	if (r->cl_self)
		strcat(strcpy(r->cl_self, dir), "/cudaload");
	r->in = (struct judge_in){
		.s = &r->s, .cls = ELFCLASS64, .machine = SELF_MACHINE, .self = r->cl_self, .full = true,
		.packages = r->first_use ? r->packages : NULL, .n_packages = r->n_packages,
		.reach = r->first_use ? NULL : reach_everything, .reach_ctx = r, .user_llp = r->user_llp,
	};
	judge_init(&r->j);
	judge_look_around(&r->in, &r->j);
	if (!r->cl_self || !r->j.whole) {
		fprintf(stderr, "cudaload: --verify: out of memory\n");
		return EXIT_CANNOT_RUN;
	}

	r->fresh = calloc(r->j.cands.n + 1, sizeof *r->fresh);
	if (!r->fresh) {
		fprintf(stderr, "cudaload: --verify: out of memory\n");
		return EXIT_CANNOT_RUN;
	}
	if (r->first_use)
		keep_store(r->path, &r->j.host, r->boot, &r->earlier);
	return 0;
}

/* The search list a start hands ld.so when it decides d (judge_search_list):
 * malloc'd, or NULL: none. */
static char *list_for(struct verify_run *r, struct decision d)
{
	r->j.d = d;
	judge_search_list(&r->in, &r->j);
	return judge_search_list_take(&r->j);
}

/* The baseline: the system driver as the loader would hand it over,
 * pinned where a package could beat it (an ld.so.conf.d entry reaches
 * this child too).  The store's text begun with the host and it, and the
 * report with them. */
static int judge_system_driver(struct verify_run *r)
{
	r->text = malloc(VERDICT_STORE_MAX);	/* too large for the stack */
	if (!r->text) {
		fprintf(stderr, "cudaload: --verify: out of memory\n");
		return EXIT_CANNOT_RUN;
	}
	host_text(&r->j.host, r->hosttxt, sizeof r->hosttxt);
	char *base_llp = list_for(r, (struct decision){ false, -1, "" });
	run_child(&r->self, base_llp, r->timeout_s, &r->base);
	free(base_llp);
	const struct outcome *base = &r->base;
	r->len = verdict_store_begin(r->text, VERDICT_STORE_MAX, verdict_host_key(&r->j.host), r->hosttxt,
				     r->boot, &base->v);
	if (r->len < 0) {
		fprintf(stderr, "cudaload: --verify: the host's description does not fit the store\n");
		return EXIT_CANNOT_RUN;
	}
	if (r->json) {
		printf("{\"schema\":%d,\"store\":", JSON_SCHEMA);
		json_str(stdout, r->path);
		fputs(",\"host\":", stdout);
		json_str(stdout, r->hosttxt);
		fputs(",\"system\":", stdout);
		outcome_json(base);
		fputs(",\"candidates\":[", stdout);
	} else {
		utf8_printf(stdout, "host: %s\n", r->hosttxt);
		outcome_text("system driver", base, verdict_ok(&base->v) ? "the baseline"
			     : "the system driver fails too: a package failing there or before is not held against it");
	}
	return 0;
}

/* Why candidate i is not asked about, into skip ("" when it is): no
 * libcuda, another machine's, one that others could change, one another
 * start asked about a moment ago, one no search list names.  When it is
 * asked, its libcuda's stat into st and its child's search list into *llp. */
static void why_not_asked(struct verify_run *r, size_t i, struct stat *st, char **llp,
			  char *skip, size_t cap)
{
	const struct candidate *c = &r->j.cands.v[i];
	char lib[CL_PATH_MAX + 16];
	if (!c->has_lib)
		snprintf(skip, cap, "%s", c->lib_problem);
	else if (c->elf_machine != SELF_MACHINE)
		snprintf(skip, cap, "libcuda is for %s, this verifier for %s",
			 elfread_machine_name(c->elf_machine) ? elfread_machine_name(c->elf_machine) : "another machine",
			 elfread_machine_name(SELF_MACHINE));
	else if (root_join(lib, sizeof lib - 16, r->s.root, c->dir) < 0 ||
		 !strcat(lib, "/libcuda.so.1") || stat(lib, st) < 0)
		snprintf(skip, cap, "libcuda.so.1: %s", strerror(errno));
	else if (strchr(c->dir, '\n'))
		snprintf(skip, cap, "its path has a newline");
	else if (!secure_package_owned(r->s.root, c->dir, r->uid))	/* its code would run as us */
		snprintf(skip, cap, "%s can change it, and loading it would run their code as %s",
			 r->user ? "someone other than root and this user" : "someone other than root",
			 r->user ? "this user" : "root");
	else if (kept_applies(&r->earlier, c->dir, st))
		snprintf(skip, cap, "verified a moment ago (another start asked)");
	else {
		*llp = list_for(r, (struct decision){ true, (int)i, "" });
		if (!*llp)
			snprintf(skip, cap, "no search list can name it");
	}
}

/* Candidate i: asked about unless why_not_asked says why not, its verdict
 * added to the store's text while there is room, and reported. */
static void judge_candidate(struct verify_run *r, size_t i)
{
	const struct candidate *c = &r->j.cands.v[i];
	char skip[256] = "";
	char *llp = NULL;
	struct stat st;
	why_not_asked(r, i, &st, &llp, skip, sizeof skip);
	if (r->json) {
		printf("%s{\"dir\":", i ? "," : "");
		json_str(stdout, c->dir);
		json_kstr(stdout, "origin", c->origin);	/* where it was found, as --explain's */
	}
	if (skip[0]) {
		if (r->json) {
			fputs(",\"skipped\":", stdout);
			json_str(stdout, skip);
			putchar('}');
		} else {
			utf8_printf(stdout, "%s: not verified: %s\n", c->dir, skip);
		}
		return;
	}
	struct outcome o;
	run_child(&r->self, llp, r->timeout_s, &o);
	free(llp);
	r->fresh[i] = true;
	/* every step passed, on fewer devices than the system driver
	 * saw: a device this driver cannot use (verdict.h, count) */
	if (verdict_ok(&o.v) && r->base.counted && o.v.devices < r->base.v.devices)
		o.v.step = VSTEP_COUNT;
	size_t len = (size_t)r->len;
	bool kept = verdict_store_add(r->text, &len, VERDICT_STORE_MAX, &o.v, &st, c->dir);
	r->len = (int)len;
	if (r->json) {
		fputs(",\"verdict\":", stdout);
		outcome_json(&o);
		printf(",\"stored\":%s}", kept ? "true" : "false");
	} else {
		outcome_text(c->dir, &o,
			     !kept ? "not stored: the store is full"
			     : verdict_ok(&o.v) ? "works: used where the tables allow it or do not know it"
			     : verdict_past(&r->base.v, &o.v) ? "fails: not used from now on"
			     : "fails where the system driver fails too: not held against it");
	}
}

/* The verdicts stored: for a first use, beside the store's other
 * conclusive ones; written whole (verdict_store_write) and the report closed. */
static int store_verdicts(struct verify_run *r)
{
	if (!r->json && r->j.cands.n == 0)
		printf("no compat candidates found\n");
	if (r->first_use)
		append_kept(&r->earlier, &r->j.cands, r->fresh, r->text, &r->len);

	const char *name = strrchr(r->path, '/') + 1;
	int e = verdict_store_write(r->dir, name, r->text, (size_t)r->len, r->user ? 0600 : 0644) < 0 ? errno : 0;
	if (r->json) {
		fputs("],\"written\":", stdout);
		fputs(e ? "false" : "true", stdout);
		fputs("}\n", stdout);
	} else if (!e) {
		printf("verdicts stored in %s\n", r->path);
	}
	fflush(stdout);
	if (e) {
		fprintf(stderr, "cudaload: --verify: %s: %s\n", r->path, strerror(e));
		return EXIT_CANNOT_RUN;
	}
	return 0;
}

/* What the run held, given back. */
static void release_run(struct verify_run *r)
{
	free(r->text);
	free(r->earlier.text);
	free(r->fresh);
	if (r->lock >= 0)
		close(r->lock);	/* the next first use may look now */
	free(r->packages);
	compat_free(&r->j.cands);
	free(r->cl_self);
	settings_free(&r->s);
	for (int i = 0; i < r->n_names; i++)
		free(r->names[i]);	/* each strdup'd or realpath'd by now */
	free(r->names);
}

int main(int argc, char **argv)
{
	if (!standard_fds())
		return EXIT_CANNOT_RUN;

	struct verify_run r = { .timeout_s = 60, .lock = -1 };
	r.names = calloc((size_t)argc, sizeof *r.names);
	r.packages = calloc((size_t)argc, sizeof *r.packages);
	if (!r.names || !r.packages) {
		fputs("cudaload: --verify: out of memory\n", stderr);
		return EXIT_CANNOT_RUN;
	}
	if (argc == 2 && strcmp(argv[1], "--child") == 0)
		return child();
	read_arguments(argc, argv, &r);

	int rc = find_own_program(&r.self);
	if (rc)
		return rc;
	settings_from_env(&r.s, environ, false);
	r.s.visible.devices = NULL;	/* verdicts are of every GPU, as its children see them */
	settings_load_config(&r.s, environ, r.cl_dir);
	if ((rc = resolve_programs(&r)) || (rc = open_store(&r)) || (rc = gather_candidates(&r)) ||
	    (rc = judge_system_driver(&r)))
		return rc;
	for (size_t i = 0; i < r.j.cands.n; i++)
		judge_candidate(&r, i);
	if ((rc = store_verdicts(&r)))
		return rc;
	release_run(&r);
	return 0;
}
