/* SPDX-License-Identifier: MIT */
/* The end-to-end test program: loads libcuda.so.1 the way libcudart does
 * (dlopen) and prints what it got and what it was given, one fact a line:
 *   libcuda=<path> version=<n>   (or libcuda=none)
 *   exe=<readlink /proc/self/exe>
 *   tls=7                        (a thread-local initialized from PT_TLS)
 *   euid=<n>
 *   argc=<n>, then arg[i]=<...> with '\n' escaped as \n
 *   LD_LIBRARY_PATH=<value or (unset)>
 * Options via the environment: PROBE_EXIT=<n> exits with n;
 * PROBE_CHILD=1 also runs `sh -c 'echo child LD_LIBRARY_PATH=...'`;
 * PROBE_REEXEC=1 first re-executes itself through /proc/self/exe (as JVM
 * launchers and Electron do) and prints reexec=1 in the new image;
 * PROBE_MAPS=<file> also prints mapped=<pages>: how many pages of that file
 * the process has mapped (the interpreter's, once the program runs), and
 * at_entry=own or at_entry=other: whether AT_ENTRY is the program's _start;
 * PROBE_FDS=1 also prints fds=<n n ...>: the descriptors open when main
 * began; PROBE_CAPS=1 also prints capeff=<hex>: the effective capabilities
 * (CapEff in /proc/self/status). */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

/* Gives the program a PT_TLS segment: cudaload must not mistake it for its own. */
static __thread int tls_marker = 7;

static void print_escaped(const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			fputs("\\n", stdout);
		else
			putchar(*s);
	}
	putchar('\n');
}

static long pages_mapped(const char *file)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4352], path[4096];
	unsigned long lo, hi, bytes = 0;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %4095s", &lo, &hi, path) == 3 &&
		    strcmp(path, file) == 0)
			bytes += hi - lo;
	if (f)
		fclose(f);
	return f ? (long)(bytes / (unsigned long)sysconf(_SC_PAGESIZE)) : -1;
}

/* The descriptors open now, but the directory's own, as "0 1 2 ..." */
static void open_fds(char *out, size_t cap)
{
	DIR *d = opendir("/proc/self/fd");
	size_t n = 0;
	out[0] = '\0';
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d))
			continue;
		int w = snprintf(out + n, cap - n, "%s%s", n ? " " : "", e->d_name);
		if (w < 0 || (size_t)w >= cap - n)
			break;
		n += (size_t)w;
	}
	if (d)
		closedir(d);
	else
		snprintf(out, cap, "(no /proc)");
}

static void print_capeff(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "CapEff:", 7) == 0) {
			printf("capeff=%s", line + 7 + strspn(line + 7, " \t"));
			break;
		}
	if (f)
		fclose(f);
	else
		printf("capeff=(no /proc)\n");
}

int main(int argc, char **argv)
{
	char fds[512];
	open_fds(fds, sizeof fds);	/* before anything of main's own opens one */
	if (getenv("PROBE_REEXEC")) {
		unsetenv("PROBE_REEXEC");
		setenv("PROBE_REEXECED", "1", 1);
		execv("/proc/self/exe", argv);
		perror("execv /proc/self/exe");
		return 126;
	}
	if (getenv("PROBE_REEXECED"))
		printf("reexec=1\n");
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	if (h) {
		int (*get)(int *) = (int (*)(int *))dlsym(h, "cuDriverGetVersion");
		struct link_map *lm = NULL;
		int v = -1;
		if (get)
			get(&v);
		dlinfo(h, RTLD_DI_LINKMAP, &lm);
		printf("libcuda=%s version=%d\n", lm ? lm->l_name : "?", v);
	} else {
		printf("libcuda=none\n");
	}

	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = '\0';
	printf("exe=%s\n", exe);
	printf("tls=%d\n", tls_marker);
	printf("euid=%d\n", (int)geteuid());
	printf("argc=%d\n", argc);
	for (int i = 0; i < argc; i++) {
		printf("arg[%d]=", i);
		print_escaped(argv[i]);
	}
	if (getenv("PROBE_MAPS")) {
		extern char _start[];
		printf("mapped=%ld\n", pages_mapped(getenv("PROBE_MAPS")));
		printf("at_entry=%s\n", getauxval(AT_ENTRY) == (unsigned long)_start ? "own" : "other");
	}
	if (getenv("PROBE_FDS"))
		printf("fds=%s\n", fds);
	if (getenv("PROBE_CAPS"))
		print_capeff();
	const char *llp = getenv("LD_LIBRARY_PATH");
	printf("LD_LIBRARY_PATH=%s\n", llp ? llp : "(unset)");
	fflush(stdout);
	if (getenv("PROBE_CHILD"))
		system("echo \"child LD_LIBRARY_PATH=${LD_LIBRARY_PATH-(unset)}\"");
	const char *code = getenv("PROBE_EXIT");
	return code ? atoi(code) : 0;
}
