/* SPDX-License-Identifier: MIT */
/*
 * status: `cudaload --status`, the whole machine at a glance (docs/design.md
 * §12).
 *
 * The host, each compat package with its rules and its stored verdict
 * (fresh, or stale against the driver and the file), the system driver's
 * pin, then every program cudaload-patch recorded as patched
 * (/var/lib/cudaload/patched under the root) judged by the judgement a start
 * makes (common/decision/judge.h), with what that program reaches and no environment,
 * and what could beat the decision (judge_rivals).  The machine is judged
 * once, each program once.  Only run as a command: the start path never
 * comes here.
 *
 * A program is held (it loads what was decided, whatever else names a
 * driver), not_held (a DT_RPATH or an ld.so.conf.d entry beats the decision,
 * or a compat package exists and the system driver has no pin), unpatched
 * (its PT_INTERP is no longer a cudaload: a package upgrade replaced it),
 * missing (the file is gone), or broken (it cannot start: its interpreter or
 * its real loader is missing, or it is not a program).
 *
 * --nfd gives the node's labels for Node Feature Discovery's local source
 * (docs/fleet.md): the system driver's CUDA, what a program run through
 * cudaload gets, the newest CUDA a package NVIDIA supports here would give
 * (forward.h), whether a package is taken, and whether the status holds.
 *
 * Exit status (cudaload(1)): 0 every program holds and no verdict is stale,
 * 1 something does not hold or a verdict is stale, 2 the status could not be
 * read (the record unreadable, out of memory, a write failed).
 */
#ifndef CUDALOAD_STATUS_H
#define CUDALOAD_STATUS_H

#include <stdbool.h>
#include <stddef.h>

#include "../../common/settings/settings.h"

#define STATUS_HOLDS 0
#define STATUS_DOES_NOT_HOLD 1
#define STATUS_UNREADABLE 2

/* The file --textfile writes in its directory (node_exporter's textfile
 * collector reads *.prom there). */
#define STATUS_TEXTFILE "cudaload.prom"

/* The file --nfd-dir writes in its directory: Node Feature Discovery's
 * local source reads every file of features.d but dot-files (the
 * temporary's) and files over 64 KiB; GPU Feature Discovery's is "gfd". */
#define STATUS_NFD_FILE "cudaload"
/* The labels' names begin with it (Kubernetes: a DNS subdomain, then '/'). */
#define STATUS_NFD_PREFIX "cudaload.dev/"
/* How long after it is written NFD keeps the file's labels (its
 * "# +expiry-time=" directive): 2 hours, two dozen runs of
 * cudaload-status.timer (every 5 minutes) or of a DaemonSet's loop, so
 * that labels go away from a node where nothing refreshes them any more
 * and one missed run changes nothing. */
#define STATUS_NFD_EXPIRY_SECONDS (2 * 60 * 60)

struct status_options {
	bool json, prometheus, nfd;
	const char *textfile_dir;	/* --textfile DIR, or NULL */
	const char *nfd_dir;		/* --nfd-dir DIR, or NULL */
	bool image;			/* --root: paths shown as the image's */
};

/* s: the settings, config loaded (its root is the machine or image looked
 * at); self: this cudaload's path, or NULL.  Prints the status on stdout and
 * returns the exit status. */
int status_run(struct settings *s, const char *self, const struct status_options *o);

/* --root DIR (--status, --explain): NULL when DIR is a directory holding a
 * system image (its usr/), else why not (a typo or a file must never read
 * as a machine that holds). */
const char *status_check_root(const char *root);

/* s with root's prefix taken off every path in it that carries it (at its
 * start, or after ':', ' ', '(' or '='), in place: under --root every path
 * a report shows is the image's own.  NULL s: nothing. */
void status_unprefix(const char *root, char *s);

#endif
