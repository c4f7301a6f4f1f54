/* SPDX-License-Identifier: MIT */
/* Asks the driver itself: loads libcuda.so.1 as libcudart does (dlopen),
 * calls cuInit(0), cuDriverGetVersion and cuDeviceGetCount, and prints
 *   lib=<path of the libcuda loaded> cuInit=<CUresult> version=<n> count=<n>
 * Exits 0 whatever the driver says; 2 when libcuda.so.1 cannot be loaded. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

typedef int (*init_fn)(unsigned);
typedef int (*int_out_fn)(int *);

int main(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	if (!h) {
		printf("lib=none error=%s\n", dlerror());
		return 2;
	}
	init_fn init = (init_fn)dlsym(h, "cuInit");
	int_out_fn version = (int_out_fn)dlsym(h, "cuDriverGetVersion");
	int_out_fn count = (int_out_fn)dlsym(h, "cuDeviceGetCount");
	Dl_info where = { 0 };
	if (!init || !version || !count || !dladdr((void *)init, &where)) {
		printf("lib=unknown error=missing driver symbols\n");
		return 2;
	}
	int v = 0, n = -1;
	int r = init(0);
	version(&v);
	if (r == 0)
		count(&n);
	printf("lib=%s cuInit=%d version=%d count=%d\n", where.dli_fname, r, v, n);
	return 0;
}
