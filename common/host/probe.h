/* SPDX-License-Identifier: MIT */
/*
 * probe: what the host has — platform, SoC, L4T release, GPU, driver, and
 * the newest CUDA its driver supports.
 *
 * Reads only files under `root` (docs/design.md §4) and the nvgpu ioctl;
 * the GPU models only on a host with the nvidia kernel module.  Never
 * fails: what it cannot learn it leaves unknown and says why in `problem`;
 * the decision then keeps the system driver.
 */
#ifndef CUDALOAD_PROBE_H
#define CUDALOAD_PROBE_H

#include <stdbool.h>

#include "nvgpu.h"
#include "../base/sys.h"
#include "../base/version.h"
#include "visible.h"

enum platform { PLATFORM_NONE, PLATFORM_TEGRA, PLATFORM_DGPU };

#define MAX_DRIVER_DIRS 8
#define MAX_GPUS 8		/* discrete GPUs listed; more are counted */
#define DRIVER_DIR_MAX 512	/* longer driver directories are skipped, with a note */

enum arch_source { ARCH_FROM_NONE, ARCH_FROM_PCI, ARCH_FROM_MODEL };

/* One GPU of /proc/driver/nvidia/gpus/<bus>/information. */
struct dgpu {
	char bus[16];			/* "0000:01:00.0" */
	char model[64];			/* "NVIDIA H200" */
	/* Small types: eight of these sit in struct host on the start-up's
	 * stack, where a few bytes more can cost a page fault at every start. */
	unsigned short device_id;	/* PCI device ID (vendor 0x10de), 0 when
					 * sysfs has no PCI function for it */
	unsigned char brand;		/* NVML brand (tables_gpu_brand) */
	unsigned char arch;		/* enum gpu_arch (tables.h) */
	unsigned char arch_from;	/* enum arch_source: how arch was learnt */
	unsigned char named;		/* the CUDA_VISIBLE_DEVICES entries naming it
					 * (visible_names) */
	bool hidden;			/* the process cannot see it: not judged */
	short error;			/* 0, or why no model is known: the errno
					 * of its information file, ENODATA when
					 * it is empty or has no Model: line.  Such a GPU is
					 * of brand 0 (unknown), which may not
					 * support forward compatibility. */
};

struct host {
	enum platform platform;
	char soc[32];			/* "tegra234", or "" */
	char model[128];		/* device tree model, or "" */
	bool have_l4t;
	struct l4t_release l4t;
	char l4t_str[32];		/* "36.4.3", or "" */
	bool have_gpu;			/* nvgpu ioctl answered */
	struct gpu_info gpu;
	char gpu_problem[160];		/* why no GPU node answered, or "" */
	bool have_driver;		/* data-center kernel module version */
	struct driver_version driver;
	char driver_str[32];		/* "580.65.06", or "" */
	bool discrete_on_tegra;		/* a Tegra SoC driving a discrete GPU (IGX):
					 * a data-center-style host */
	struct dgpu gpus[MAX_GPUS];	/* discrete GPUs, by bus */
	int n_gpus;			/* all seen, even past MAX_GPUS */
	unsigned char visible;		/* enum visible_rule: which GPUs are judged */
	int unsupported_gpu;		/* 1 + index of a board without forward
					 * compatibility (GeForce ...), 0 none;
					 * these three of the GPUs judged */
	unsigned char ask_gpu;		/* 1 + index of a GPU only the driver can
					 * judge: a workstation board, or one whose
					 * architecture is unknown; 0 none */
	unsigned char retired_gpu;	/* 1 + index of the GPU whose architecture's
					 * last driver branch is the oldest (a V100:
					 * R580), 0 when every one is current */
	int cuda;			/* newest CUDA of the host driver; 0 unknown */
	/* As on the target; they point at string constants, the config's
	 * driver_dir values (which outlive the host) or l4t.lib_dir. */
	const char *driver_dirs[MAX_DRIVER_DIRS];
	int n_driver_dirs;
	int n_reached_dirs;		/* the last of them, added by reach.h: the
					 * same driver where a program reaches it */
	char problem[256];		/* why cuda is unknown, or "" */
};

const char *platform_name(enum platform p);

/* "tegra234" from /proc/device-tree/compatible (NUL-separated strings,
 * len bytes, the last one perhaps unterminated) into soc; "" if none. */
void probe_soc_from_compatible(const char *buf, size_t len, char *soc, size_t cap);

/* The model from the text of a GPU's information file ("Model: \t\t NVIDIA
 * H200\n...") into model; "" if none.  Also says whether the bus is PCI,
 * and its "GPU UUID:" into uuid (ucap bytes, or NULL): "" if none or not
 * whole (a driver may print it as GPU-????????-...). */
void probe_gpu_information(const char *text, char *model, size_t cap, bool *pci, char *uuid,
			   size_t ucap);

/* The GPUs of h the process sees (visible.h), of those the driver lists:
 * *seen their mask (by index in h->gpus), why for --explain. */
enum visible_rule probe_gpus_seen(const struct visible_ask *ask, const struct host *h,
				  unsigned *seen, char *why, size_t cap);

/* Keep judging only the GPUs of h in mask (by index in h->gpus); the
 * others stay listed, hidden.  What decides (unsupported_gpu, ask_gpu,
 * retired_gpu) is then of those kept. */
void probe_judge_gpus(struct host *h, unsigned mask);

/* Only the GPUs whose device minors (/proc/driver/nvidia/gpus/BUS/
 * information under root) are among minors (n of them) kept, and judged
 * again: a container's.  A GPU whose minor cannot be read is kept (the
 * stricter judgement), and past MAX_GPUS, where the list is not whole, all
 * are.  minors NULL: all. */
void probe_keep_minors(const char *root, struct host *h, const int *minors, int n);

/* Why a GPU's model is unknown ("information file: No such device"), for
 * reports; "" when it is known. */
const char *probe_gpu_problem(const struct dgpu *g, char *buf, size_t cap);

/* A GPU's architecture for people: "Volta, device 0x1db4, supported up to
 * driver branch R580", "Hopper, device 0x2335", "Volta (by its model name:
 * no PCI function in sysfs) ...", "architecture unknown (device 0x1234 is
 * not in cudaload's table): taken as current". */
const char *probe_gpu_arch_text(const struct dgpu *g, char *buf, size_t cap);

/* Can this be a Jetson?  On an aarch64 machine, or under a root (a test's
 * or an image's) on any: where the device tree is worth a look. */
bool probe_tegra_possible(const char *root);

/* extra_dirs: config driver_dir entries, appended when they exist.
 * details: also read what only reports show (the board model).
 * visible: the GPUs the process sees (NULL, or devices NULL: all). */
void probe_host(const char *root, const char *const *extra_dirs, int n_extra,
		bool details, const struct visible_ask *visible, struct host *out);

#endif
