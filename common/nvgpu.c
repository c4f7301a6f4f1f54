/* SPDX-License-Identifier: MIT */
#include "nvgpu.h"

#include <errno.h>
#include <string.h>

#include "sys.h"

static const char *const nodes[] = {
	"/dev/nvgpu/igpu0/ctrl",
	"/dev/nvhost-ctrl-gpu",
};

int nvgpu_query(const char *root, struct gpu_info *out)
{
	int err = -ENOENT;

	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
		char path[CL_PATH_MAX];
		if (path_join(path, sizeof path, root, nodes[i]) < 0)
			return -ENAMETOOLONG;
		int fd = sys_gpu_open(path);
		if (fd < 0) {
			if (fd != -ENOENT || err == -ENOENT) {
				err = fd;
				if (fd != -ENOENT)
					out->node = nodes[i];
			}
			continue;
		}
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
		if (r < 0) {
			err = r;
			out->node = nodes[i];
			continue;
		}
		/* The driver reports its struct size; one too small to hold the
		 * leading fields is not a driver we understand. */
		if (req.buf_size < sizeof buf.head) {
			err = -EPROTO;
			out->node = nodes[i];
			continue;
		}
		out->node = nodes[i];
		out->arch = buf.head.arch;
		out->impl = buf.head.impl;
		out->rev = buf.head.rev;
		return 0;
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
