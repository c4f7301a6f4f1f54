/* SPDX-License-Identifier: MIT */
/*
 * run: what one run of cudaload-patch holds and says.  The options as
 * main's steps plan them, what became of each file (enum outcome, counted
 * in struct tally for the summary and the exit status), one file's way
 * through its steps (struct file_job, files.h), the replacements in hand
 * (struct batch, batch.h), and struct run, which the steps change as they
 * go.  Each step is passed the parts it uses.  Results for one file go to
 * stdout (say), errors and warnings to stderr (complain), both clear of a
 * progress line on a terminal; the record of patched programs is kept in
 * step with each file put in place (record_done).
 */
#ifndef CUDALOAD_PATCH_RUN_H
#define CUDALOAD_PATCH_RUN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "../../common/base/alloc.h"
#include "../../common/stores/patchlist.h"
#include "closure.h"
#include "elfpatch.h"
#include "pysite.h"
#include "replace.h"

#define BATCH_MAX 256	/* files in one batch at most (batch.h) */

enum action { PATCH, RESTORE, CHECK };

/* What became of a file.  The last two are not counted: a queued file
 * counts once it is in place, and cudaload itself is no skip. */
enum outcome {
	DONE, FAILED, SKIP_NOT_ELF, SKIP_SCRIPT, SKIP_STATIC, SKIP_LIBRARY, SKIP_OBJECT,
	SKIP_MACHINE, SKIP_PATCHED, SKIP_NO_CUDA, SKIP_LINKS, SKIP_SAME, SKIP_NOT_PATCHED,
	SKIP_SPECIAL, SKIP_CUDALOAD, QUEUED, N_OUTCOMES
};

/* The run's options, as main's steps plan it (a field's comment names the
 * step that sets it; read_command_line sets the options): main's to fill,
 * every other step's to read (const). */
struct options {
	enum action action;
	const char *interp;		/* --interp, else choose_interpreter's */
	int machine;			/* choose_interpreter */
	bool all, dry_run, break_links, force, verbose, quiet;
	const char *root;		/* --root: the image the programs run in */
	int rootfd;			/* ... open (O_PATH), -1 without (open_image) */
	char root_abs[CL_PATH_MAX];	/* ... absolute, cleaned (inroot_absolute) */
	char root_real[CL_PATH_MAX];	/* ... its links resolved here (realpath) */
	bool sweep;			/* remove the temporaries of a killed run (main) */
	bool progress;			/* a running count on a terminal (main) */
	bool recording;			/* keep the record of patched programs (open_record) */
	const char *record_file;	/* ... where (open_record) */
	const char *record_img;		/* the record's path in the image, when it is there */
	char record_abs[CL_PATH_MAX];	/* ... what record_img points into (open_record) */
	char self_interp[CL_PATH_MAX];	/* the cudaload beside this program (choose_interpreter) */
	int install_mode;		/* --install: --mode, -1: the source's (check_combination) */
	bool no_clobber;		/* --install: --no-clobber */
};

/* What became of the files, for the summary and the exit status (count_outcome). */
struct tally {
	unsigned long count[N_OUTCOMES];
	unsigned long seen;
	unsigned long named_skipped;	/* exit status 2 */
	unsigned long check_unpatched;	/* --check: programs not patched */
};

/* One file on its way through process_file: what each of its steps found.
 * open_and_read, what_it_is, then one of leave_own_program, check_file or
 * change_file (plan_restore or plan_patch, then replace_file or
 * say_unchanged); release_file gives back what it holds. */
struct file_job {
	/* what is asked (process_file's arguments) */
	const char *path, *img;		/* as said, and in the image (--root) */
	bool named;			/* named on the command line, not walked */
	const char *interp;		/* patched for it, a cudaload for machine */
	int machine;

	/* the file, open and read (open_and_read) */
	int dfd;			/* its directory, dir_of's (lent) */
	char name[NAME_MAX + 1];	/* its name there */
	int fd;				/* the file: -1 once closed, or the queue's */
	struct stat st;
	unsigned char *bytes;		/* all of it, len bytes */
	size_t len;

	/* what it is (what_it_is) */
	struct elf_facts f;
	const char *cuda_why;		/* why it is a CUDA program, or NULL */
	char reach[640];		/* ... when what it loads says so */

	/* what is done to it (plan_restore, plan_patch) */
	struct patch_plan plan;
	bool forced;			/* a restore that is not byte-identical */

	char why[512];			/* what went wrong, for any step */
};


/* The directory of the files in hand (dir_of): files in a row share one,
 * so the last one stays open. */
struct dir_cache {
	char *key;		/* "i" (in the image) or "h" (here), then the directory as named */
	int fd;			/* -1: none */
	struct stat st;		/* its fstat */
};

struct pending {
	char *tmp, *path, *name;	/* tmp and name in dirfd; path as said */
	char *img;			/* the path in the image, with --root */
	int dirfd;			/* the directory, open (a copy of dir_of's) */
	dev_t dir_dev;			/* ... its identity */
	ino_t dir_ino;
	int lockfd;			/* the temporary, read-only: its lock */
	struct held held;		/* the original, as it was read */
	const char *interp;		/* the record's: what it was patched for */
	char line[CL_PATH_MAX + 768];	/* what to report once it is in place */
};

/* The replacements queued (queue_replacement) until flush_batch puts them
 * in place. */
struct batch {
	struct pending *v;	/* max slots (batch_new) */
	size_t n, max;
};

/* The directories whose temporaries of a killed run were swept: each
 * looked at once (sweep_dir_of). */
struct swept {
	struct { dev_t dev; ino_t ino; } *v;
	size_t n, cap;
};

/* What a program loads, judged once per run: its libraries (closure.h)
 * and a Python's packages (pysite.h); both NULL when not followed. */
struct loads {
	struct closure *closure;
	struct pysite *pysite;
};

/* What the files' steps change as they go, from the listing to the
 * summary. */
struct run {
	struct tally tally;
	struct patchlist record;	/* kept in step with each file (record_done) */
	struct batch batch;
	struct dir_cache dirs;		/* the directory in hand (dir_of) */
	struct swept swept;		/* the directories swept (sweep_dir_of) */
	struct loads loads;		/* (walk_and_process) */
};


const char *outcome_name(enum outcome o);

/* Clear the progress line (a terminal's) before anything else is said. */
void progress_clear(const struct options *opt);

/* A result for one file, on stdout (none with --quiet). */
__attribute__((format(printf, 3, 4)))
void say(const struct options *opt, const char *path, const char *fmt, ...);

/* An error or warning about one file, on stderr (stdout flushed first so
 * that both keep their order on a terminal). */
__attribute__((format(printf, 3, 4)))
void complain(const struct options *opt, const char *path, const char *fmt, ...);

/* Count what became of a file (not QUEUED, nor cudaload itself), and
 * show the running count on a terminal. */
void count_outcome(const struct options *opt, struct tally *tally, int outcome, const char *path);

/* A path in the image as this machine names it: the root joined. */
bool host_path(const struct options *opt, const char *img, char *out, size_t cap);

void record_done(const struct options *opt, struct patchlist *record, const char *path,
		 const char *img, const char *interp);

#endif
