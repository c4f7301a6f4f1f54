/* SPDX-License-Identifier: MIT */
/* A stand-in libcuda.so.1: reports the CUDA version it was built with, so a
 * test can tell which driver library a program actually loaded.  What it
 * answers is what the file fake-cuinit beside the library says, so each
 * fixture can model what the real driver answered on its devices (no file:
 * everything works, one device of compute capability 8.0).  One setting a
 * line; a later line overrides an earlier one:
 *
 *   ANSWER               cuInit's answer (the form of the first version)
 *   init ANSWER          the same
 *   devices N            cuDeviceGetCount's count (1; at most 16)
 *   count ANSWER         cuDeviceGetCount's answer
 *   cc M.m [DEV]         compute capability of every device, or of DEV (8.0)
 *   ptx M.m              the newest PTX ISA its JIT takes (any); a module of
 *                        a newer .version answers 222 (UNSUPPORTED_PTX_VERSION),
 *                        one whose .target is above the device's 218 (INVALID_PTX)
 *   context ANSWER [DEV] cuDevicePrimaryCtxRetain's answer (every device or DEV)
 *   module ANSWER [DEV]  cuModuleLoadData(Ex)'s answer
 *   busy DEV             DEV's context answers 46 (DEVICE_UNAVAILABLE), as a
 *                        device in exclusive-process mode used by another
 *                        process does (written beside every library of a host)
 *
 * ANSWER: a CUresult, `crash` (SIGSEGV) or `hang` (never returns).  As the
 * real driver, it shows only the devices CUDA_VISIBLE_DEVICES lists (by
 * ordinal) when that is set.  Only old
 * glibc symbols: the same library runs under JetPack 5's glibc 2.31.
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

#define MAX_DEV 16
#define ANSWER 16

int cuDriverGetVersion(int *version);
int cuInit(unsigned int flags);
int cuDeviceGetCount(int *count);
int cuDeviceGet(int *device, int ordinal);
int cuDeviceGetAttribute(int *value, int attrib, int device);
int cuDevicePrimaryCtxRetain(void **ctx, int device);
int cuDevicePrimaryCtxRelease(int device);
int cuDevicePrimaryCtxRelease_v2(int device);
int cuCtxSetCurrent(void *ctx);
int cuCtxPushCurrent(void *ctx);
int cuCtxPushCurrent_v2(void *ctx);
int cuCtxPopCurrent(void **ctx);
int cuCtxPopCurrent_v2(void **ctx);
int cuModuleLoadData(void **module, const void *image);
int cuModuleLoadDataEx(void **module, const void *image, unsigned int n, void *options, void **values);
int cuModuleUnload(void *module);
int cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags);
int cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags,
			int *status);

/* What fake-cuinit says; "" answers: works. */
static struct {
	int read;
	char init[ANSWER], count[ANSWER];
	char context[MAX_DEV][ANSWER], module[MAX_DEV][ANSWER];
	int devices, cc[MAX_DEV], ptx;	/* cc 80 for 8.0, ptx 0: any */
} fake;

static char contexts[MAX_DEV];	/* a context is the address of its device's byte */
static int current = -1;	/* the device of the current context */
static int modules;

