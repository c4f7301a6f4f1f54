/* SPDX-License-Identifier: MIT */
/*
 * verdict: what the driver itself said about each compat candidate.
 *
 * `cudaload --verify` (tools/cudaload-verify.c) loads each candidate's
 * libcuda.so.1 in a short-lived child with the search list the hand-over
 * would use, calls cuInit(0), and records the outcome here; every later exec
 * reads the record instead of calling cuInit (100 ms and more, and a static
 * musl program cannot load glibc's libcuda anyway).  Tables say what NVIDIA
 * supports; a verdict says what works on this device (docs/design.md).
 *
 * The store: one file, VERDICT_STORE_PATH under the root (CUDALOAD_ROOT in
 * tests), written by the verifier to a temporary file in the same directory
 * and renamed over the old one, so a reader sees the old or the new file,
 * never half of one.  /run is emptied at every boot, so a verdict lives no
 * longer than the kernel driver that was loaded when it was made.  Format 1,
 * ASCII, every line ending in '\n', at most VERDICT_STORE_MAX bytes in all:
 *
 *   cudaload-verdicts 1
 *   host <key> <text>
 *   system <result> <time>
 *   compat <result> <time> <dev> <ino> <size> <mtime> <dir>
 *   ...
 *
 * - <key>: 16 lowercase hex digits, verdict_host_key() of the host the
 *   verdicts were made on: platform, SoC, L4T release, GPU characteristics,
 *   the full kernel driver version, the driver directories of the search
 *   list, the discrete GPUs seen (how many, each one's bus and model).  A store whose key differs from the current host's is ignored
 *   whole.  <text> (to the end of the line) describes the host for people.
 * - `system`: the baseline, the system driver without any compat directory.
 *   Failing compat verdicts are applied only when the baseline's cuInit
 *   succeeded: when the system driver fails too, the device or the driver
 *   is at fault (not ready, no GPU), not the compat package.
 * - `compat`: one line per verified candidate.  <dev> <ino> <size> are the
 *   decimal st_dev, st_ino and st_size of <dir>/libcuda.so.1 (links
 *   followed), <mtime> its st_mtime as <seconds>.<9 digits of ns>; a
 *   candidate whose file no longer matches has no verdict (replaced or
 *   touched since).  <dir> is the candidate directory as on the target
 *   (without the root), to the end of the line.
 * - <result>: `cu=<n>` cuInit's CUresult (0 works, 100 no device, 803
 *   CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, 804
 *   CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, 999 ...); `signal=<n>` the
 *   child died of signal n (a crash); `hang=<s>` it was killed after s
 *   seconds; `load=0` libcuda.so.1 could not be loaded or lacks cuInit.
 * - <time>: seconds since the epoch when the verdict was made.
 * Anything else (another first line, a malformed or overlong line, a
 * missing final newline, numbers out of range) makes the whole store
 * damaged: it is ignored with one CUDALOAD_DEBUG line, never an error.
 *
 * Reading (verdict_load) is cheap on purpose: no store means one failed
 * open; a store costs the open, one read and a close, plus one stat per
 * candidate that has an entry.  No malloc; buffers are static.
 */
#ifndef CUDALOAD_VERDICT_H
#define CUDALOAD_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VERDICT_STORE_DIR "/run/cudaload"
#define VERDICT_STORE_PATH VERDICT_STORE_DIR "/verdicts"
#define VERDICT_STORE_MAX 4096
#define VERDICT_MAGIC "cudaload-verdicts 1"

enum verdict_kind {
	VERDICT_NONE,		/* no verdict */
	VERDICT_CU,		/* cuInit returned code */
	VERDICT_SIGNAL,		/* the child died of signal code */
	VERDICT_HANG,		/* killed after code seconds */
	VERDICT_LOAD,		/* libcuda.so.1 not loadable */
};

enum verdict_state {
	VSTATE_NONE,		/* nothing recorded for this candidate */
	VSTATE_APPLIES,		/* recorded for exactly this file and host */
	VSTATE_CHANGED,		/* recorded, but its libcuda changed since */
	VSTATE_INCONCLUSIVE,	/* failed, but so did the system driver */
	VSTATE_OTHER_HOST,	/* recorded on another driver or GPU (verdict_survey only);
				 * decide() applies none but VSTATE_APPLIES */
};

struct verdict {
	unsigned char kind;	/* enum verdict_kind */
	unsigned char state;	/* enum verdict_state (candidates only) */
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
	struct verdict system;
	const char *text;
	size_t len, entries;	/* entries: offset of the first compat line */
};

/* Does cuInit's answer mean the library works? */
static inline bool verdict_ok(const struct verdict *v)
{
	return v->kind == VERDICT_CU && v->code == 0;
}

/* Check a whole store.  0, or -1 with the reason in why. */
int verdict_parse(const char *text, size_t len, struct verdict_store *out,
		  char *why, size_t cap);

/* The next compat entry at *pos (start with *pos = 0); 1, or 0 at the end.
 * Only for a store verdict_parse accepted. */
int verdict_next(const struct verdict_store *s, size_t *pos, struct verdict_entry *e);

/* "cu=804", "signal=11", "hang=30", "load=0" into buf; buf. */
const char *verdict_token(const struct verdict *v, char *buf, size_t cap);

/* For people: "cuInit returned 804 (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
 * this GPU does not support forward compatibility)", "crashed (signal 11)". */
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
