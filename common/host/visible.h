/* SPDX-License-Identifier: MIT */
/*
 * visible: the GPUs a process can see, read from CUDA_VISIBLE_DEVICES and
 * CUDA_DEVICE_ORDER as CUDA reads them (docs/decision.md, "The GPUs a
 * process sees").
 *
 * A comma-separated list: indexes, GPU UUIDs (GPU-..., whole or a prefix)
 * and MIG instances (MIG-GPU-<uuid>/<gi>/<ci>, whose GPU the name tells;
 * MIG-<uuid>, whose GPU only the driver knows).  The list ends at its first
 * invalid entry: a negative index, one past the last GPU, a UUID that names
 * no GPU, anything else.  Indexes count in PCI bus order only with
 * CUDA_DEVICE_ORDER=PCI_BUS_ID; in CUDA's default order (fastest first)
 * only the driver knows which GPU an index is.
 *
 * Never worse than judging every GPU: where cudaload cannot tell which GPUs
 * an entry means, every GPU is judged.  Where it reads an entry more
 * leniently than CUDA might (a prefix naming two GPUs, blanks around an
 * entry), the reading can only see more GPUs, never fewer.  Pure: no
 * system call, nothing allocated.
 */
#ifndef CUDALOAD_VISIBLE_H
#define CUDALOAD_VISIBLE_H

#include <stdbool.h>
#include <stddef.h>

#define VISIBLE_MAX_NAMED 8	/* UUID entries matched; past them every GPU is judged */

/* What the environment asks: devices NULL when CUDA_VISIBLE_DEVICES is unset
 * (or not to be read: set-id programs, --status, --verify). */
struct visible_ask {
	const char *devices;	/* CUDA_VISIBLE_DEVICES */
	bool pci_order;		/* CUDA_DEVICE_ORDER=PCI_BUS_ID */
};

/* How the GPUs judged were chosen. */
enum visible_rule {
	VISIBLE_UNSET,		/* every GPU: nothing asked */
	VISIBLE_NAMED,		/* the GPUs the list names */
	VISIBLE_NONE,		/* the list names no GPU: the process sees none */
	VISIBLE_EVERY,		/* every GPU: the list names GPUs cudaload cannot tell */
};

const char *visible_rule_name(enum visible_rule r);

/* Which of the list's first VISIBLE_MAX_NAMED entries name the GPU whose
 * UUID is uuid ("GPU-8932f937-d72c-4106-c12f-20bd9faed9f6"): bit k for
 * entry k.  uuid NULL: a GPU whose UUID is not known, taken as named by
 * every UUID entry (judged whenever the list names any GPU by UUID). */
unsigned char visible_names(const char *devices, const char *uuid);

/* The GPUs seen of the n the driver lists, of which the first held (at most
 * 32) are known, in PCI bus order, named[i] what visible_names gave GPU i:
 * a mask of their indexes in *seen; why (cap bytes, or NULL) says how, for
 * --explain. */
enum visible_rule visible_pick(const struct visible_ask *ask, int n, int held,
			       const unsigned char *named, unsigned *seen, char *why, size_t cap);

#endif
