/* SPDX-License-Identifier: MIT */
/*
 * verdict: what the driver itself said about each compat candidate, kept
 * in the verdict store (docs/design.md §10: what is verified, the store's
 * format, whose store a start reads).
 *
 * `cudaload --verify` (tools/verify/cudaload-verify.c) uses each package in a
 * child as a program would and writes the first step that failed, keyed by
 * the host and by the package's libcuda.so.1; a start reads the record
 * instead of asking (100 ms and more, and a static musl program cannot
 * load glibc's libcuda anyway).  Root's store lives in /run, so a verdict
 * lives no longer than the kernel driver it was made on; a user's own
 * (verdict_user_store) is read after root's, never by a set-id program or
 * on a Jetson.  Anything malformed makes a store damaged: ignored with one
 * CUDALOAD_DEBUG line, never an error.
 *
 * A failing compat verdict is the package's fault only where the system
 * driver got past the point where the package failed (verdict_past);
 * otherwise (no GPU yet, a device busy) it is inconclusive.
 *
 * Reading is cheap on purpose: no store is one failed open; a small store
 * the open, one read and a close, plus a stat per candidate with an entry;
 * buffers are on the heap, taken only when a store is there.
 */
#ifndef CUDALOAD_VERDICT_H
#define CUDALOAD_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VERDICT_STORE_DIR "/run/cudaload"
#define VERDICT_STORE_PATH VERDICT_STORE_DIR "/verdicts"
#define VERDICT_MAGIC "cudaload-verdicts 2"
/* The bounds: a compat line per package the candidate list keeps
 * (COMPAT_MAX_CANDIDATES, compat.h: checked to be the same in verdict.c),
 * VERDICT_LINE_ROOM bytes each on average (a line of a 100-byte path takes
 * about 200), and room for the header.  A store past them is hostile or
 * damaged and is refused before it is read whole. */
#define VERDICT_MAX_ENTRIES 256
#define VERDICT_LINE_ROOM 1024
#define VERDICT_STORE_MAX (4096 + VERDICT_MAX_ENTRIES * VERDICT_LINE_ROOM)
#define VERDICT_READ_FIRST 4096		/* the first read; a store this small costs no fstat */
#define VERDICT_DEVICES_MAX 1024
#define VERDICT_BOOT_ID "/proc/sys/kernel/random/boot_id"
#define VERDICT_BOOT_ID_LEN 36

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

/* st_dev, st_ino, st_size, st_mtim of a libcuda.so.1 (links followed). */
struct verdict_file {
	uint64_t dev, ino, size;
	int64_t mtime_s;
	uint32_t mtime_ns;
};

struct verdict_entry {
	struct verdict v;
	struct verdict_file file;
	const char *dir;	/* into the store text, not NUL-terminated */
	size_t dir_len;
};

/* A parsed store: the header; the entries stay in the text. */
struct verdict_store {
	uint64_t host_key;
	char boot[VERDICT_BOOT_ID_LEN + 1];	/* "" without a boot line */
	struct verdict system;
	const char *text;
	size_t len, entries;	/* entries: offset of the first compat line */
};

struct stat;

/* Is st (a stat of <dir>/libcuda.so.1) the file a verdict was made on? */
bool verdict_file_is(const struct verdict_file *f, const struct stat *st);

/* Did the library pass every step? */
static inline bool verdict_ok(const struct verdict *v)
{
	return v->kind == VERDICT_CU && v->code == 0 && v->step == VSTEP_DONE;
}

/* Did the run of base get past the point where the run of v ended (base
 * done, or ending at a later step or device)?  A failing v is then the
 * library's own failure, not the device's. */
bool verdict_past(const struct verdict *base, const struct verdict *v);

/* Check a whole store.  0, or -1 with the reason in why. */
int verdict_parse(const char *text, size_t len, struct verdict_store *out,
		  char *why, size_t cap);

/* The next compat entry at *pos (start with *pos = 0); 1, or 0 at the end.
 * Only for a store verdict_parse accepted. */
int verdict_next(const struct verdict_store *s, size_t *pos, struct verdict_entry *e);

/* "cu=804", "signal=11", "hang=30", "load=0" into buf; buf. */
const char *verdict_token(const struct verdict *v, char *buf, size_t cap);

/* The step as stored: "init", "count", "context:1", "done" into buf; buf. */
const char *verdict_step_token(const struct verdict *v, char *buf, size_t cap);

/* The step's name alone: "init", "count", "device", "context", "module",
 * "done". */
const char *verdict_step_name(const struct verdict *v);

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

struct host;
struct candidates;

/* The host key: what makes a verdict true beyond the candidate itself. */
uint64_t verdict_host_key(const struct host *h);

/* Read the store under root and set each candidate's verdict (compat.h).
 * secure: the store is used only when it and its directories are root-owned
 * and writable by root alone.  Returns 1 when a store applied (the baseline
 * in *system), 0 when there is none, -1 when one was ignored (the reason in
 * the CUDALOAD_DEBUG trace). */
int verdict_load(const char *root, bool secure, const struct host *h,
		 struct candidates *c, struct verdict *system);

/* The user's store (above) for uid, by envp's XDG_RUNTIME_DIR (checked
 * with one stat) or HOME: a malloc'd path, *lasting when it outlives a boot
 * (the ~/.cache one); NULL when neither gives one (HOME unset or relative)
 * or out of memory. */
char *verdict_user_store(char *const *envp, unsigned uid, bool *lasting);

/* This boot's ID (VERDICT_BOOT_ID under root) into buf, at least
 * VERDICT_BOOT_ID_LEN + 1 bytes: 0, or -1 when it cannot be read. */
int verdict_boot_id(const char *root, char *buf, size_t cap);

/* Both stores for a start: every candidate's verdict cleared, root's store
 * read as verdict_load does, then, unless secure, on a Jetson or for root
 * (uid 0), the user's store of the real uid, used only when it and its
 * directory are that uid's and writable by nobody else.  A failing verdict
 * in either applies; else a success in either; *system is root's baseline,
 * or the user's without one.  1 when a store applied, 0 when there is none,
 * -1 when one was ignored (the reason in the CUDALOAD_DEBUG trace). */
int verdict_load_stores(const char *root, bool secure, char *const *envp, unsigned uid,
			const struct host *h, struct candidates *c, struct verdict *system);

/* What verdict_survey found in the store. */
enum verdict_store_state {
	VSTORE_NONE,		/* no store: never verified */
	VSTORE_APPLIES,		/* made on this host: verdicts set as verdict_load does */
	VSTORE_OTHER_HOST,	/* made on another driver, GPU or search list: stale */
	VSTORE_DAMAGED,		/* unreadable or not a store: why says */
};

/* For --status: verdict_load (not secure) that also reads a store made on
 * another host, whose verdicts it sets with VSTATE_OTHER_HOST so that
 * they can be shown as stale, not used.  why: what is wrong with a
 * damaged store. */
enum verdict_store_state verdict_survey(const char *root, const struct host *h,
					struct candidates *c, struct verdict *system,
					char *why, size_t cap);

/* The same on text already read (tests, the fuzzer). */
int verdict_apply(const char *text, size_t len, const char *root, const struct host *h,
		  struct candidates *c, struct verdict *system);

#endif
