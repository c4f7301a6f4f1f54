/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include <errno.h>

#include "../../common/host/nvgpu.h"
#include "../../common/host/probe.h"
#include "../../common/host/tables.h"

static const char orin_compatible[] = "nvidia,p3737-0000+p3701-0005\0nvidia,p3701-0005\0nvidia,tegra234";

static char *orin_jp6(void)
{
	char *root = scratch_dir();
	put_file(root, "/proc/device-tree/compatible", orin_compatible, sizeof orin_compatible);
	put_file(root, "/proc/device-tree/model", "NVIDIA Jetson AGX Orin Developer Kit", 37);
	put_text(root, "/etc/nv_tegra_release",
		 "# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic, EABI: aarch64, DATE: Wed Jan  8 01:49:37 UTC 2025\n"
		 "# KERNEL_VARIANT: oot\nTARGET_USERSPACE_LIB_DIR=nvidia\n"
		 "TARGET_USERSPACE_LIB_DIR_PATH=usr/lib/aarch64-linux-gnu/nvidia\n");
	put_text(root, "/usr/lib/aarch64-linux-gnu/nvidia/libnvrm_gpu.so", "");
	return root;
}

Test(probe_happy, orin_jetpack6)
{
	char *root = orin_jp6();
	struct host h;
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert_eq(h.platform, PLATFORM_TEGRA);
	cr_assert_str_eq(h.soc, "tegra234");
	cr_assert_str_eq(h.model, "NVIDIA Jetson AGX Orin Developer Kit");
	cr_assert_str_eq(h.l4t_str, "36.4.3");
	cr_assert_eq(h.cuda, 12060);
	cr_assert_str_eq(h.problem, "");
	cr_assert_eq(h.n_driver_dirs, 1);
	cr_assert_str_eq(h.driver_dirs[0], "/usr/lib/aarch64-linux-gnu/nvidia");
	cr_assert(!h.have_gpu);
	cr_assert(strstr(h.gpu_problem, "no nvgpu device node") != NULL, "%s", h.gpu_problem);
	rm_rf(root);
	free(root);
}

Test(probe_happy, soc0_fallback_and_extra_dirs)
{
	char *root = scratch_dir();
	put_text(root, "/sys/devices/soc0/family", "Tegra\n");
	put_text(root, "/sys/devices/soc0/soc_id", "25\n");
	put_text(root, "/etc/nv_tegra_release", "# R35 (release), REVISION: 3.1, GCID: 32827747, BOARD: t186ref, EABI: aarch64\n");
	put_text(root, "/usr/lib/aarch64-linux-gnu/tegra/libnvrm_gpu.so", "");
	put_text(root, "/opt/drivers/x", "");
	const char *extra[] = { "/opt/drivers", "/not/there" };
	struct host h;
	probe_host(root, extra, 2, true, NULL, &h);
	cr_assert_str_eq(h.soc, "tegra194");
	cr_assert_eq(h.cuda, 11040);
	cr_assert_eq(h.n_driver_dirs, 2);
	cr_assert_str_eq(h.driver_dirs[0], "/usr/lib/aarch64-linux-gnu/tegra");
	cr_assert_str_eq(h.driver_dirs[1], "/opt/drivers");
	rm_rf(root);
	free(root);
}

static int orin_open(const char *path)
{
	return strstr(path, "/dev/nvgpu/igpu0/ctrl") ? 7 : -ENOENT;
}

static int orin_ioctl(int fd, unsigned long req, void *arg)
{
	(void)fd, (void)req;
	struct nvgpu_get_characteristics *r = arg;
	uint32_t head[4] = { 0x170, 0xB, 0, 1 };
	memcpy((void *)(uintptr_t)r->buf_addr, head, sizeof head);
	r->buf_size = 344;
	return 0;
}

static void no_close(int fd)
{
	(void)fd;
}

static int gpu_err;
static int err_ioctl(int fd, unsigned long req, void *arg)
{
	(void)fd, (void)req, (void)arg;
	return -gpu_err;
}

