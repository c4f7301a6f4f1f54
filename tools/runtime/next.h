/* SPDX-License-Identifier: MIT */
/*
 * next: the OCI runtime cudaload-runtime hands every command to.
 *
 * The one cudaload.conf names (`runtime = PATH-OR-NAME`); else the first
 * of nvidia-container-runtime (on PATH, then where NVIDIA's GPU Operator
 * installs it), runc and crun.  A name without '/' is looked up on PATH.
 * Never cudaload-runtime itself, by its inode: a configured runtime that
 * is one is refused (an engine would otherwise run it forever); one found
 * on PATH that is one is passed over.
 */
#ifndef CUDALOAD_RUNTIME_NEXT_H
#define CUDALOAD_RUNTIME_NEXT_H

#include <stddef.h>

/* Where the GPU Operator's toolkit DaemonSet installs NVIDIA's runtime. */
#define NEXT_OPERATOR_RUNTIME "/usr/local/nvidia/toolkit/nvidia-container-runtime"

/* The next runtime's path into out (cap bytes).  configured: cudaload.conf's
 * runtime, or NULL; path: PATH's value, or NULL (the usual directories).
 * 0, or -1 with why. */
int next_runtime(const char *configured, const char *path, char *out, size_t cap, char *why, size_t wcap);

#endif
