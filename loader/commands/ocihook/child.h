/* SPDX-License-Identifier: MIT */
/*
 * child: the judgement of an image, in a child of the hook.  It probes the
 * host as a start would (under CUDALOAD_ROOT where set), keeps the
 * container's GPUs, enters the image (image.h: the host's tree out of its
 * reach, no capability but reading), and judges the packages the image's
 * own starts would find (its config, its ld.so.cache and ld.so.conf, the
 * container's LD_LIBRARY_PATH, CONDA_PREFIX, CUDA_HOME, CUDA_PATH) with the
 * tables alone: no verdict of the host's is about an image's file, and
 * nothing of the image runs to ask the driver.  Its word (word.h) says what
 * to hide, what to put first, and the account.
 */
#ifndef CUDALOAD_OCIHOOK_CHILD_H
#define CUDALOAD_OCIHOOK_CHILD_H

#include "../../../common/settings/settings.h"
#include "bundle.h"

/* The judgement, its word written to out.  Never returns. */
__attribute__((noreturn)) void child_judge(const struct bundle *b, char **env, struct settings *s, int out);

#endif
