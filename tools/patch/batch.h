/* SPDX-License-Identifier: MIT */
/*
 * batch: replacing files, in batches.  Each new file is written in full beside its
 * original, the running user's and locked (replace.h); then each gets the
 * original's owner, mode and extended attributes, one syncfs() makes the
 * whole batch durable, each file is renamed over its original, and each
 * directory touched is fsynced.  A crash at any point leaves every original
 * intact or fully replaced (at worst, a power cut or SIGKILL, a stray
 * ".NAME.cudaload-XXXXXX" beside it, which the next run removes), and costs
 * one flush per batch instead of one per file.  Each original stays open
 * and held (replace.h) until its rename, with its directory and its
 * temporary's lock: a batch is bounded by descriptors too (batch_new).
 */
#ifndef CUDALOAD_PATCH_BATCH_H
#define CUDALOAD_PATCH_BATCH_H

#include <stdbool.h>
#include <sys/stat.h>

#include "run.h"

/* An empty batch, of as many slots as the descriptor limit allows (three
 * a file: the original, its directory, its temporary's lock; the limit
 * raised as far as it may go, BATCH_MAX at most): 0, or -1 out of memory. */
int batch_new(struct batch *batch);

/* Hold the job's original (j->name in j->dfd, whose fstat is dir_st; open
 * at j->fd, j->st as read), write its planned file beside it, and queue it
 * to replace the original, line to be said once it is in place.  The queue
 * owns j->fd from then; why not into j->why.  0, or -1. */
int queue_replacement(const struct options *opt, struct batch *batch, const struct stat *dir_st,
		      struct file_job *j, const char *line);

/* Put every queued file in place, each said, counted and recorded (or
 * said and counted as failed, its original left as it was): the number
 * that failed. */
int flush_batch(const struct options *opt, struct batch *batch, struct tally *tally,
		struct patchlist *record);

/* Is the file dev/ino among those queued? */
bool batch_holds(const struct batch *batch, dev_t dev, ino_t ino);

/* A temporary that could not be removed is said, never left in silence. */
void discard_temp(const struct options *opt, const char *path, int dirfd, const char *tmp);

#endif
