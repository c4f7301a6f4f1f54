/* SPDX-License-Identifier: MIT */
/* A stand-in for a Python interpreter running a training script, for the
 * image pipeline of tests/e2e/suites/distro.sh.  Like python3.X it has no sign of
 * CUDA of its own: CUDA comes from the torch package of its prefix
 * (dirname(dirname(argv[0]))/lib/python3.11/site-packages/torch/lib/
 * libtorch_cuda.so, as a conda environment or a venv lays it out), which
 * opens the driver and reports the file (torchlib.c).  Then, unless it is a
 * worker, it starts two workers by running argv[0] again, as torchrun and
 * multiprocessing's spawn run sys.executable. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	(void)argc;
	char self[4096], lib[4200];
	snprintf(self, sizeof self, "%s", argv[0]);
	char *prefix = dirname(dirname(self));
	snprintf(lib, sizeof lib, "%s/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so", prefix);
	void *torch = dlopen(lib, RTLD_NOW);
	void (*report)(void) = torch ? (void (*)(void))dlsym(torch, "torch_report") : NULL;
	if (report)
		report();
	else
		printf("torch=none (%s)\n", dlerror());
	fflush(stdout);
	if (getenv("PYWORKER"))
		return 0;
	setenv("PYWORKER", "1", 1);
	for (int i = 0; i < 2; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			execv(argv[0], argv);
			_exit(127);
		}
		int st;
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			printf("worker %d failed\n", i + 1);
		fflush(stdout);
	}
	return 0;
}
