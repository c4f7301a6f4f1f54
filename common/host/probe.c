/* SPDX-License-Identifier: MIT */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../base/diag.h"
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

/* Why the nvgpu query did not answer, in words (never a bare errno text:
 * a fixture's plain file says "Not a tty", which tells a user nothing). */
static void gpu_problem_words(int err, const char *node, char *out, size_t cap)
{
	if (!node || err == -ENOENT)
		snprintf(out, cap, "no nvgpu device node (/dev/nvgpu/igpu0/ctrl, /dev/nvhost-ctrl-gpu)");
	else if (err == -EACCES || err == -EPERM)
		snprintf(out, cap, "%s: no permission to open it (CUDA needs it too)", node);
	else if (err == -ENOTTY || err == -EINVAL || err == -EPROTO)
		snprintf(out, cap, "%s did not answer the nvgpu characteristics query (not an nvgpu device)",
			 node);
	else if (err == -ENOSYS)
		snprintf(out, cap, "%s did not answer the nvgpu characteristics query (not available here: an emulator?)",
			 node);
	else
		snprintf(out, cap, "%s could not be opened or queried (error %d)", node, -err);
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
	if (h->n_driver_dirs >= MAX_DRIVER_DIRS || !root_is_dir(root, dir))
		return;
	h->driver_dirs[h->n_driver_dirs++] = dir;
	diag("driver dir %s", dir);
}

/* /etc/nv_tegra_release, whose first line names the release.  Read before
 * the GPU is asked (the release tells which device node it has) and judged
 * after (the GPU may correct the SoC the release must run on).  0, 1 when
 * the first line is not a release line, or -errno. */
static int read_release(const char *root, struct host *h)
{
	/* on the heap: a frame this size would cost its stack page at every start */
	enum { CAP = 2048 };
	char *buf = malloc(CAP);
	if (!buf)
		return -ENOMEM;
	ssize_t n = read_small(root, "/etc/nv_tegra_release", buf, CAP);
	int r = n < 0 ? (int)n : l4t_release_parse(buf, &h->l4t) < 0 ? 1 : 0;
	free(buf);
	return r;
}

/* The nvidia kernel module's version: 0, or -1 with h->problem set when
 * it is there and cannot be read. */
static int read_driver(const char *root, struct host *h)
{
	char buf[512];
	if (read_small(root, "/sys/module/nvidia/version", buf, sizeof buf) > 0 &&
	    driver_version_parse(buf, &h->driver) == 0) {
		h->have_driver = true;
	} else if (read_small(root, "/proc/driver/nvidia/version", buf, sizeof buf) > 0) {
		if (nvrm_version_parse(buf, &h->driver) == 0)
			h->have_driver = true;
		else
			snprintf(h->problem, sizeof h->problem,
				 "/proc/driver/nvidia/version: no driver version on its first line");
	}
	if (!h->have_driver)
		return -1;
	driver_version_format(&h->driver, h->driver_str, sizeof h->driver_str);
	return 0;
}

/* r39 names the GPU driver it booted with in /run/nvidia-gpu-driver-active
 * (nv-load-display-modules writes it): "nvgpu-l4t" or "openrm-l4t".  Orin
 * loads the nvidia module too, for display, so the module alone does not
 * say which directory holds the libcuda.  Without the file, the SoC does. */
static const char *active_gpu_libs(const char *root, const struct host *h)
{
	static const char nvgpu[] = "/opt/nvidia/l4t-gpu-libs/nvgpu",
			  openrm[] = "/opt/nvidia/l4t-gpu-libs/openrm";
	char buf[64];
	if (read_small(root, "/run/nvidia-gpu-driver-active", buf, sizeof buf) > 0) {
		buf[strcspn(buf, " \t\n")] = '\0';
		if (strcmp(buf, "nvgpu-l4t") == 0)
			return nvgpu;
		if (strcmp(buf, "openrm-l4t") == 0)
			return openrm;
		diag("/run/nvidia-gpu-driver-active: '%.20s' is neither nvgpu-l4t nor openrm-l4t", buf);
	}
	return strcmp(h->soc, "tegra234") == 0 ? nvgpu : openrm;
}