/* "gpu: Not a tty" told a user nothing. */
Test(probe_sad, gpu_problem_in_words)
{
	static const struct {
		int err;
		const char *words;
	} cases[] = {
		{ ENOTTY, "/dev/nvgpu/igpu0/ctrl did not answer the nvgpu characteristics query (not an nvgpu device)" },
		{ ENOSYS, "/dev/nvgpu/igpu0/ctrl did not answer the nvgpu characteristics query (not available here: an emulator?)" },
		{ EIO, "/dev/nvgpu/igpu0/ctrl could not be opened or queried (error 5)" },
	};
	char *root = orin_jp6();
	sys_gpu_open = orin_open;
	sys_gpu_ioctl = err_ioctl;
	sys_gpu_close = no_close;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct host h;
		gpu_err = cases[i].err;
		probe_host(root, NULL, 0, true, NULL, &h);
		cr_assert(!h.have_gpu);
		cr_assert_str_eq(h.gpu_problem, cases[i].words);
	}
	rm_rf(root);
	free(root);
}

Test(probe_happy, gpu_beats_device_tree)
{
	char *root = scratch_dir();
	/* a device tree that says Xavier on a GPU that is Orin */
	static const char xavier[] = "nvidia,p3668-0001\0nvidia,tegra194";
	put_file(root, "/proc/device-tree/compatible", xavier, sizeof xavier);
	put_text(root, "/etc/nv_tegra_release", "# R35 (release), REVISION: 4.1, GCID: 1\n");
	sys_gpu_open = orin_open;
	sys_gpu_ioctl = orin_ioctl;
	sys_gpu_close = no_close;
	struct host h;
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert(h.have_gpu);
	cr_assert_eq(h.gpu.arch, 0x170);
	cr_assert_str_eq(h.soc, "tegra234");
	rm_rf(root);
	free(root);
}

/* The release is read before the GPU is asked (it picks the node to try
 * first) but judged after: a device tree that names the wrong SoC does not
 * make a good release look foreign. */
Test(probe_happy, release_judged_after_the_gpu)
{
	char *root = scratch_dir();
	static const char nano[] = "nvidia,p3450-0000\0nvidia,tegra210";
	put_file(root, "/proc/device-tree/compatible", nano, sizeof nano);
	put_text(root, "/etc/nv_tegra_release",
		 "# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic, EABI: aarch64\n");
	sys_gpu_open = orin_open;
	sys_gpu_ioctl = orin_ioctl;
	sys_gpu_close = no_close;
	struct host h;
	probe_host(root, NULL, 0, false, NULL, &h);
	cr_assert_str_eq(h.soc, "tegra234");
	cr_assert(h.have_l4t, "%s", h.problem);
	cr_assert_eq(h.cuda, 12060);
	rm_rf(root);
	free(root);
}

Test(probe_happy, dgpu_sysfs_and_proc)
{
	char *root = scratch_dir();
	put_text(root, "/sys/module/nvidia/version", "580.65.06\n");
	struct host h;
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert_eq(h.platform, PLATFORM_DGPU);
	cr_assert_str_eq(h.driver_str, "580.65.06");
	cr_assert_eq(h.cuda, 13000);
	rm_rf(root);
	free(root);

	root = scratch_dir();
	put_text(root, "/proc/driver/nvidia/version",
		 "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.57.08  Release Build  (dvs-builder@U16)\n");
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert_eq(h.platform, PLATFORM_DGPU);
	cr_assert_eq(h.driver.major, 575);
	cr_assert_eq(h.cuda, 12090);
	rm_rf(root);
	free(root);
}

static const char h200_info[] =
	"Model: \t\t NVIDIA H200\nIRQ:   \t\t 41\nGPU UUID: \t GPU-b067fc2f-5eab-5f19-ef1f-ed68c63b1d11\n"
	"Video BIOS: \t 96.00.a5.00.1a\nBus Type: \t PCIe\nDMA Size: \t 52 bits\n"
	"DMA Mask: \t 0xfffffffffffff\nBus Location: \t 0000:00:06.0\nDevice Minor: \t 0\n"
	"GPU Firmware: \t 580.159.04\nGPU Excluded:\t No\n";

