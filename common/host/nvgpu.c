/* SPDX-License-Identifier: MIT */
#include "nvgpu.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "../base/sys.h"

static const char *const nodes[] = {
	"/dev/nvgpu/igpu0/ctrl",
	"/dev/nvhost-ctrl-gpu",
};
#define N_NODES (sizeof nodes / sizeof nodes[0])

/* Open one node and ask it.  0, or -errno; *opened says whether the
 * failure came after the open. */
static int ask(const char *root, const char *node, struct gpu_info *out, bool *opened)
{
	char *path = root_path(root, node);
	*opened = false;
	if (!path)
		return -ENOMEM;
	int fd = sys_gpu_open(path);
	root_path_free(path, node);
	if (fd < 0)
		return fd;
	*opened = true;
	union {
		unsigned char bytes[NVGPU_CHARS_BUF];
		struct nvgpu_chars_head head;
	} buf;
	memset(&buf, 0, sizeof buf);
	struct nvgpu_get_characteristics req = {
		.buf_size = sizeof buf,
		.buf_addr = (uint64_t)(uintptr_t)&buf,
	};
	int r = sys_gpu_ioctl(fd, NVGPU_GPU_IOCTL_GET_CHARACTERISTICS, &req);
	sys_gpu_close(fd);
	if (r < 0)
		return r;
	/* The driver reports its struct size; one too small to hold the
	 * leading fields is not a driver we understand. */
	if (req.buf_size < sizeof buf.head)
		return -EPROTO;
	out->arch = buf.head.arch;
	out->impl = buf.head.impl;
	out->rev = buf.head.rev;
	return 0;
}

int nvgpu_query(const char *root, int l4t_major, struct gpu_info *out)
{
	int res[N_NODES];
	bool opened[N_NODES];
	size_t rl = root ? strlen(root) : 0;

	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < N_NODES; i++)
		if (rl + strlen(nodes[i]) + 1 > CL_PATH_MAX)
			return -ENAMETOOLONG;
	/* JetPack 4 and 5 (r35 and older) have the legacy node, JetPack 6 and
	 * later the new one: asking the release's node first saves a failed
	 * open.  Only the order changes. */
	bool legacy_first = l4t_major > 0 && l4t_major <= 35;
	for (size_t k = 0; k < N_NODES; k++) {
		size_t i = legacy_first ? N_NODES - 1 - k : k;
		res[i] = ask(root, nodes[i], out, &opened[i]);
		if (res[i] == 0) {
			out->node = nodes[i];
			return 0;
		}
	}
	/* None answered.  The failure reported does not depend on the order:
	 * the last one in the usual order, where a node that does not exist
	 * gives way to any other failure. */
	int err = -ENOENT;
	for (size_t i = 0; i < N_NODES; i++) {
		if (opened[i] || res[i] != -ENOENT) {
			err = res[i];
			out->node = nodes[i];
		}
	}
	return err;
}

const char *nvgpu_arch_soc(uint32_t arch)
{
	switch (arch) {
	case NVGPU_ARCH_GM200: return "tegra210";
	case NVGPU_ARCH_GP100: return "tegra186";
	case NVGPU_ARCH_GV110: return "tegra194";
	case NVGPU_ARCH_GA100: return "tegra234";
	default: return NULL;
	}
}