static void probe_tegra(const char *root, struct host *h)
{
	int rel = read_release(root, h);

	int g = nvgpu_query(root, rel == 0 ? h->l4t.major : 0, &h->gpu);
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
		gpu_problem_words(g, h->gpu.node, h->gpu_problem, sizeof h->gpu_problem);
		diag("%s (CUDA needs one; device tree used)", h->gpu_problem);
	}

	/* Thor's GPU runs on OpenRM, a module named nvidia: its version is the
	 * driver a data-center compat package must be newer than (803).  One
	 * that cannot be read leaves the application note's rules. */
	if (strcmp(h->soc, "tegra264") == 0) {
		if (read_driver(root, h) == 0)
			diag("driver %s (branch %d)", h->driver_str, h->driver.major);
		h->problem[0] = '\0';
	}

	if (rel < 0) {
		snprintf(h->problem, sizeof h->problem, "/etc/nv_tegra_release: %s",
			 strerror(-rel));
	} else if (rel > 0) {
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
	if (h->l4t.lib_dir[0])
		add_dir(h, root, h->l4t.lib_dir);
	if (h->have_l4t && h->l4t.major >= 39)
		add_dir(h, root, active_gpu_libs(root, h));
	if (h->have_l4t && h->l4t.major >= 36)
		add_dir(h, root, "/usr/lib/aarch64-linux-gnu/nvidia");
	add_dir(h, root, "/usr/lib/aarch64-linux-gnu/tegra");
	add_dir(h, root, "/run/opengl-driver/lib");	/* NixOS */
}

/* A line's value after its "Name:", blanks around it dropped, into out. */
static void line_value(const char *l, size_t n, size_t name_len, char *out, size_t cap)
{
	size_t i = name_len;
	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	size_t m = n - i < cap - 1 ? n - i : cap - 1;
	memcpy(out, l + i, m);
	out[m] = '\0';
	while (m && (out[m - 1] == ' ' || out[m - 1] == '\t'))
		out[--m] = '\0';
}

void probe_gpu_information(const char *text, char *model, size_t cap, bool *pci, char *uuid,
			   size_t ucap)
{
	if (cap)
		model[0] = '\0';
	if (uuid && ucap)
		uuid[0] = '\0';
	*pci = false;
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		size_t n = strcspn(l, "\n");
		if (strncmp(l, "Model:", 6) == 0 && cap) {
			line_value(l, n, 6, model, cap);
		} else if (strncmp(l, "GPU UUID:", 9) == 0 && uuid && ucap) {
			line_value(l, n, 9, uuid, ucap);
			if (strncmp(uuid, "GPU-", 4) != 0 || strchr(uuid, '?') || strlen(uuid) + 1 >= ucap)
				uuid[0] = '\0';	/* not whole: the GPU's name is not known */
		} else if (strncmp(l, "Bus Type:", 9) == 0) {
			size_t i = 9;
			while (i < n && (l[i] == ' ' || l[i] == '\t'))
				i++;
			*pci = n - i >= 3 && strncmp(l + i, "PCI", 3) == 0;
		}
	}
}

const char *probe_gpu_problem(const struct dgpu *g, char *buf, size_t cap)
{
	if (!g->error)
		snprintf(buf, cap, "%s", "");
	else if (g->error == ENODATA)
		snprintf(buf, cap, "information file: empty or no Model: line");	/* a FIFO reads empty */
	else
		snprintf(buf, cap, "information file: %s", strerror(g->error));
	return buf;
}

/* The GPU's PCI device ID from sysfs, 0 where sysfs has no NVIDIA function
 * at that bus address (a container without /sys/bus/pci). */
static unsigned short read_pci_device(const char *root, const char *bus)
{
	char rel[96], text[16];
	if (snprintf(rel, sizeof rel, "/sys/bus/pci/devices/%s/vendor", bus) >= (int)sizeof rel ||
	    read_small(root, rel, text, sizeof text) <= 0 || strtoul(text, NULL, 16) != 0x10de)
		return 0;
	snprintf(rel, sizeof rel, "/sys/bus/pci/devices/%s/device", bus);
	if (read_small(root, rel, text, sizeof text) <= 0)
		return 0;
	unsigned long id = strtoul(text, NULL, 16);
	return id <= 0xffff ? (unsigned short)id : 0;
}

/* Its architecture: by PCI device ID, else by model name.  Only a board on
 * a PCI bus has a PCI function to read (what the nvidia module lists beside
 * a Jetson's SoC has none: no system call more on a Jetson). */
