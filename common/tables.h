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

/* CUDA bundled with an L4T release; 0 if the release is unknown. */
int tables_l4t_cuda(int l4t_major, int l4t_minor);

/* Newest CUDA a data-center driver branch supports; 0 if unknown. */
int tables_branch_cuda(int branch);

/* Does NVIDIA support compat CUDA `cuda` on L4T release `l4t_major`?
 * 1 yes, 0 no, -1 the release is not in the table. */
int tables_jetson_compat(int l4t_major, int cuda);

/* Newest compat CUDA NVIDIA supports on a data-center host branch when the
 * compat libcuda carries no note; 0 if the branch is not supported. */
int tables_dgpu_compat_max(int branch);

/* Does L4T release `l4t_major` run on SoC `soc` ("tegra234")?  Used to spot
 * a release file that came from a container image, not from the host. */
bool tables_l4t_runs_on(int l4t_major, const char *soc);

/* Marketing name of a Tegra SoC ("Orin") or NULL. */
const char *tables_soc_name(const char *soc);

#endif