static void put_gpu(const char *root, const char *bus, const char *model)
{
	char rel[128], text[sizeof h200_info + 64];
	snprintf(rel, sizeof rel, "/proc/driver/nvidia/gpus/%s/information", bus);
	snprintf(text, sizeof text, "Model: \t\t %s\n%s", model, strchr(h200_info, '\n') + 1);
	put_text(root, rel, text);
}

Test(probe_happy, gpu_information)
{
	char model[64];
	bool pci;
	probe_gpu_information(h200_info, model, sizeof model, &pci, NULL, 0);
	cr_assert_str_eq(model, "NVIDIA H200");
	cr_assert(pci);
	probe_gpu_information("Model: \t\t NVIDIA GeForce RTX 4090   \nBus Type: \t AXI\n", model, sizeof model, &pci, NULL, 0);
	cr_assert_str_eq(model, "NVIDIA GeForce RTX 4090");
	cr_assert(!pci);
	probe_gpu_information("IRQ: 1\n", model, sizeof model, &pci, NULL, 0);
	cr_assert_str_eq(model, "");
	probe_gpu_information("Model:", model, sizeof model, &pci, NULL, 0);
	cr_assert_str_eq(model, "");
}

/* Any GeForce, TITAN or NVS board on the host means 804. */
Test(probe_happy, dgpu_models)
{
	char *root = scratch_dir();
	put_text(root, "/sys/module/nvidia/version", "580.159.04\n");
	put_gpu(root, "0000:41:00.0", "NVIDIA GeForce RTX 4090");
	put_gpu(root, "0000:01:00.0", "NVIDIA H100 80GB HBM3");
	struct host h;
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert_eq(h.platform, PLATFORM_DGPU);
	cr_assert_eq(h.n_gpus, 2);
	cr_assert_str_eq(h.gpus[0].bus, "0000:01:00.0");
	cr_assert_str_eq(h.gpus[0].model, "NVIDIA H100 80GB HBM3");
	cr_assert_eq(h.gpus[1].brand, 15);
	cr_assert_eq(h.unsupported_gpu, 2);
	rm_rf(root);
	free(root);
}

/* A GPU whose information file says nothing (a directory, a
 * dangling link, no Model: line) counts, as one that may not support
 * forward compatibility; it was left out and compat chosen. */
Test(probe_sad, unidentified_gpu_counts)
{
	char *root = scratch_dir();
	char p[4200];
	put_text(root, "/sys/module/nvidia/version", "570.124.06\n");
	put_gpu(root, "0000:01:00.0", "NVIDIA H100 80GB HBM3");
	snprintf(p, sizeof p, "%s/proc/driver/nvidia/gpus/0000:02:00.0/information", root);
	mkdirs(p);
	struct host h;
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert_eq(h.n_gpus, 2);
	cr_assert_eq(h.gpus[1].error, EISDIR);
	cr_assert_eq(h.gpus[1].brand, 0);
	cr_assert_eq(h.unsupported_gpu, 2);
	char why[80];
	cr_assert_str_eq(probe_gpu_problem(&h.gpus[1], why, sizeof why), "information file: Is a directory");
	cr_assert_str_eq(probe_gpu_problem(&h.gpus[0], why, sizeof why), "");

	rm_rf(p);
	cr_assert_eq(symlink("nowhere", p), 0);
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert_eq(h.gpus[1].error, ENOENT);
	cr_assert_eq(h.unsupported_gpu, 2);
	unlink(p);
	put_text(root, "/proc/driver/nvidia/gpus/0000:02:00.0/information", "IRQ: 41\n");
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert_eq(h.gpus[1].error, ENODATA);
	cr_assert_eq(h.unsupported_gpu, 2);
	rm_rf(root);
	free(root);
}

