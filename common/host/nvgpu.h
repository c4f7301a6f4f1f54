/* SPDX-License-Identifier: MIT */
/*
 * nvgpu: the Tegra GPU characteristics ioctl.
 *
 * NVGPU_GPU_IOCTL_GET_CHARACTERISTICS on /dev/nvhost-ctrl-gpu (legacy) or
 * /dev/nvgpu/igpu0/ctrl tells the GPU generation.  The request carries the
 * caller's buffer size; the driver copies at most that much of its struct,
 * which newer kernels extend at the end, and writes back its own size.  We
 * read only the leading fields every version has.  The device is reached
 * through the sys.h seam so tests can play any board.
 */
#ifndef CUDALOAD_NVGPU_H
#define CUDALOAD_NVGPU_H

#include <stdint.h>
#include <sys/ioctl.h>

/* Leading fields of struct nvgpu_gpu_characteristics (uapi nvgpu.h). */
struct nvgpu_chars_head {
	uint32_t arch;
	uint32_t impl;
	uint32_t rev;
	uint32_t num_gpc;
};

struct nvgpu_get_characteristics {
	uint64_t buf_size;
	uint64_t buf_addr;
};

#define NVGPU_GPU_IOCTL_GET_CHARACTERISTICS \
	_IOWR('G', 5, struct nvgpu_get_characteristics)

/* The space we offer the driver: more than any known struct version. */
#define NVGPU_CHARS_BUF 1024

/* arch values (arch | impl in the uapi) of the Jetson GPUs. */
#define NVGPU_ARCH_GM200 0x120	/* GM20B: Nano, TX1 */
#define NVGPU_ARCH_GP100 0x130	/* GP10B: TX2 */
#define NVGPU_ARCH_GV110 0x150	/* GV11B: Xavier */
#define NVGPU_ARCH_GA100 0x170	/* GA10B: Orin */

struct gpu_info {
	const char *node;	/* device node that answered; on failure the one
				 * that failed (NULL when none exists) */
	uint32_t arch, impl, rev;
};

/* Query the first node under root that answers.  0 on success; otherwise
 * -errno of the last failure in the order /dev/nvgpu/igpu0/ctrl,
 * /dev/nvhost-ctrl-gpu (-ENOENT when no node exists).  l4t_major, the release /etc/nv_tegra_release names (0 when
 * unknown), only sets the order the nodes are tried in: its own node first. */
int nvgpu_query(const char *root, int l4t_major, struct gpu_info *out);

/* SoC of a GPU arch ("tegra234" for GA10B), or NULL. */
const char *nvgpu_arch_soc(uint32_t arch);

#endif
