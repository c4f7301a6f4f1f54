/* SPDX-License-Identifier: MIT */
/*
 * verdicts: the verdict store, where what the driver said of each compat
 * candidate (verdict.h) is kept: its format, its one reader and its one
 * writer (docs/design.md §10: what is verified, the format, whose store a
 * start reads).
 *
 * The store is text: VERDICT_MAGIC; "host KEY TEXT" (verdict_host_key, and
 * the host for people); for a store that outlives a boot, "boot ID"; then
 * "system RESULT STEP DEVICES TIME" (the baseline: the system driver), and
 * one "compat RESULT STEP DEVICES TIME DEV INO SIZE MTIME DIR" per package,
 * keyed by its directory and by the libcuda.so.1 the verdict was made on.
 * RESULT is "cu=N", "signal=N", "hang=N" or "load=0" (verdict_token); STEP
 * "init", "count", "device:N", "context:N", "module:N" or "done"
 * (verdict_step_token).
 *
 * Root's store lives in /run, so a verdict lives no longer than the kernel
 * driver it was made on; a user's own (verdict_user_store) is read after
 * root's, never by a set-id program or on a Jetson.  Anything malformed
 * makes a store damaged: ignored with one CUDALOAD_DEBUG line, never an
 * error.  It is written whole (atomicfile.h), by cudaload-verify alone.
 *
 * Reading is cheap on purpose: no store is one failed open; a small store
 * the open, one read and a close, plus a stat per candidate with an entry;
 * buffers are on the heap, taken only when a store is there.
 */
#ifndef CUDALOAD_VERDICTS_H
#define CUDALOAD_VERDICTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../packages/verdict.h"

#define VERDICT_STORE_DIR "/run/cudaload"
#define VERDICT_STORE_PATH VERDICT_STORE_DIR "/verdicts"
#define VERDICT_MAGIC "cudaload-verdicts 2"
/* The bounds: a compat line per package the candidate list keeps
 * (COMPAT_MAX_CANDIDATES, compat.h: checked to be the same in verdicts.c),
 * VERDICT_LINE_ROOM bytes each on average (a line of a 100-byte path takes
 * about 200), and room for the header.  A store past them is hostile or
 * damaged and is refused before it is read whole. */
#define VERDICT_MAX_ENTRIES 256
#define VERDICT_LINE_ROOM 1024
#define VERDICT_STORE_MAX (4096 + VERDICT_MAX_ENTRIES * VERDICT_LINE_ROOM)
#define VERDICT_READ_FIRST 4096		/* the first read; a store this small costs no fstat */
#define VERDICT_BOOT_ID "/proc/sys/kernel/random/boot_id"
#define VERDICT_BOOT_ID_LEN 36

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

/* The store's first lines into text (cap bytes: VERDICT_STORE_MAX): the
 * magic, the host (key, and text for people), the boot where boot is not
 * "", the system driver's verdict.  Its length, or -1 when it does not fit. */
int verdict_store_begin(char *text, size_t cap, uint64_t host_key, const char *host_text,
			const char *boot, const struct verdict *system);

/* A compat line for the package in dir, whose libcuda.so.1 is st, appended
 * to text (*len bytes of cap): true, or false when it does not fit (or dir
 * has a newline) and nothing is appended. */
bool verdict_store_add(char *text, size_t *len, size_t cap, const struct verdict *v,
		       const struct stat *st, const char *dir);

/* The store at path as it is, read for rewriting (the verifier's own):
 * malloc'd, *len bytes; NULL where there is none or it cannot be read. */
char *verdict_store_read(const char *path, size_t *len);

/* text (len bytes) as name in dir, whole and durable (atomicfile.h), with
 * mode.  0, or -1 with errno. */
int verdict_store_write(const char *dir, const char *name, const char *text, size_t len, mode_t mode);

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
