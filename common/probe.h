/* SPDX-License-Identifier: MIT */
/*
 * probe: what the host has — platform, SoC, L4T release, GPU, driver, and
 * the newest CUDA its driver supports.
 *
 * Reads only files under `root` (docs/design.md §4) and the nvgpu ioctl.  Never
 * fails: what it cannot learn it leaves unknown and says why in `problem`;
 * the decision then keeps the system driver.
 */
#ifndef CUDALOAD_PROBE_H
#define CUDALOAD_PROBE_H

#include <stdbool.h>

#include "nvgpu.h"
#include "sys.h"
#include "version.h"

enum platform { PLATFORM_NONE, PLATFORM_TEGRA, PLATFORM_DGPU };

#define MAX_DRIVER_DIRS 8
#define DRIVER_DIR_MAX 512	/* longer driver directories are skipped, with a note */

struct host {
	enum platform platform;
	char soc[32];			/* "tegra234", or "" */
	char model[128];		/* device tree model, or "" */
	bool have_l4t;
	struct l4t_release l4t;
	char l4t_str[32];		/* "36.4.3", or "" */
	bool have_gpu;			/* nvgpu ioctl answered */
	struct gpu_info gpu;
	char gpu_problem[96];		/* why no GPU node answered, or "" */
	bool have_driver;		/* data-center kernel module version */
	struct driver_version driver;
	char driver_str[32];		/* "580.65.06", or "" */
	int cuda;			/* newest CUDA of the host driver; 0 unknown */
	char driver_dirs[MAX_DRIVER_DIRS][DRIVER_DIR_MAX];	/* as on the target */
	int n_driver_dirs;
	char problem[256];		/* why cuda is unknown, or "" */
};

const char *platform_name(enum platform p);

/* "tegra234" from /proc/device-tree/compatible (NUL-separated strings,
 * len bytes, the last one perhaps unterminated) into soc; "" if none. */
void probe_soc_from_compatible(const char *buf, size_t len, char *soc, size_t cap);

/* extra_dirs: config driver_dir entries, appended when they exist.
 * details: also read what only reports show (the board model). */
void probe_host(const char *root, const char *const *extra_dirs, int n_extra,
		bool details, struct host *out);

#endif