static void gpu_arch(const char *root, bool pci, struct dgpu *g)
{
	g->device_id = pci ? read_pci_device(root, g->bus) : 0;
	g->arch = g->device_id ? (unsigned char)tables_gpu_arch_by_id(g->device_id) : GPU_ARCH_UNKNOWN;
	g->arch_from = g->arch ? ARCH_FROM_PCI : ARCH_FROM_NONE;
	if (!g->arch && g->model[0]) {
		g->arch = (unsigned char)tables_gpu_arch_by_model(g->model);
		g->arch_from = g->arch ? ARCH_FROM_MODEL : ARCH_FROM_NONE;
	}
}

/* Of two GPUs, does a's architecture end at an older branch than b's? */
static bool retires_sooner(const struct dgpu *a, const struct dgpu *b)
{
	int la = tables_arch_last_branch(a->arch), lb = b ? tables_arch_last_branch(b->arch) : 0;
	return la && (!lb || la < lb);
}

const char *probe_gpu_arch_text(const struct dgpu *g, char *buf, size_t cap)
{
	char id[24] = "", last[48] = "";
	if (g->device_id)
		snprintf(id, sizeof id, "device 0x%04x", g->device_id);
	if (tables_arch_last_branch(g->arch))
		snprintf(last, sizeof last, ", supported up to driver branch R%d",
			 tables_arch_last_branch(g->arch));
	if (!g->arch && g->device_id)
		snprintf(buf, cap, "architecture unknown (%s is not in cudaload's table): taken as current", id);
	else if (!g->arch)
		snprintf(buf, cap, "architecture unknown (no PCI function in sysfs, model not in cudaload's table): taken as current");
	else if (g->arch_from == ARCH_FROM_MODEL)
		snprintf(buf, cap, "%s (by its model name%s)%s", tables_arch_name(g->arch),
			 g->device_id ? ": its device ID is not in cudaload's table"
				      : ": no PCI function in sysfs", last);
	else
		snprintf(buf, cap, "%s, %s%s", tables_arch_name(g->arch), id, last);
	return buf;
}

/* One GPU's information file.  The Model: line comes first and Bus Type: a
 * few lines later, so a few hundred bytes hold both.  A GPU whose file says
 * nothing (unreadable, a FIFO, a directory, a dangling link, no Model: line)
 * still counts: as one that may not support forward compatibility, so the
 * decision fails safe (the unlucky machine). */
static void read_gpu(const char *root, const char *bus, const char *visible, struct host *h,
		     bool *pci)
{
	char rel[96], text[384], uuid[48] = "";
	struct dgpu g;
	*pci = false;
	memset(&g, 0, sizeof g);
	ssize_t n = snprintf(rel, sizeof rel, "/proc/driver/nvidia/gpus/%s/information", bus) >= (int)sizeof rel
			    ? -ENAMETOOLONG : read_small(root, rel, text, sizeof text);
	if (n > 0)
		probe_gpu_information(text, g.model, sizeof g.model, pci, uuid, sizeof uuid);
	if (visible)
		g.named = visible_names(visible, uuid[0] ? uuid : NULL);
	g.error = (short)(n < 0 ? -n : !g.model[0] ? ENODATA : 0);
	snprintf(g.bus, sizeof g.bus, "%s", bus);
	g.brand = (unsigned char)(g.error ? 0 : tables_gpu_brand(g.model));
	gpu_arch(root, *pci, &g);
	diag("gpu %s: %s (%s, %s, device 0x%04x)", g.bus,
	     g.error ? probe_gpu_problem(&g, text, sizeof text) : g.model, tables_brand_name(g.brand),
	     tables_arch_name(g.arch), g.device_id);
	int i = h->n_gpus++;
	if (i >= MAX_GPUS) {
		/* keep the evidence that decides; a board without forward
		 * compatibility refuses every package, so it wins the slot */
		if (!h->unsupported_gpu && !tables_brand_supports_compat(g.brand)) {
			h->gpus[MAX_GPUS - 1] = g;
			h->unsupported_gpu = MAX_GPUS;
		} else if (h->unsupported_gpu != MAX_GPUS &&
			   retires_sooner(&g, h->retired_gpu ? &h->gpus[h->retired_gpu - 1] : NULL)) {
			h->gpus[MAX_GPUS - 1] = g;
			h->retired_gpu = MAX_GPUS;
		} else if (!h->ask_gpu && h->unsupported_gpu != MAX_GPUS && h->retired_gpu != MAX_GPUS &&
			   (tables_brand_needs_word(g.brand) || !g.arch)) {
			h->gpus[MAX_GPUS - 1] = g;
			h->ask_gpu = MAX_GPUS;
		}
		return;
	}
	/* sorted by bus, so reports do not depend on directory order */
	for (; i > 0 && strcmp(h->gpus[i - 1].bus, g.bus) > 0; i--)
		h->gpus[i] = h->gpus[i - 1];
	h->gpus[i] = g;
	probe_judge_gpus(h, ~0u);
}

