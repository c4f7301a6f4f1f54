/* SPDX-License-Identifier: MIT */
#include "probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "tables.h"

const char *platform_name(enum platform p)
{
	switch (p) {
	case PLATFORM_TEGRA: return "tegra";
	case PLATFORM_DGPU: return "dgpu";
	default: return "none";
	}
}

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\0'))
		s[--n] = '\0';
}

void probe_soc_from_compatible(const char *buf, size_t len, char *soc, size_t cap)
{
	if (cap)
		soc[0] = '\0';
	for (size_t i = 0; i < len;) {
		const char *s = buf + i;
		size_t n = strnlen(s, len - i);	/* the last string may lack its NUL */
		if (n > 12 && strncmp(s, "nvidia,tegra", 12) == 0 && n - 7 < cap) {
			memcpy(soc, s + 7, n - 7);
			soc[n - 7] = '\0';
			return;
		}
		i += n + 1;
	}
}

static const char *soc_from_id(long id)
{
	switch (id) {
	case 0x21: return "tegra210";
	case 0x18: return "tegra186";
	case 0x19: return "tegra194";
	case 0x23: return "tegra234";
	case 0x26: return "tegra264";
	default: return NULL;	/* 0x24 is Grace (T241), not a Jetson */
	}
}

static void probe_soc(const char *root, bool details, struct host *h)
{
	char buf[1024];
	ssize_t n = read_small(root, "/proc/device-tree/compatible", buf, sizeof buf);
	if (n > 0)
		probe_soc_from_compatible(buf, (size_t)n, h->soc, sizeof h->soc);
	if (details && read_small(root, "/proc/device-tree/model", h->model, sizeof h->model) > 0)
		trim(h->model);

	if (!h->soc[0] && read_small(root, "/sys/devices/soc0/family", buf, sizeof buf) > 0 &&
	    strncmp(buf, "Tegra", 5) == 0 &&
	    read_small(root, "/sys/devices/soc0/soc_id", buf, sizeof buf) > 0) {
		const char *soc = soc_from_id(strtol(buf, NULL, 10));
		if (soc)
			snprintf(h->soc, sizeof h->soc, "%s", soc);
	}
}

static void add_dir(struct host *h, const char *root, const char *dir)
{
	for (int i = 0; i < h->n_driver_dirs; i++)
		if (strcmp(h->driver_dirs[i], dir) == 0)
			return;
	if (strlen(dir) >= DRIVER_DIR_MAX) {
		diag("driver dir %.60s...: longer than %d bytes, skipped", dir, DRIVER_DIR_MAX);
		return;
	}
	if (h->n_driver_dirs >= MAX_DRIVER_DIRS || !rooted_is_dir(root, dir))
		return;
	snprintf(h->driver_dirs[h->n_driver_dirs++], DRIVER_DIR_MAX, "%s", dir);
	diag("driver dir %s", dir);
}

