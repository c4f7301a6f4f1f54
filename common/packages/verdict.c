/* SPDX-License-Identifier: MIT */
#include "verdict.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* ---- for people ----------------------------------------------------------- */

/* Arrays, not pointers: a table of pointers is relocated at start-up, so it
 * would sit in the loader's writable segment, which then outgrows its page
 * (a fault more on every start, a page more left mapped in chain mode). */
static const struct {
	int code;
	char name[48], meaning[64];
} cu_results[] = {
	{ 0, "CUDA_SUCCESS", "works" },
	{ 1, "CUDA_ERROR_INVALID_VALUE", "invalid value" },
	{ 2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
	{ 3, "CUDA_ERROR_NOT_INITIALIZED", "not initialized" },
	{ 4, "CUDA_ERROR_DEINITIALIZED", "deinitialized" },
	{ 34, "CUDA_ERROR_STUB_LIBRARY", "a stub libcuda, not a driver" },
	{ 46, "CUDA_ERROR_DEVICE_UNAVAILABLE", "the GPU is busy or unavailable" },
	{ 100, "CUDA_ERROR_NO_DEVICE", "no CUDA device" },
	{ 101, "CUDA_ERROR_INVALID_DEVICE", "invalid device" },
	{ 102, "CUDA_ERROR_DEVICE_NOT_LICENSED", "device not licensed" },
	{ 200, "CUDA_ERROR_INVALID_IMAGE", "invalid module image" },
	{ 201, "CUDA_ERROR_INVALID_CONTEXT", "invalid context" },
	{ 209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no code for this GPU" },
	{ 216, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE", "the GPU is used by another process (exclusive)" },
	{ 218, "CUDA_ERROR_INVALID_PTX", "the JIT compiler rejected the PTX" },
	{ 221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND", "no JIT compiler (libnvidia-ptxjitcompiler)" },
	{ 222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "the JIT compiler does not take this PTX version" },
	{ 223, "CUDA_ERROR_JIT_COMPILATION_DISABLED", "JIT compilation is disabled" },
	{ 304, "CUDA_ERROR_OPERATING_SYSTEM", "a system call failed" },
	{ 500, "CUDA_ERROR_NOT_FOUND", "not found (a driver function missing?)" },
	{ 800, "CUDA_ERROR_NOT_PERMITTED", "not permitted" },
	{ 801, "CUDA_ERROR_NOT_SUPPORTED", "not supported" },
	{ 802, "CUDA_ERROR_SYSTEM_NOT_READY", "the system is not ready (fabric manager?)" },
	{ 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "this compat driver does not fit the kernel driver" },
	{ 804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "a GPU here does not support forward compatibility" },
	{ 999, "CUDA_ERROR_UNKNOWN", "unknown error" },
};

const char *verdict_cu_name(int code)
{
	for (size_t i = 0; i < sizeof cu_results / sizeof cu_results[0]; i++)
		if (cu_results[i].code == code)
			return cu_results[i].name;
	return NULL;
}

/* " (CUDA_ERROR_UNKNOWN: unknown error)", or "" for a code not known. */
static const char *cu_meaning(int code, char *buf, size_t cap)
{
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof cu_results / sizeof cu_results[0]; i++)
		if (cu_results[i].code == code)
			snprintf(buf, cap, " (%s: %s)", cu_results[i].name, cu_results[i].meaning);
	return buf;
}

const char *verdict_describe(const struct verdict *v, char *buf, size_t cap)
{
	/* people's names of the steps, "<step>: <code>" and "in <where>" */
	static const char label[][16] = { "cuInit", "device count", "device", "context", "module", "exit" };
	static const char where[][24] = { "in cuInit", "in cuDeviceGetCount", "in the device step",
					  "in the context step", "in the module step", "at exit" };
	unsigned step = v->step <= VSTEP_DONE ? v->step : VSTEP_INIT;
	char meaning[128], on[48] = "";
	if (verdict_device_step(step))
		snprintf(on, sizeof on, " on device %d of %d", v->device, v->devices);
	switch (v->kind) {
	case VERDICT_CU:
		cu_meaning(v->code, meaning, sizeof meaning);
		if (step == VSTEP_DONE && v->devices == 0)
			snprintf(buf, cap, "cuInit returned %d%s, no device to go further", v->code, meaning);
		else if (step == VSTEP_DONE && v->devices == 1)
			snprintf(buf, cap, "cuInit returned %d%s, then a context and a PTX module on its device",
				 v->code, meaning);
		else if (step == VSTEP_DONE)
			snprintf(buf, cap, "cuInit returned %d%s, then a context and a PTX module on each of its %d devices",
				 v->code, meaning, v->devices);
		else if (step == VSTEP_INIT)
			snprintf(buf, cap, "cuInit returned %d%s", v->code, meaning);
		else if (step == VSTEP_COUNT && v->code == 0)
			snprintf(buf, cap, "device count: saw %d device%s, fewer than the system driver",
				 v->devices, v->devices == 1 ? "" : "s");
		else
			snprintf(buf, cap, "%s: %d%s%s", label[step], v->code, meaning, on);
		break;
	case VERDICT_SIGNAL:
		snprintf(buf, cap, "crashed %s%s (signal %d)", where[step], on, v->code);
		break;
	case VERDICT_HANG:
		snprintf(buf, cap, "hung %s%s, killed after %d s", where[step], on, v->code);
		break;
	case VERDICT_LOAD:
		snprintf(buf, cap, "libcuda.so.1 could not be loaded");
		break;
	default:
		snprintf(buf, cap, "not verified");
	}
	return buf;
}

/* How far a run got: its steps in order, the device steps per device. */
static long long verdict_reach(const struct verdict *v)
{
	if (v->step == VSTEP_DONE)
		return 1LL << 40;
	if (!verdict_device_step(v->step))
		return v->step;
	return VSTEP_DEVICE + 3LL * v->device + (v->step - VSTEP_DEVICE);
}

bool verdict_past(const struct verdict *base, const struct verdict *v)
{
	return base->kind != VERDICT_NONE && (verdict_ok(base) || verdict_reach(base) > verdict_reach(v));
}

const char *verdict_age(long long when, long long now, char *buf, size_t cap)
{
	long long d = now - when;
	if (d < 0)
		snprintf(buf, cap, "in the future (clock changed?)");
	else if (d < 120)
		snprintf(buf, cap, "%lld s", d);
	else if (d < 2 * 3600)
		snprintf(buf, cap, "%lld min", d / 60);
	else if (d < 2 * 86400)
		snprintf(buf, cap, "%lld h", d / 3600);
	else
		snprintf(buf, cap, "%lld d", d / 86400);
	return buf;
}

