/* SPDX-License-Identifier: MIT */
/*
 * prepared: the host's judgement kept for the next start, and the check
 * that it still holds (docs/design.md §13).
 *
 * A start that probed the host, looked for packages and decided writes
 * what it decided (the search list for a program that brings nothing of
 * its own) with the inputs the decision read: every path the probe and
 * the search looked at under the root (sys.h records them), each
 * candidate's directory and libcuda, reduced to the fewest paths whose
 * stat says whether anything changed:
 *
 * - a directory stands for what is in it (its ctime moves when an entry
 *   is added, removed or renamed), so a missing path below an input
 *   directory needs no stat of its own;
 * - the GPU modules stand for what their drivers show (/proc/driver/nvidia,
 *   /dev/nvidia*, /dev/nvhost-*, /dev/nvgpu): nvidia's own /sys/module
 *   directory when loaded (a reload is a new kernfs node), else /sys/module,
 *   whose link count moves when a module comes or goes;
 * - the device tree and the SoC's sysfs files are the boot's: the file
 *   lives in /run (or XDG_RUNTIME_DIR), which a boot empties (FHS 3.0).
 *
 * The next start (loader only) reads it with one readlink: it is kept as
 * the target of a symbolic link, which one call reads whole without a
 * descriptor to open and close.  Then one stat per input, folded into one
 * 64-bit stamp compared with the one written.  The key compares what the
 * start knows without a call: this cudaload's build and where it lives,
 * the root, the program's machine, the settings (config file and
 * CUDALOAD_*).  Beside the decision, the loader the writing start handed
 * over to and what its file said (prepared_loader), which an exec start
 * takes after one stat of it instead of reading it again.
 *
 * Never served when an input changed: an input changed less than
 * PREPARED_RACY_S before the probe began (git's rule for racy files: a
 * change within the timestamp's granularity of the stat may not show) is
 * not written at all, and the modules' identity is taken before the probe
 * and compared at the write.  What each program brings (its DT_RUNPATH,
 * LD_LIBRARY_PATH) is not in it: a program that brings any of it takes the
 * full path; its own environment's, CONDA_PREFIX's and CUDA_HOME's package
 * directory, one stat each, only when it is a package not judged.
 *
 * Where: root's in PREPARED_DIR (under CUDALOAD_ROOT), written by root's
 * starts and used by everyone on a host where only root's verdict store
 * counts (a Jetson); a user's own in $XDG_RUNTIME_DIR/cudaload, written by
 * that user's starts, which also stamps that user's verdict store.  One
 * file per machine of program (prepared-<e_machine>).  Set-id programs
 * never use or write one (their rules, docs/design.md §5c).
 */
#ifndef CUDALOAD_PREPARED_H
#define CUDALOAD_PREPARED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>

#include "../packages/compat.h"
#include "../settings/settings.h"
#include "../host/probe.h"

#define PREPARED_DIR "/run/cudaload"
#define PREPARED_CAP 2048	/* a decision longer than this is not kept */
#define PREPARED_MAGIC "cudaload-prepared 1"
#define PREPARED_RACY_S 1	/* the coarsest timestamp granularity trusted */
#define PREPARED_MAX_INPUTS 64

/* The loader a start handed over to (ldso.h), kept so that an exec start
 * need not open and read it again: its path, whether a person named it
 * (then its dynamic section was judged too), what its file said of its kind
 * and glibc version (ldso_info's file_kind and glibc_minor) and its file's
 * stamp, which one stat compares.  path NULL: none kept. */
struct prepared_loader {
	const char *path;
	bool named;
	char kind;
	int minor;
	uint64_t stamp;		/* writing: set by prepared_write */
};

/* What a prepared decision says: pointers into the buffer it was read into. */
struct prepared_view {
	bool compat;		/* a compat package is first in the list */
	bool users_stores;	/* made on a host where users' own verdict stores count */
	const char *list;	/* the search list, "" for none */
	const char *reason;	/* the decision's reason, for the trace */
	const char *cands;	/* the packages judged: n_cands "c DEV INO" lines */
	int n_cands;
	struct prepared_loader loader;
};

/* Is the kept loader's file the one it was (one stat)? */
bool prepared_loader_holds(const struct prepared_loader *l);

/* Was the directory dev/ino one of the packages judged?  Then a program
 * that names it (CUDA_HOME/compat that is /usr/local/cuda-X.Y/compat)
 * brings nothing new. */
bool prepared_has_candidate(const struct prepared_view *v, dev_t dev, ino_t ino);

/* Everything the decision depends on that a start knows without a system
 * call: build (this binary's build ID, build_len bytes), where it lives
 * (home, home_len bytes: the pin directories beside it, pin.h), the root,
 * the program's ELF class and machine, and the settings. */
uint64_t prepared_key(const void *build, size_t build_len, const char *home, size_t home_len,
		      const struct settings *s, int cls, int machine);

/* The file for machine in dir under root (root's: PREPARED_DIR under
 * CUDALOAD_ROOT; a user's: "/cudaload" under XDG_RUNTIME_DIR): 0, or -1
 * when it does not fit in cap. */
int prepared_path(char *out, size_t cap, const char *root, const char *dir, int machine);

/* Read the decision at path into buf (PREPARED_CAP bytes) and check it:
 * true when it holds, *v set; false with *why saying why not (none,
 * damaged, another key, an input changed). */
bool prepared_check(const char *path, uint64_t key, char *buf, struct prepared_view *v,
		    const char **why);

/* Parse text (len bytes, NUL-terminated) without looking at the inputs:
 * the number of inputs, or -1 when it is not a prepared decision (tests,
 * the fuzzer).  *stamp is the stamp it was written with. */
int prepared_parse(char *text, size_t len, uint64_t *key, uint64_t *stamp,
		   struct prepared_view *v);

/* The stamp of the inputs listed in text as prepared_check computes it. */
uint64_t prepared_stamp(const char *text);

/* Writing.  prepared_begin before the probe starts recording the paths it
 * looks at (sys.h) and takes the time and the modules' identity;
 * prepared_end stops it.  prepared_write then writes the decision, unless
 * an input is racy or changed, the inputs are too many or the text too
 * long: 0 written, 1 not (why says), -1 out of memory. */
struct prepared_record {
	struct timespec began;
	uint64_t modules;	/* the modules' identity at the start */
	const char *root;
	struct sys_seen *seen;
};
int prepared_begin(struct prepared_record *r, const char *root);
void prepared_end(struct prepared_record *r);

struct prepared_decision {
	uint64_t key;
	const struct candidates *cands;
	bool compat;
	bool users_stores;		/* users' own verdict stores count on this host */
	const char *list;		/* NULL: none */
	const char *reason;
	const char *user_store;		/* a user's verdict store to stamp, or NULL */
	struct prepared_loader loader;	/* kept unless racy, relative or not one line */
};
int prepared_write(struct prepared_record *r, const char *path, const struct prepared_decision *d,
		   const char **why);
void prepared_record_free(struct prepared_record *r);

#endif