/* IGX Orin driving a discrete GPU is a data-center-style host;
 * Thor's OpenRM iGPU (also a module named nvidia) is not. */
Test(probe_happy, igx_discrete_gpu)
{
	char *root = orin_jp6();
	put_text(root, "/sys/module/nvidia/version", "535.113.01\n");
	put_gpu(root, "0005:01:00.0", "NVIDIA RTX 6000 Ada Generation");
	struct host h;
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert_eq(h.platform, PLATFORM_DGPU);
	cr_assert(h.discrete_on_tegra);
	cr_assert_str_eq(h.soc, "tegra234");
	cr_assert_eq(h.cuda, 12020);
	cr_assert_eq(h.n_gpus, 1);
	cr_assert_eq(h.unsupported_gpu, 0);
	rm_rf(root);
	free(root);

	static const char thor_compatible[] = "nvidia,p3971-0080+p3834-0008\0nvidia,tegra264";
	root = scratch_dir();
	put_file(root, "/proc/device-tree/compatible", thor_compatible, sizeof thor_compatible);
	put_text(root, "/etc/nv_tegra_release", "# R39 (release), REVISION: 0.0, GCID: 0, BOARD: generic, EABI: aarch64\n");
	put_text(root, "/sys/module/nvidia/version", "580.00\n");
	put_gpu(root, "0000:01:00.0", "NVIDIA Thor");
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert_eq(h.platform, PLATFORM_TEGRA);
	cr_assert(!h.discrete_on_tegra);
	cr_assert_eq(h.cuda, 13020);
	rm_rf(root);
	free(root);
}

/* JetPack 7.2 (r39.2) on Orin loads the nvidia module for display;
 * /run/nvidia-gpu-driver-active names the driver CUDA runs on.  Orin stays
 * a Tegra; Thor's OpenRM version is read (the 803 rule needs it). */
Test(probe_happy, r39_active_driver)
{
	static const char r39_orin[] = "nvidia,p3701-0005\0nvidia,tegra234";
	static const char release[] = "# R39 (release), REVISION: 2.0, GCID: 0, BOARD: generic, EABI: aarch64\n";
	char *root = scratch_dir();
	put_file(root, "/proc/device-tree/compatible", r39_orin, sizeof r39_orin);
	put_text(root, "/etc/nv_tegra_release", release);
	put_text(root, "/sys/module/nvidia/version", "595.78.00\n");
	put_text(root, "/run/nvidia-gpu-driver-active", "nvgpu-l4t\n");
	put_text(root, "/opt/nvidia/l4t-gpu-libs/nvgpu/libcuda.so.1", "");
	put_text(root, "/opt/nvidia/l4t-gpu-libs/openrm/libcuda.so.1", "");
	struct host h;
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert_eq(h.platform, PLATFORM_TEGRA);
	cr_assert(!h.discrete_on_tegra);
	cr_assert(!h.have_driver, "Orin's display module is not its CUDA driver");
	cr_assert_eq(h.cuda, 13020);
	cr_assert_eq(h.n_driver_dirs, 1);
	cr_assert_str_eq(h.driver_dirs[0], "/opt/nvidia/l4t-gpu-libs/nvgpu");

	/* the file wins over the SoC; a word it does not know leaves the SoC's */
	put_text(root, "/run/nvidia-gpu-driver-active", "openrm-l4t\n");
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert_str_eq(h.driver_dirs[0], "/opt/nvidia/l4t-gpu-libs/openrm");
	put_text(root, "/run/nvidia-gpu-driver-active", "something-else\n");
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert_str_eq(h.driver_dirs[0], "/opt/nvidia/l4t-gpu-libs/nvgpu");
	rm_rf(root);
	free(root);

	static const char thor_compatible[] = "nvidia,p3834-0008\0nvidia,tegra264";
	root = scratch_dir();
	put_file(root, "/proc/device-tree/compatible", thor_compatible, sizeof thor_compatible);
	put_text(root, "/etc/nv_tegra_release", release);
	put_text(root, "/sys/module/nvidia/version", "595.78.00\n");
	put_text(root, "/opt/nvidia/l4t-gpu-libs/openrm/libcuda.so.1", "");
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert_eq(h.platform, PLATFORM_TEGRA);
	cr_assert(h.have_driver);
	cr_assert_str_eq(h.driver_str, "595.78.00");
	cr_assert_str_eq(h.driver_dirs[0], "/opt/nvidia/l4t-gpu-libs/openrm");
	/* an unreadable version leaves no problem: the application note's rules */
	put_text(root, "/sys/module/nvidia/version", "garbage\n");
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert(!h.have_driver);
	cr_assert_str_eq(h.problem, "");
	cr_assert_eq(h.cuda, 13020);
	rm_rf(root);
	free(root);
}