int cuDriverGetVersion(int *version)
{
	*version = FAKE_CUDA_VERSION;
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

/* A number at *p, which moves past it; -1 when there is none. */
static int number(const char **p)
{
	int v = -1;
	while (**p == ' ' || **p == '\t')
		(*p)++;
	for (; **p >= '0' && **p <= '9'; (*p)++)
		if (v < 100000000)
			v = (v < 0 ? 0 : v * 10) + (**p - '0');
	return v;
}

/* "M.m" at *p as M * 10 + m; -1 when it is not that. */
static int dotted(const char **p)
{
	int major = number(p), minor = -1;
	if (major >= 0 && **p == '.') {
		(*p)++;
		minor = number(p);
	}
	return major < 0 || minor < 0 || minor > 9 ? -1 : major * 10 + minor;
}

/* ANSWER [DEV] at p into one slot or every slot of table. */
static void set_answer(char (*table)[ANSWER], const char *p)
{
	char answer[ANSWER] = "";
	while (*p == ' ' || *p == '\t')
		p++;
	size_t n = strcspn(p, " \t\n");
	if (n >= ANSWER)
		return;
	memcpy(answer, p, n);
	p += n;
	int dev = number(&p);
	for (int d = 0; d < MAX_DEV; d++)
		if (dev < 0 || dev == d)
			memcpy(table[d], answer, ANSWER);
}

/* CUDA_VISIBLE_DEVICES=0,2: those devices, renumbered 0, 1; their
 * settings move with them. */
static void visible(void)
{
	const char *p = getenv("CUDA_VISIBLE_DEVICES");
	int n = 0, cc[MAX_DEV] = { 0 };
	char context[MAX_DEV][ANSWER] = { "" }, module[MAX_DEV][ANSWER] = { "" };
	if (!p)
		return;
	for (;;) {
		int d = number(&p);
		if (d < 0 || d >= fake.devices || n == MAX_DEV)
			break;	/* as the driver: the list ends at an invalid entry */
		cc[n] = fake.cc[d];
		memcpy(context[n], fake.context[d], ANSWER);
		memcpy(module[n], fake.module[d], ANSWER);
		n++;
		if (*p++ != ',')
			break;
	}
	fake.devices = n;
	memcpy(fake.cc, cc, sizeof cc);
	memcpy(fake.context, context, sizeof context);
	memcpy(fake.module, module, sizeof module);
}

static void read_fake(void)
{
	char path[4096] = "", line[128];
	if (fake.read)
		return;
	fake.read = 1;
	fake.devices = 1;
	for (int d = 0; d < MAX_DEV; d++)
		fake.cc[d] = 80;
	dl_iterate_phdr(find_self, path);
	char *slash = strrchr(path, '/');
	if (!slash) {
		visible();
		return;
	}
	snprintf(slash, sizeof path - (size_t)(slash - path), "/fake-cuinit");
	FILE *f = fopen(path, "r");
	if (!f) {
		visible();
		return;
	}
	while (fgets(line, sizeof line, f)) {
		const char *p = line;
		int v;
		line[strcspn(line, "\n")] = '\0';
		if ((line[0] >= '0' && line[0] <= '9') || strcmp(line, "crash") == 0 ||
		    strcmp(line, "hang") == 0) {
			snprintf(fake.init, ANSWER, "%s", line);
		} else if (strncmp(line, "init ", 5) == 0) {
			snprintf(fake.init, ANSWER, "%s", line + 5);
		} else if (strncmp(line, "count ", 6) == 0) {
			snprintf(fake.count, ANSWER, "%s", line + 6);
		} else if (strncmp(line, "devices ", 8) == 0) {
			p += 8;
			v = number(&p);
			fake.devices = v < 0 ? 1 : v > MAX_DEV ? MAX_DEV : v;
		} else if (strncmp(line, "cc ", 3) == 0) {
			p += 3;
			v = dotted(&p);
			int dev = number(&p);
			for (int d = 0; d < MAX_DEV && v >= 0; d++)
				if (dev < 0 || dev == d)
					fake.cc[d] = v;
		} else if (strncmp(line, "ptx ", 4) == 0) {
			p += 4;
			fake.ptx = dotted(&p);
		} else if (strncmp(line, "context ", 8) == 0) {
			set_answer(fake.context, line + 8);
		} else if (strncmp(line, "module ", 7) == 0) {
			set_answer(fake.module, line + 7);
		} else if (strncmp(line, "busy ", 5) == 0) {
			p += 5;
			v = number(&p);
			if (v >= 0 && v < MAX_DEV)
				snprintf(fake.context[v], ANSWER, "46");
		}
	}
	fclose(f);
	visible();
}

/* An answer as its CUresult, after what crash and hang do. */
static int answer(const char *a)
{
	if (strcmp(a, "crash") == 0)
		raise(SIGSEGV);
	if (strcmp(a, "hang") == 0)
		for (;;)
			pause();
	return atoi(a);
}

int cuInit(unsigned int flags)
{
	read_fake();
	if (fake.init[0])
		return answer(fake.init);
	return flags == 0 ? 0 : 1;	/* CUDA_ERROR_INVALID_VALUE */
}

int cuDeviceGetCount(int *count)
{
	read_fake();
	if (fake.count[0] && answer(fake.count))
		return answer(fake.count);
	*count = fake.devices;
	return 0;
}

int cuDeviceGet(int *device, int ordinal)
{
	read_fake();
	if (ordinal < 0 || ordinal >= fake.devices)
		return 101;	/* CUDA_ERROR_INVALID_DEVICE */
	*device = ordinal;
	return 0;
}

int cuDeviceGetAttribute(int *value, int attrib, int device)
{
	read_fake();
	if (device < 0 || device >= fake.devices)
		return 101;
	if (attrib == 75)	/* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
		*value = fake.cc[device] / 10;
	else if (attrib == 76)	/* ..._MINOR */
		*value = fake.cc[device] % 10;
	else
		*value = 0;
	return 0;
}

int cuDevicePrimaryCtxRetain(void **ctx, int device)
{
	read_fake();
	if (device < 0 || device >= fake.devices)
		return 101;
	if (fake.context[device][0] && answer(fake.context[device]))
		return answer(fake.context[device]);
	*ctx = &contexts[device];
	return 0;
}

int cuDevicePrimaryCtxRelease(int device)
{
	return device < 0 || device >= fake.devices ? 101 : 0;
}

int cuDevicePrimaryCtxRelease_v2(int device)
{
	return cuDevicePrimaryCtxRelease(device);
}

int cuCtxSetCurrent(void *ctx)
{
	char *c = ctx;
	if (c && (c < contexts || c >= contexts + MAX_DEV))
		return 201;	/* CUDA_ERROR_INVALID_CONTEXT */
	current = c ? (int)(c - contexts) : -1;
	return 0;
}

int cuCtxPushCurrent(void *ctx)
{
	return cuCtxSetCurrent(ctx);
}

int cuCtxPushCurrent_v2(void *ctx)
{
	return cuCtxSetCurrent(ctx);
}

int cuCtxPopCurrent(void **ctx)
{
	if (ctx)
		*ctx = current < 0 ? NULL : &contexts[current];
	current = -1;
	return 0;
}

int cuCtxPopCurrent_v2(void **ctx)
{
	return cuCtxPopCurrent(ctx);
}

/* What the JIT says of the PTX text: its .version and .target checked
 * against this JIT and the current device. */
static int jit(const char *ptx)
{
	const char *v = strstr(ptx, ".version "), *t = strstr(ptx, ".target sm_");
	if (!v || !t)
		return 218;	/* CUDA_ERROR_INVALID_PTX */
	v += strlen(".version ");
	t += strlen(".target sm_");
	int isa = dotted(&v), target = number(&t);
	if (isa < 0 || target < 0)
		return 218;
	if (fake.ptx > 0 && isa > fake.ptx)
		return 222;	/* CUDA_ERROR_UNSUPPORTED_PTX_VERSION */
	if (target > fake.cc[current])
		return 218;	/* ptxas: the target is above the device */
	return 0;
}

int cuModuleLoadData(void **module, const void *image)
{
	read_fake();
	if (current < 0)
		return 201;
	if (fake.module[current][0] && answer(fake.module[current]))
		return answer(fake.module[current]);
	int r = jit(image);
	if (r)
		return r;
	modules++;
	*module = &modules;
	return 0;
}

int cuModuleLoadDataEx(void **module, const void *image, unsigned int n, void *options, void **values)
{
	(void)n, (void)options, (void)values;
	return cuModuleLoadData(module, image);
}

int cuModuleUnload(void *module)
{
	if (module != &modules || modules <= 0)
		return 400;	/* CUDA_ERROR_INVALID_HANDLE */
	modules--;
	return 0;
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
