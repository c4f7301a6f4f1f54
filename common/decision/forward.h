/* SPDX-License-Identifier: MIT */
/*
 * forward: the newest CUDA whose compat package NVIDIA supports on a host,
 * by the tables alone.
 *
 * The question a scheduler asks of a node before it places an image that
 * carries its own compat package (the container hook judges such a package
 * by the tables: no verdict of the host's is about an image's file): not
 * what is installed, but what would be taken.  Each CUDA release of the
 * driver table is put to decide() as a package shaped the way NVIDIA
 * publishes it for this platform, without a note (a note is a package's
 * own word, and no package is at hand): on a data-center host the
 * data-center package of the release's first driver branch, on Thor the
 * same, on Xavier and Orin the Jetson package (CUDA 13 for Orin from
 * compat_orin).  So every rule of decide() applies as to an installed
 * package: the brands (GeForce: none), the architectures retired at an
 * older branch (a V100 ends at R580, so CUDA 13.0), the host branch's
 * support, the L4T release's table, a GPU only the driver can judge (none:
 * the tables alone do not say yes).
 *
 * Judged on every GPU of h that decide() judges: for a node, every GPU.
 * Only run as a command (--status --nfd): the start path never comes here.
 */
#ifndef CUDALOAD_FORWARD_H
#define CUDALOAD_FORWARD_H

#include "../host/probe.h"

/* The newest CUDA (version.h encoding) whose package decide() takes on h
 * under the policy auto for a program of ELF class cls and machine machine;
 * 0 when none (no GPU, none newer than the host's, none the tables
 * support), -1 when out of memory. */
int forward_newest(const struct host *h, int cls, int machine);

#endif