void probe_judge_gpus(struct host *h, unsigned mask)
{
	h->unsupported_gpu = 0;
	h->retired_gpu = 0;
	h->ask_gpu = 0;
	for (int k = 0; k < h->n_gpus && k < MAX_GPUS; k++) {
		struct dgpu *g = &h->gpus[k];
		g->hidden = !(mask >> k & 1);
		if (g->hidden)
			continue;
		if (!h->unsupported_gpu && !tables_brand_supports_compat(g->brand))
			h->unsupported_gpu = k + 1;
		if (!h->ask_gpu && (tables_brand_needs_word(g->brand) || !g->arch))
			h->ask_gpu = (unsigned char)(k + 1);
		if (retires_sooner(g, h->retired_gpu ? &h->gpus[h->retired_gpu - 1] : NULL))
			h->retired_gpu = (unsigned char)(k + 1);
	}
}

enum visible_rule probe_gpus_seen(const struct visible_ask *ask, const struct host *h,
				  unsigned *seen, char *why, size_t cap)
{
	/* A Jetson's GPU is not listed by the nvidia module: one GPU, whose
	 * UUID is not known (taken as named by any). */
	static const unsigned char soc_gpu = 0xff;
	unsigned char named[MAX_GPUS];
	int held = h->n_gpus < MAX_GPUS ? h->n_gpus : MAX_GPUS;
	for (int i = 0; i < held; i++)
		named[i] = h->gpus[i].named;
	if (h->platform == PLATFORM_TEGRA)
		return visible_pick(ask, 1, 1, &soc_gpu, seen, why, cap);
	return visible_pick(ask, h->n_gpus, held, named, seen, why, cap);
}

/* The GPUs the nvidia kernel module drives; returns how many are on a PCI
 * bus (discrete boards). */
static int probe_gpus(const char *root, const char *visible, struct host *h)
{
	static const char gpus[] = "/proc/driver/nvidia/gpus";
	_Alignas(8) char buf[512];
	int discrete = 0;
	long n;

	char *dir = root_path(root, gpus);
	if (!dir)
		return 0;
	int fd = open_ro(dir, O_DIRECTORY);
	root_path_free(dir, gpus);
	if (fd < 0)
		return 0;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
		const char *name;
		enum dent_step step;
		for (size_t pos = 0; (step = dent_next(buf, (size_t)n, &pos, &name)) != DENT_END &&
				     step != DENT_BROKEN;) {
			bool pci;
			if (step == DENT_ENTRY && name[0] != '.') {
				read_gpu(root, name, visible, h, &pci);
				discrete += pci;
			}
		}
	}
	close(fd);
	return discrete;
}

static void probe_dgpu(const char *root, const char *visible, struct host *h)
{
	if (read_driver(root, h) < 0)
		return;
	h->platform = PLATFORM_DGPU;
	h->cuda = tables_branch_cuda(h->driver.major);
	if (!h->cuda && h->driver.major > tables_branch_newest())
		snprintf(h->problem, sizeof h->problem,
			 "driver branch %d is newer than the driver table (last row %d): its CUDA is unknown, not guessed",
			 h->driver.major, tables_branch_newest());
	else if (!h->cuda)
		snprintf(h->problem, sizeof h->problem,
			 "driver branch %d is older than any in the table", h->driver.major);
	diag("driver %s (branch %d)", h->driver_str, h->driver.major);
	if (!h->discrete_on_tegra)
		probe_gpus(root, visible, h);
	add_dir(h, root, "/run/opengl-driver/lib");	/* NixOS */
	add_dir(h, root, "/usr/local/nvidia/lib64");	/* NVIDIA's container toolkit, Kubernetes */
}

/* Every Tegra is an ARM SoC: an x86_64 machine's own root has none to read
 * (a fixture root, CUDALOAD_ROOT, may be anything). */
bool probe_tegra_possible(const char *root)
{
#if defined(__x86_64__)
	return root && root[0] && strcmp(root, "/") != 0;
#else
	(void)root;
	return true;
#endif
}