Test(probe_sad, driver_branch_newer_than_the_table)
{
	char *root = scratch_dir();
	put_text(root, "/sys/module/nvidia/version", "625.10.01\n");
	struct host h;
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert_eq(h.platform, PLATFORM_DGPU);
	cr_assert_eq(h.cuda, 0);
	cr_assert(strstr(h.problem, "branch 625 is newer than the driver table (last row 620)") != NULL, "%s", h.problem);
	rm_rf(root);
	free(root);
}

Test(probe_sad, nothing_there)
{
	char *root = scratch_dir();
	struct host h;
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert_eq(h.platform, PLATFORM_NONE);
	cr_assert_eq(h.cuda, 0);
	cr_assert(strstr(h.problem, "no NVIDIA GPU") != NULL);
	rm_rf(root);
	free(root);
}

Test(probe_sad, bad_release_files)
{
	static const struct {
		const char *text, *problem;
	} cases[] = {
		{ "garbage\n", "first line is not" },
		{ "# R36 (release)\n", "first line is not" },
		{ "", "first line is not" },
		{ "# R32 (release), REVISION: 7.1, GCID: 1\n", "does not run on tegra234" },
		{ "# R37 (release), REVISION: 0.0\n", "not in the table of releases" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *root = scratch_dir();
		put_file(root, "/proc/device-tree/compatible", orin_compatible, sizeof orin_compatible);
		put_text(root, "/etc/nv_tegra_release", cases[i].text);
		struct host h;
		probe_host(root, NULL, 0, true, NULL, &h);
		cr_assert_eq(h.platform, PLATFORM_TEGRA);
		cr_assert_eq(h.cuda, 0, "case %zu", i);
		cr_assert(strstr(h.problem, cases[i].problem) != NULL, "case %zu: %s", i, h.problem);
		rm_rf(root);
		free(root);
	}
}

Test(probe_sad, release_is_a_directory_or_missing_or_unreadable)
{
	char *root = scratch_dir();
	put_file(root, "/proc/device-tree/compatible", orin_compatible, sizeof orin_compatible);
	struct host h;
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert(strstr(h.problem, "No such file") != NULL, "%s", h.problem);

	char path[4200];
	snprintf(path, sizeof path, "%s/etc/nv_tegra_release", root);
	mkdirs(path);
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert(strstr(h.problem, "Is a directory") != NULL, "%s", h.problem);
	rmdir(path);

	if (geteuid() != 0) {
		put_text(root, "/etc/nv_tegra_release", "# R36 (release), REVISION: 4.3\n");
		chmod(path, 0);
		probe_host(root, NULL, 0, true, NULL, &h);
		cr_assert(strstr(h.problem, "Permission denied") != NULL, "%s", h.problem);
	}
	rm_rf(root);
	free(root);
}

Test(probe_sad, endless_release_file)
{
	char *root = scratch_dir();
	put_file(root, "/proc/device-tree/compatible", orin_compatible, sizeof orin_compatible);
	char etc[4200], link[4200];
	snprintf(etc, sizeof etc, "%s/etc", root);
	mkdirs(etc);
	snprintf(link, sizeof link, "%s/etc/nv_tegra_release", root);
	cr_assert_eq(symlink("/dev/zero", link), 0);
	struct host h;
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert_eq(h.cuda, 0);
	cr_assert(strstr(h.problem, "first line is not") != NULL, "%s", h.problem);
	rm_rf(root);
	free(root);
}

Test(probe_sad, overlong_root)
{
	char root[5000];
	memset(root, 'r', sizeof root - 1);
	root[0] = '/';
	root[sizeof root - 1] = '\0';
	struct host h;
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert_eq(h.platform, PLATFORM_NONE);
}

Test(probe_sad, compatible_edge_cases)
{
	char soc[32];
	probe_soc_from_compatible("nvidia,tegra234", 15, soc, sizeof soc);
	cr_assert_str_eq(soc, "tegra234", "the last string may lack its NUL");
	probe_soc_from_compatible("nvidia,tegra", 12, soc, sizeof soc);
	cr_assert_str_eq(soc, "", "a prefix alone is no SoC");
	probe_soc_from_compatible("", 0, soc, sizeof soc);
	cr_assert_str_eq(soc, "");
	char longsoc[80] = "nvidia,tegra";
	memset(longsoc + 12, '9', 60);
	probe_soc_from_compatible(longsoc, sizeof longsoc, soc, sizeof soc);
	cr_assert_str_eq(soc, "", "too long for the field: ignored");
	probe_soc_from_compatible("a\0\0nvidia,tegra194\0", 19, soc, 4);
	cr_assert_str_eq(soc, "", "does not fit a small buffer");
}

/* Each GPU's architecture from its PCI function in sysfs, else
 * from its model name; an ID the table does not know is current. */
static void put_pci(const char *root, const char *bus, const char *vendor, const char *device)
{
	char rel[128];
	snprintf(rel, sizeof rel, "/sys/bus/pci/devices/%s/vendor", bus);
	put_text(root, rel, vendor);
	snprintf(rel, sizeof rel, "/sys/bus/pci/devices/%s/device", bus);
	put_text(root, rel, device);
}

Test(probe_happy, gpu_architectures)
{
	char *root = scratch_dir(), text[160];
	put_text(root, "/sys/module/nvidia/version", "535.261.03\n");
	put_gpu(root, "0000:01:00.0", "NVIDIA H100 80GB HBM3");
	put_pci(root, "0000:01:00.0", "0x10de\n", "0x2330\n");
	put_gpu(root, "0000:02:00.0", "Tesla V100-SXM2-16GB");	/* no sysfs: by its name */
	put_gpu(root, "0000:03:00.0", "Tesla P100-PCIE-16GB");
	put_pci(root, "0000:03:00.0", "0x10de\n", "0x15f8\n");
	put_gpu(root, "0000:04:00.0", "NVIDIA Future GPU");
	put_pci(root, "0000:04:00.0", "0x10de\n", "0x3fff\n");
	put_gpu(root, "0000:05:00.0", "Tesla K80");
	put_pci(root, "0000:05:00.0", "0x8086\n", "0x15f8\n");	/* not NVIDIA's: ignored */
	struct host h;
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert_eq(h.n_gpus, 5);
	cr_assert_eq(h.gpus[0].arch, GPU_ARCH_HOPPER);
	cr_assert_eq(h.gpus[0].device_id, 0x2330);
	cr_assert_str_eq(probe_gpu_arch_text(&h.gpus[0], text, sizeof text), "Hopper, device 0x2330");
	cr_assert_eq(h.gpus[1].arch, GPU_ARCH_VOLTA);
	cr_assert_eq(h.gpus[1].arch_from, ARCH_FROM_MODEL);
	cr_assert_str_eq(probe_gpu_arch_text(&h.gpus[1], text, sizeof text),
			 "Volta (by its model name: no PCI function in sysfs), supported up to driver branch R580");
	cr_assert_eq(h.gpus[2].arch, GPU_ARCH_PASCAL);
	cr_assert_eq(h.gpus[3].arch, GPU_ARCH_UNKNOWN);
	cr_assert_str_eq(probe_gpu_arch_text(&h.gpus[3], text, sizeof text),
			 "architecture unknown (device 0x3fff is not in cudaload's table): taken as current");
	cr_assert_eq(h.gpus[4].device_id, 0);
	cr_assert_eq(h.gpus[4].arch, GPU_ARCH_KEPLER);
	cr_assert_eq(h.retired_gpu, 5, "the K80 ends at R470, before the others' R580");
	rm_rf(root);
	free(root);
}

Test(probe_sad, gpu_pci_files_damaged)
{
	char *root = scratch_dir();
	put_text(root, "/sys/module/nvidia/version", "535.261.03\n");
	put_gpu(root, "0000:01:00.0", "NVIDIA Future GPU");
	put_pci(root, "0000:01:00.0", "0x10de\n", "0x123456789\n");
	struct host h;
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert_eq(h.gpus[0].device_id, 0);
	cr_assert_eq(h.gpus[0].arch, GPU_ARCH_UNKNOWN);
	cr_assert_eq(h.retired_gpu, 0);
	rm_rf(root);
	free(root);
}

/* Judged on the GPUs the process sees: a GeForce beside an H100 refuses
 * nothing for a process that sees the H100 alone (visible.h). */
Test(probe_happy, visible_gpus)
{
	char *root = scratch_dir();
	put_text(root, "/sys/module/nvidia/version", "580.159.04\n");
	put_text(root, "/proc/driver/nvidia/gpus/0000:01:00.0/information",
		 "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ: \t\t 41\n"
		 "GPU UUID: \t GPU-5d8a6e2c-1f0b-4c93-9a7e-2b64c1d0e8f3\nBus Type: \t PCIe\n");
	put_text(root, "/proc/driver/nvidia/gpus/0000:41:00.0/information",
		 "Model: \t\t NVIDIA GeForce RTX 4090\nIRQ: \t\t 42\n"
		 "GPU UUID: \t GPU-\?\?\?\?\?\?\?\?-\?\?\?\?-\?\?\?\?-\?\?\?\?-\?\?\?\?\?\?\?\?\?\?\?\?\nBus Type: \t PCIe\n");
	struct host h;
	struct visible_ask ask = { "GPU-5d8a", false };
	probe_host(root, NULL, 0, true, &ask, &h);
	cr_assert_eq(h.visible, VISIBLE_NAMED);
	cr_assert(!h.gpus[0].hidden);
	cr_assert(!h.gpus[1].hidden, "a GPU whose UUID the driver hides is taken as named");
	cr_assert_eq(h.unsupported_gpu, 2);

	put_text(root, "/proc/driver/nvidia/gpus/0000:41:00.0/information",
		 "Model: \t\t NVIDIA GeForce RTX 4090\nIRQ: \t\t 42\n"
		 "GPU UUID: \t GPU-1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901\nBus Type: \t PCIe\n");
	probe_host(root, NULL, 0, true, &ask, &h);
	cr_assert(h.gpus[1].hidden);
	cr_assert_eq(h.unsupported_gpu, 0, "the GeForce is not seen");
	ask.devices = "1";
	ask.pci_order = true;
	probe_host(root, NULL, 0, true, &ask, &h);
	cr_assert(h.gpus[0].hidden);
	cr_assert_eq(h.unsupported_gpu, 2);
	ask.devices = "";
	probe_host(root, NULL, 0, true, &ask, &h);
	cr_assert_eq(h.visible, VISIBLE_NONE);
	cr_assert_eq(h.unsupported_gpu, 0);
	probe_host(root, NULL, 0, true, NULL, &h);
	cr_assert_eq(h.visible, VISIBLE_UNSET);
	cr_assert_eq(h.unsupported_gpu, 2);
	rm_rf(root);
	free(root);
}
