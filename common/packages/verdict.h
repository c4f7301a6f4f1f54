/* SPDX-License-Identifier: MIT */
/*
 * verdict: what the driver itself said about a compat candidate, or of the
 * system driver: how far a run of it got, and in what words that is told
 * to people (docs/design.md §10).  Where verdicts are kept, and in what
 * format, is the verdict store's (common/stores/verdicts.h).
 *
 * `cudaload --verify` (tools/verify/cudaload-verify.c) uses each package in a
 * child as a program would and records the first step that failed; a start
 * reads the record instead of asking (100 ms and more, and a static musl
 * program cannot load glibc's libcuda anyway).
 *
 * A failing compat verdict is the package's fault only where the system
 * driver got past the point where the package failed (verdict_past);
 * otherwise (no GPU yet, a device busy) it is inconclusive.
 */
#ifndef CUDALOAD_VERDICT_H
#define CUDALOAD_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


#define VERDICT_DEVICES_MAX 1024

enum verdict_kind {
	VERDICT_NONE,		/* no verdict */
	VERDICT_CU,		/* cuInit returned code */
	VERDICT_SIGNAL,		/* the child died of signal code */
	VERDICT_HANG,		/* killed after code seconds */
	VERDICT_LOAD,		/* libcuda.so.1 not loadable */
};

/* Where a run ended, in the order a run goes (verdict_past compares). */
enum verdict_step {
	VSTEP_INIT,		/* loading libcuda.so.1, cuInit */
	VSTEP_COUNT,		/* cuDeviceGetCount, or fewer devices than the system driver */
	VSTEP_DEVICE,		/* device n's handle and compute capability */
	VSTEP_CONTEXT,		/* device n's primary context */
	VSTEP_MODULE,		/* a PTX module on device n */
	VSTEP_DONE,		/* every step on every device */
};

enum verdict_state {
	VSTATE_NONE,		/* nothing recorded for this candidate */
	VSTATE_APPLIES,		/* recorded for exactly this file and host */
	VSTATE_CHANGED,		/* recorded, but its libcuda changed since */
	VSTATE_INCONCLUSIVE,	/* failed where the system driver failed too (verdict_past) */
	VSTATE_OTHER_HOST,	/* recorded on another driver or GPU (verdict_survey only);
				 * decide() applies none but VSTATE_APPLIES */
};

/* Which store a verdict came from. */
enum verdict_source {
	VSOURCE_ROOT,		/* root's, VERDICT_STORE_PATH */
	VSOURCE_USER,		/* this user's own (verdict_user_store) */
};

struct verdict {
	unsigned char kind;	/* enum verdict_kind */
	unsigned char state;	/* enum verdict_state (candidates only) */
	unsigned char step;	/* enum verdict_step */
	unsigned char source;	/* enum verdict_source */
	short device;		/* the device of a device step, else -1 */
	short devices;		/* how many the child saw (0 before counting) */
	int code;
	long long when;		/* seconds since the epoch */
};



/* Does the step name a device (device, context, module)? */
static inline bool verdict_device_step(unsigned step)
{
	return step == VSTEP_DEVICE || step == VSTEP_CONTEXT || step == VSTEP_MODULE;
}

/* Did the library pass every step? */
static inline bool verdict_ok(const struct verdict *v)
{
	return v->kind == VERDICT_CU && v->code == 0 && v->step == VSTEP_DONE;
}

/* Did the run of base get past the point where the run of v ended (base
 * done, or ending at a later step or device)?  A failing v is then the
 * library's own failure, not the device's. */
bool verdict_past(const struct verdict *base, const struct verdict *v);



/* For people: "cuInit returned 804 (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
 * a GPU here does not support forward compatibility)", "context: 999
 * (CUDA_ERROR_UNKNOWN: unknown error) on device 1 of 2", "crashed in the
 * module step on device 0 (signal 11)", "cuInit returned 0 (CUDA_SUCCESS:
 * works), then a context and a PTX module on each of its 2 devices". */
const char *verdict_describe(const struct verdict *v, char *buf, size_t cap);

/* "CUDA_ERROR_NO_DEVICE", or NULL for a code it does not know. */
const char *verdict_cu_name(int code);

/* "3 h", "5 min", "40 s": how long ago when was, from now. */
const char *verdict_age(long long when, long long now, char *buf, size_t cap);


#endif