void probe_host(const char *root, const char *const *extra_dirs, int n_extra,
		bool details, const struct visible_ask *visible, struct host *h)
{
	const char *devices = visible ? visible->devices : NULL;
	memset(h, 0, sizeof *h);

	/* Tegra first: JetPack 6+ also loads a kernel module named nvidia. */
	if (probe_tegra_possible(root))
		probe_soc(root, details, h);
	/* IGX Orin can drive a discrete GPU with the nvidia module beside the
	 * SoC: then it is a data-center-style host.  Thor's integrated GPU is
	 * also driven by a module named nvidia, but it is no PCI board. */
	if (h->soc[0] && strcmp(h->soc, "tegra264") != 0 && probe_gpus(root, devices, h) > 0) {
		h->discrete_on_tegra = true;
		diag("tegra soc %s with a discrete GPU: data-center rules", h->soc);
		probe_dgpu(root, devices, h);
		if (h->platform != PLATFORM_DGPU) {
			h->platform = PLATFORM_TEGRA;	/* no driver version: the SoC's rules */
			h->discrete_on_tegra = false;
			h->n_gpus = 0;
			h->unsupported_gpu = 0;
			h->retired_gpu = 0;
			h->ask_gpu = 0;
			h->problem[0] = '\0';
		}
	}
	if (h->platform == PLATFORM_DGPU) {
		/* IGX with a discrete GPU, settled above */
	} else if (h->soc[0]) {
		h->platform = PLATFORM_TEGRA;
		/* What the nvidia module lists beside an SoC is no PCI board
		 * (Orin's display on r39): the SoC's rules decide, not its brand
		 * nor its architecture. */
		h->unsupported_gpu = 0;
		h->retired_gpu = 0;
		h->ask_gpu = 0;
		diag("tegra soc %s%s%s", h->soc, h->model[0] ? ", model " : "", h->model);
		probe_tegra(root, h);
	} else {
		probe_dgpu(root, devices, h);
		if (h->platform == PLATFORM_NONE && !h->problem[0])
			snprintf(h->problem, sizeof h->problem,
				 "no NVIDIA GPU found (no Tegra SoC, no nvidia kernel module)");
		if (h->problem[0])
			diag("%s", h->problem);
	}
	for (int i = 0; i < n_extra; i++)
		add_dir(h, root, extra_dirs[i]);
	if (devices && h->platform != PLATFORM_NONE) {
		unsigned seen;
		h->visible = (unsigned char)probe_gpus_seen(visible, h, &seen, NULL, 0);
		diag("CUDA_VISIBLE_DEVICES=%s: %s, GPUs 0x%x judged", devices,
		     visible_rule_name((enum visible_rule)h->visible), seen);
		if (h->platform == PLATFORM_DGPU &&
		    (h->visible == VISIBLE_NAMED || h->visible == VISIBLE_NONE))
			probe_judge_gpus(h, seen);
	}
}

/* A GPU's "Device Minor:", -1 when its information file has none. */
static long gpu_minor(const char *root, const char *bus)
{
	char rel[96], text[1024];
	if (snprintf(rel, sizeof rel, "/proc/driver/nvidia/gpus/%s/information", bus) >= (int)sizeof rel ||
	    read_small(root, rel, text, sizeof text) <= 0)
		return -1;
	const char *m = strstr(text, "Device Minor:");
	if (!m)
		return -1;
	m += sizeof "Device Minor:" - 1;
	m += strspn(m, " \t");
	char *end;
	long v = *m >= '0' && *m <= '9' ? strtol(m, &end, 10) : -1;
	return v >= 0 && v < 256 ? v : -1;
}

void probe_keep_minors(const char *root, struct host *h, const int *minors, int n_minors)
{
	if (!minors || h->platform != PLATFORM_DGPU || h->n_gpus > MAX_GPUS)
		return;
	int n = 0;
	for (int i = 0; i < h->n_gpus; i++) {
		long m = gpu_minor(root, h->gpus[i].bus);
		bool kept = m < 0;
		for (int j = 0; j < n_minors && !kept; j++)
			kept = minors[j] == m;
		diag("gpu %s (minor %ld): %s", h->gpus[i].bus, m, kept ? "the container's" : "not the container's");
		if (kept)
			h->gpus[n++] = h->gpus[i];
	}
	h->n_gpus = n;
	probe_judge_gpus(h, ~0u);
}
