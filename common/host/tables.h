/* SPDX-License-Identifier: MIT */
/*
 * tables: NVIDIA's published support facts, as data.
 *
 * Everything the decision knows about which driver supports which CUDA, and
 * which forward-compatibility pairs NVIDIA supports, is in the arrays of
 * tables.c, each row with its source.  Update the rows, not the code.
 * CUDA versions use the encoding of version.h (12.2 -> 12020).
 */
#ifndef CUDALOAD_TABLES_H
#define CUDALOAD_TABLES_H

#include <stdbool.h>

/* The edition of NVIDIA's documents the rows follow, and when they were
 * checked (cudaload --version prints both). */
extern const char tables_checked[];	/* "2026-11-30" */
extern const int tables_edition;	/* CUDA release of the documents: 13040 */
/* What the rows know beyond that edition, from NVIDIA's release manifests. */
extern const char tables_also[];

/* CUDA bundled with an L4T release; 0 if the release is unknown. */
int tables_l4t_cuda(int l4t_major, int l4t_minor);

/* Newest CUDA a data-center driver branch supports; 0 if unknown: older
 * than the table, or newer than its last row (never guessed). */
int tables_branch_cuda(int branch);

/* The newest branch the driver table knows (620). */
int tables_branch_newest(void);

/* The i-th CUDA release of the driver table, oldest first (11.0 for 0);
 * 0 past its last row.  Every release a compat package can be of. */
int tables_cuda_release(int i);

/* Does NVIDIA support compat CUDA `cuda` on L4T release `l4t_major`?
 * 1 yes, 0 no, -1 the release is not in the table.  A CUDA newer than
 * tables_edition is for the caller to call unknown. */
int tables_jetson_compat(int l4t_major, int cuda);

/* Newest compat CUDA NVIDIA supports on a data-center host branch when the
 * compat libcuda carries no note; 0 if the branch is not a supported target
 * (end-of-life and new-feature branches). */
int tables_dgpu_compat_max(int branch);

/* Does L4T release `l4t_major` run on SoC `soc` ("tegra234")?  Used to spot
 * a release file that came from a container image, not from the host. */
bool tables_l4t_runs_on(int l4t_major, const char *soc);

/* Marketing name of a Tegra SoC ("Orin") or NULL. */
const char *tables_soc_name(const char *soc);

/* NVML brand number of a GPU from its model name
 * ("NVIDIA GeForce RTX 4090" -> 15, "NVIDIA H100 80GB HBM3" -> 14). */
int tables_gpu_brand(const char *model);

/* Name of an NVML brand number ("GeForce RTX"), or NULL. */
const char *tables_brand_name(int brand);

/* Does NVIDIA support forward compatibility on GPUs of this brand? */
bool tables_brand_supports_compat(int brand);

/* Is this a workstation brand (Quadro, Quadro RTX, NVIDIA RTX), on which
 * NVIDIA supports forward compatibility only for select NGC-ready SKUs that
 * nothing in /proc tells apart: only the driver can say (cuInit 804)? */
bool tables_brand_needs_word(int brand);

/* GPU architectures, oldest first. */
enum gpu_arch {
	GPU_ARCH_UNKNOWN, GPU_ARCH_FERMI, GPU_ARCH_KEPLER, GPU_ARCH_MAXWELL, GPU_ARCH_PASCAL,
	GPU_ARCH_VOLTA, GPU_ARCH_TURING, GPU_ARCH_AMPERE, GPU_ARCH_ADA, GPU_ARCH_HOPPER,
	GPU_ARCH_BLACKWELL,
};

/* The architecture of a discrete GPU from its PCI device ID (vendor
 * 0x10de), or from its model name where sysfs has no PCI function for it;
 * GPU_ARCH_UNKNOWN when the table does not know it. */
int tables_gpu_arch_by_id(unsigned device_id);
int tables_gpu_arch_by_model(const char *model);

/* "Volta"; "unknown" for GPU_ARCH_UNKNOWN or a number out of range. */
const char *tables_arch_name(int arch);

/* The last driver branch that supports an architecture (Kepler 470;
 * Maxwell, Pascal, Volta 580); 0 while it is supported. */
int tables_arch_last_branch(int arch);

/* The first driver branch that supports CUDA `cuda` (13.1 -> 590): the
 * branch a compat package of that CUDA belongs to; 0 when it is newer than
 * the driver table. */
int tables_cuda_branch(int cuda);

#endif
