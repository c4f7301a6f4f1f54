/* SPDX-License-Identifier: MIT */
/* The program of tests/e2e/suites/hold.sh: which driver files did this process
 * get?  It opens the driver the way a program with static cudart does
 * (dlopen from the program itself, so its own RUNPATH counts), or, with
 * HOLD_VIA=1, the way a library does (from libvia.so.1, so that library's
 * RUNPATH counts), and prints one fact a line, as real paths:
 *   libcuda=<file>  ptxjit=<file>  bundle=<file of libbundle.so.1>
 *   LD_LIBRARY_PATH=<value or (unset)>
 * libbundle.so.1 is a DT_NEEDED found through the program's RUNPATH: a
 * library the program brings along must stay where it was.
 * HOLD_WORKERS=N: then starts N workers, one after the other, as torchrun
 * and multiprocessing's spawn do: the program HOLD_WORKER names (default
 * /opt/app/bin/probe.orig, the unpatched program) run afresh, which report
 * the same facts. */
#define _GNU_SOURCE
#include <sys/wait.h>
#include <unistd.h>

#include "holdreport.h"

void via_report(const char *key, const char *soname, const char *symbol);	/* libvia.so.1 */
int bundle_marker(void);							/* libbundle.so.1 */

int main(void)
{
	void (*report)(const char *, const char *, const char *) =
		getenv("HOLD_VIA") ? via_report : hold_report_here;
	report("libcuda", "libcuda.so.1", "cuDriverGetVersion");
	report("libcuda_unversioned", "libcuda.so", "cuDriverGetVersion");
	report("ptxjit", "libnvidia-ptxjitcompiler.so.1", "hold_marker");
	Dl_info info;
	char *b = dladdr((void *)bundle_marker, &info) && info.dli_fname
			  ? realpath(info.dli_fname, NULL) : NULL;
	printf("bundle=%s\n", b ? b : "?");
	free(b);
	const char *llp = getenv("LD_LIBRARY_PATH");
	printf("LD_LIBRARY_PATH=%s\n", llp ? llp : "(unset)");
	fflush(stdout);
	const char *workers = getenv("HOLD_WORKERS");
	const char *worker = getenv("HOLD_WORKER") ? getenv("HOLD_WORKER") : "/opt/app/bin/probe.orig";
	int n = workers ? atoi(workers) : 0;
	unsetenv("HOLD_WORKERS");
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			execl(worker, worker, (char *)NULL);
			_exit(127);
		}
		int st;
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			printf("worker %d failed\n", i + 1);
		fflush(stdout);
	}
	return bundle_marker() == 1 ? 0 : 1;
}
