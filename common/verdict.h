/* SPDX-License-Identifier: MIT */
/*
 * verdict: what the driver itself said about each compat candidate.
 *
 * `cudaload --verify` (tools/cudaload-verify.c) loads each candidate's
 * libcuda.so.1 in a short-lived child with the search list the hand-over
 * would use and uses it as a program would: cuInit(0), then on every device
 * (CUDA_VISIBLE_DEVICES cleared) the device's compute capability, its
 * primary context, and a tiny PTX module loaded through the package's JIT
 * compiler (tools/ptx.h chooses one that device takes).  The first step that
 * fails ends the run and is the verdict.  Every later exec reads the record
 * instead of asking (100 ms and more, and a static musl program cannot load
 * glibc's libcuda anyway).  Tables say what NVIDIA supports; a verdict says
 * what works on this device (docs/design.md).
 *
 * The store: one file, VERDICT_STORE_PATH under the root (CUDALOAD_ROOT in
 * tests), written by the verifier to a temporary file in the same directory
 * and renamed over the old one, so a reader sees the old or the new file,
 * never half of one.  /run is emptied at every boot, so a verdict lives no
 * longer than the kernel driver that was loaded when it was made.  Format 2,
 * ASCII, every line ending in '\n', less than VERDICT_STORE_MAX bytes and at
 * most VERDICT_MAX_ENTRIES compat lines in all:
 *
 *   cudaload-verdicts 2
 *   host <key> <text>
 *   boot <id>                      (only in a store that outlives a boot)
 *   system <result> <step> <devices> <time>
 *   compat <result> <step> <devices> <time> <dev> <ino> <size> <mtime> <dir>
 *   ...
 *
 * - <key>: 16 lowercase hex digits, verdict_host_key() of the host the
 *   verdicts were made on: platform, SoC, L4T release, GPU characteristics,
 *   the full kernel driver version, the driver directories of the search
 *   list, the discrete GPUs seen (how many, each one's bus and model).  A
 *   store whose key differs from the current host's is ignored whole.
 *   <text> (to the end of the line) describes the host for people.
 * - `boot`: the boot ID (VERDICT_BOOT_ID under the root, a lowercase UUID)
 *   of the boot the verdicts were made in, for a store that outlives a
 *   boot (a user's ~/.cache one, below): such a store needs it, and any
 *   store that has it is ignored whole in another boot.
 * - `system`: the baseline, the system driver without any compat directory.
 * - `compat`: one line per verified candidate.  <dev> <ino> <size> are the
 *   decimal st_dev, st_ino and st_size of <dir>/libcuda.so.1 (links
 *   followed), <mtime> its st_mtime as <seconds>.<9 digits of ns>; a
 *   candidate whose file no longer matches has no verdict (replaced or
 *   touched since).  <dir> is the candidate directory as on the target
 *   (without the root), to the end of the line.
 * - <result>: `cu=<n>` the CUresult of the step (0 works, 46
 *   CUDA_ERROR_DEVICE_UNAVAILABLE, 100 no device, 218 CUDA_ERROR_INVALID_PTX,
 *   803 CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, 804
 *   CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, 999 ...); `signal=<n>` the
 *   child died of signal n in that step (a crash); `hang=<s>` it was killed
 *   after s seconds; `load=0` libcuda.so.1 could not be loaded or lacks
 *   cuInit.
 * - <step>: where the run ended.  `init` (loading libcuda.so.1, cuInit),
 *   `count` (cuDeviceGetCount; with cu=0: it saw fewer devices than the
 *   system driver, a partial count, which the verifier makes a failure),
 *   `device:<n>` (device n's handle and compute capability),
 *   `context:<n>` (its primary context), `module:<n>` (the PTX module on
 *   it), `done` (every step passed on every device; a crash or hang there
 *   came at exit).  cu=0 goes only with `done` or `count`, `done` only
 *   with cu= 0, signal= or hang=, load=0 only with `init`.
 * - <devices>: how many devices the child saw (0 before it counted them),
 *   at most VERDICT_DEVICES_MAX, more than <n> of a device step.
 * - <time>: seconds since the epoch when the verdict was made.
 * Anything else (another first line, a malformed or overlong line, a
 * missing final newline, numbers out of range) makes the whole store
 * damaged: it is ignored with one CUDALOAD_DEBUG line, never an error.
 *
 * Format 1 (cuInit only, written by earlier versions) is another format:
 * ignored like any store this version cannot read, with a debug line that
 * says to run cudaload --verify.  It can only be met between an upgrade and
 * the next --verify (the package's postinst restarts cudaload-verify.service
 * where systemd runs) or the next boot (/run is emptied).  Its verdicts are
 * not carried over: a cuInit that worked says nothing about the context and
 * the JIT, and a failing one is found again by the next --verify.
 *
 * A user's own store.  `cudaload --verify` run by a user other than root
 * verifies for that user, into the user's store (verdict_user_store):
 * $XDG_RUNTIME_DIR/cudaload/verdicts when XDG_RUNTIME_DIR is set, absolute,
 * and a directory the user owns with mode 0700 (a tmpfs emptied at logout
 * and boot), else $HOME/.cache/cudaload/verdicts, which outlives a boot and
 * so carries a boot line; the directories made 0700, the file 0600, the
 * user's.  The same format.  That user's programs read it after root's
 * (verdict_load_stores), never a set-id program, never on a Jetson (its
 * tables need no word from the driver, and its starts no system call more),
 * and only when the store and its directory belong to the real uid and
 * nobody else may write them.  The two stores combine: a failing verdict
 * in either refuses the package, a success in either lifts "needs the
 * driver's word"; each verdict says which store it came from.  The user's
 * store is named by the environment, not looked up under CUDALOAD_ROOT (as
 * CUDALOAD_CONFIG); the boot ID is read under the root.
 *
 * A failing compat verdict is the package's fault only where the system
 * driver got past the point where the package failed (verdict_past): the
 * system driver done, or failing at a later step or device.  Otherwise (the
 * system driver failed there too or before: no GPU yet, a device busy,
 * exclusive-process or prohibited) it is inconclusive, never held against
 * the package.
 *
 * Reading (verdict_load) is cheap on purpose: no store means one failed
 * open; a store of up to VERDICT_READ_FIRST bytes costs the open, one read
 * and a close (a larger one an fstat and a read more: only a regular file
 * smaller than VERDICT_STORE_MAX is read), plus one stat per candidate that
 * has an entry.  A user's store adds, for a user other than root on a dGPU
 * host, a stat of XDG_RUNTIME_DIR (when set) and its open; a store there
 * costs an fstat and a stat of its directory (the owner check) more, one
 * in ~/.cache the boot ID's open and read.  Buffers are on the heap, taken
 * only when a store is there.
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
