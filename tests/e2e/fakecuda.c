/* SPDX-License-Identifier: MIT */
/* A stand-in libcuda.so.1: reports the CUDA version it was built with, so a
 * test can tell which driver library a program actually loaded.  cuInit
 * answers what the file fake-cuinit beside the library says (a CUresult
 * such as 804, or "crash", or "hang"; 0 without the file), so each fixture
 * can model what the real driver answered on its device.  Only old glibc
 * symbols: the same library runs under JetPack 5's glibc 2.31.
 *
 * It also answers NVIDIA's own runtime (libcudart), which finds every driver
 * function through cuGetProcAddress: cuDriverGetVersion is the real one
 * here, every other symbol a stub returning CUDA_ERROR_NO_DEVICE (100).  So
 * cudaGetDeviceCount says 35 (cudaErrorInsufficientDriver) when the runtime
 * finds the driver too old, and 100 (cudaErrorNoDevice) once it accepted it. */
#define _GNU_SOURCE
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FAKE_CUDA_VERSION
#error "build with -DFAKE_CUDA_VERSION=12020"
#endif

int cuDriverGetVersion(int *version);
int cuInit(unsigned int flags);
int cuDeviceGetCount(int *count);
int cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags);
int cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags,
			int *status);

int cuDriverGetVersion(int *version)
{
	*version = FAKE_CUDA_VERSION;
	return 0;
}

int cuDeviceGetCount(int *count)
{
	*count = 1;
	return 0;
}

/* The file this library was loaded from: the object whose segments hold cuInit. */
static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	uintptr_t addr = (uintptr_t)cuInit;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && addr >= start && addr < start + ph->p_memsz) {
			snprintf(data, 4096, "%s", info->dlpi_name);
			return 1;
		}
	}
	return 0;
}

int cuInit(unsigned int flags)
{
	char path[4096] = "", answer[32] = "";
	dl_iterate_phdr(find_self, path);
	char *slash = strrchr(path, '/');
	if (slash) {
		snprintf(slash, sizeof path - (size_t)(slash - path), "/fake-cuinit");
		FILE *f = fopen(path, "r");
		if (f) {
			if (!fgets(answer, sizeof answer, f))
				answer[0] = '\0';
			fclose(f);
		}
	}
	if (strncmp(answer, "crash", 5) == 0)
		raise(SIGSEGV);
	if (strncmp(answer, "hang", 4) == 0)
		for (;;)
			pause();
	if (answer[0])
		return atoi(answer);
	return flags == 0 ? 0 : 1;	/* CUDA_ERROR_INVALID_VALUE */
}

static int no_device(void)
{
	return 100;	/* CUDA_ERROR_NO_DEVICE */
}

int cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags)
{
	(void)version, (void)flags;
	if (!symbol || !pfn)
		return 1;	/* CUDA_ERROR_INVALID_VALUE */
	if (strcmp(symbol, "cuDriverGetVersion") == 0)
		*pfn = (void *)cuDriverGetVersion;
	else if (strcmp(symbol, "cuGetProcAddress") == 0)
		*pfn = (void *)cuGetProcAddress_v2;
	else
		*pfn = (void *)no_device;
	return 0;
}

int cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags,
			int *status)
{
	if (status)
		*status = 0;	/* CU_GET_PROC_ADDRESS_SUCCESS */
	return cuGetProcAddress(symbol, pfn, version, flags);
}