static void probe_tegra(const char *root, struct host *h)
{
	char buf[2048];

	int g = nvgpu_query(root, &h->gpu);
	if (g == 0) {
		h->have_gpu = true;
		diag("gpu %s: arch 0x%x impl 0x%x rev 0x%x", h->gpu.node,
		     (unsigned)h->gpu.arch, (unsigned)h->gpu.impl, (unsigned)h->gpu.rev);
		/* The GPU itself is better evidence than the device tree. */
		const char *soc = nvgpu_arch_soc(h->gpu.arch);
		if (soc && strcmp(soc, h->soc) != 0) {
			diag("gpu says %s, device tree says %s: using %s", soc,
			     h->soc[0] ? h->soc : "nothing", soc);
			snprintf(h->soc, sizeof h->soc, "%s", soc);
		}
	} else {
		snprintf(h->gpu_problem, sizeof h->gpu_problem, "no GPU node answered: %s",
			 strerror(-g));
		diag("%s (CUDA needs one; device tree used)", h->gpu_problem);
	}

	ssize_t n = read_small(root, "/etc/nv_tegra_release", buf, sizeof buf);
	if (n < 0) {
		snprintf(h->problem, sizeof h->problem, "/etc/nv_tegra_release: %s",
			 strerror((int)-n));
	} else if (l4t_parse(buf, &h->l4t) < 0) {
		snprintf(h->problem, sizeof h->problem,
			 "/etc/nv_tegra_release: first line is not '# R<n> (release), REVISION: <x.y>, ...'");
	} else if (h->soc[0] && !tables_l4t_runs_on(h->l4t.major, h->soc)) {
		/* In a container the file may come from the image: the kernel wins. */
		snprintf(h->problem, sizeof h->problem,
			 "/etc/nv_tegra_release says r%d, which does not run on %s (file from a container image?)",
			 h->l4t.major, h->soc);
	} else {
		h->have_l4t = true;
		snprintf(h->l4t_str, sizeof h->l4t_str, "%d.%d.%d", h->l4t.major,
			 h->l4t.minor, h->l4t.patch);
		h->cuda = tables_l4t_cuda(h->l4t.major, h->l4t.minor);
		if (!h->cuda)
			snprintf(h->problem, sizeof h->problem,
				 "L4T r%s is not in the table of releases", h->l4t_str);
	}
	if (h->problem[0])
		diag("%s", h->problem);
	else
		diag("L4T r%s", h->l4t_str);

	/* Driver libraries the compat libcuda needs (libnvrm_gpu.so, ...). */
	if (h->l4t.lib_dir[0]) {
		char dir[300];
		snprintf(dir, sizeof dir, "/%s", h->l4t.lib_dir);
		add_dir(h, root, dir);
	}
	if (h->have_l4t && h->l4t.major >= 39) {
		add_dir(h, root, strcmp(h->soc, "tegra234") == 0
					 ? "/opt/nvidia/l4t-gpu-libs/nvgpu"
					 : "/opt/nvidia/l4t-gpu-libs/openrm");
	}
	if (h->have_l4t && h->l4t.major >= 36)
		add_dir(h, root, "/usr/lib/aarch64-linux-gnu/nvidia");
	add_dir(h, root, "/usr/lib/aarch64-linux-gnu/tegra");
	add_dir(h, root, "/run/opengl-driver/lib");	/* NixOS */
}

static void probe_dgpu(const char *root, struct host *h)
{
	char buf[512];
	if (read_small(root, "/sys/module/nvidia/version", buf, sizeof buf) > 0 &&
	    driver_parse(buf, &h->driver) == 0) {
		h->have_driver = true;
	} else if (read_small(root, "/proc/driver/nvidia/version", buf, sizeof buf) > 0) {
		if (nvrm_parse(buf, &h->driver) == 0)
			h->have_driver = true;
		else
			snprintf(h->problem, sizeof h->problem,
				 "/proc/driver/nvidia/version: no driver version on its first line");
	}
	if (!h->have_driver)
		return;
	h->platform = PLATFORM_DGPU;
	if (h->driver.patch >= 0)
		snprintf(h->driver_str, sizeof h->driver_str, "%d.%d.%02d", h->driver.major,
			 h->driver.minor, h->driver.patch);
	else
		snprintf(h->driver_str, sizeof h->driver_str, "%d.%d", h->driver.major,
			 h->driver.minor);
	h->cuda = tables_branch_cuda(h->driver.major);
	if (!h->cuda)
		snprintf(h->problem, sizeof h->problem,
			 "driver branch %d is older than any in the table", h->driver.major);
	diag("driver %s (branch %d)", h->driver_str, h->driver.major);
	add_dir(h, root, "/run/opengl-driver/lib");	/* NixOS */
}

/* Every Tegra is an ARM SoC: an x86_64 machine's own root has none to read
 * (a fixture root, CUDALOAD_ROOT, may be anything). */
static bool tegra_possible(const char *root)
{
#if defined(__x86_64__)
	return root && root[0] && strcmp(root, "/") != 0;
#else
	(void)root;
	return true;
#endif
}

void probe_host(const char *root, const char *const *extra_dirs, int n_extra,
		bool details, struct host *h)
{
	memset(h, 0, sizeof *h);

	/* Tegra first: JetPack 6+ also loads a kernel module named nvidia. */
	if (tegra_possible(root))
		probe_soc(root, details, h);
	if (h->soc[0]) {
		h->platform = PLATFORM_TEGRA;
		diag("tegra soc %s%s%s", h->soc, h->model[0] ? ", model " : "", h->model);
		probe_tegra(root, h);
	} else {
		probe_dgpu(root, h);
		if (h->platform == PLATFORM_NONE && !h->problem[0])
			snprintf(h->problem, sizeof h->problem,
				 "no NVIDIA GPU found (no Tegra SoC, no nvidia kernel module)");
		if (h->problem[0])
			diag("%s", h->problem);
	}
	for (int i = 0; i < n_extra; i++)
		add_dir(h, root, extra_dirs[i]);
}
