/* SPDX-License-Identifier: MIT */
#include "tables.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

#define V(major, minor) ((major) * 1000 + (minor) * 10)
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Checked against NVIDIA's CUDA Compatibility guide and its
 * forward-compatibility table, and the CUDA for Tegra application note,
 * both in their CUDA 13.4 editions, and NVIDIA Container Toolkit's
 * enable-cuda-compat hook (cmd/nvidia-cdi-hook/cudacompat, which decides
 * from the note first since PR #1784).  Newer than those documents, from
 * NVIDIA's release manifests and notes: the R620 branch and CUDA 13.5
 * (redistrib_13.5.0.json, redistrib_620.70.06.json), JetPack 7.2 = Jetson
 * Linux r39.2 on Orin and Thor.  Neither says which host branches take a
 * CUDA 13.5 package without a note, nor which L4T release takes a 13.5
 * compat_orin: those stay unknown (a note or --verify settles them). */
const char tables_checked[] = "2026-12-01";
const int tables_edition = V(13, 4);
const char tables_also[] = "driver branches to R620 (CUDA 13.5), Jetson Linux to r39.2";

/* L4T release -> bundled CUDA.  Source: JetPack release notes
 * (JetPack 4.2-4.3 = r32.1-32.3 CUDA 10.0; JetPack 4.4-4.6 = r32.4+ CUDA 10.2; JetPack 5 = r34/r35 CUDA 11.4;
 * JetPack 6.0 = r36.0-36.3 CUDA 12.2; JetPack 6.1/6.2 = r36.4+ CUDA 12.6;
 * JetPack 7.0 = r38 CUDA 13.0; JetPack 7.2 = r39 CUDA 13.2: Jetson Linux
 * r39.2 release notes, Orin and Thor, driver 595.78).
 * A row applies from (major, minor) up to the next row of the same major. */
static const struct {
	int major, minor, cuda;
} l4t_cuda[] = {
	{ 32, 0, V(10, 0) },
	{ 32, 4, V(10, 2) },
	{ 34, 0, V(11, 4) },
	{ 35, 0, V(11, 4) },
	{ 36, 0, V(12, 2) },
	{ 36, 4, V(12, 6) },
	{ 38, 0, V(13, 0) },
	{ 39, 0, V(13, 2) },
};

/* Driver branch -> newest CUDA.  Source: CUDA Toolkit release notes,
 * "CUDA Toolkit and Corresponding Driver Versions"; 610 and 615 from the
 * forward-compatibility table's column heads "610+ (CUDA 13.3)" and
 * "615+ (CUDA 13.4)"; 620 from redistrib_620.70.06.json, whose cuda_compat
 * 620.70.06 is CUDA 13.5's (CUDA 13.5 release notes: R620, long-term
 * support to September 2029).  A branch between two rows supports what the lower
 * row says; a branch newer than the last row is unknown (a guess would
 * hand a newer driver the compat package of an older one). */
static const struct {
	int branch, cuda;
} branch_cuda[] = {
	{ 450, V(11, 0) }, { 455, V(11, 1) }, { 460, V(11, 2) }, { 465, V(11, 3) },
	{ 470, V(11, 4) }, { 495, V(11, 5) }, { 510, V(11, 6) }, { 515, V(11, 7) },
	{ 520, V(11, 8) }, { 525, V(12, 0) }, { 530, V(12, 1) }, { 535, V(12, 2) },
	{ 545, V(12, 3) }, { 550, V(12, 4) }, { 555, V(12, 5) }, { 560, V(12, 6) },
	{ 565, V(12, 7) }, { 570, V(12, 8) }, { 575, V(12, 9) }, { 580, V(13, 0) },
	{ 590, V(13, 1) }, { 595, V(13, 2) }, { 610, V(13, 3) }, { 615, V(13, 4) },
	{ 620, V(13, 5) },
};

/* Jetson forward compatibility.  Source: NVIDIA "CUDA for Tegra" application
 * note, "Upgradable package for Jetson" support matrix:
 *   JetPack 4 (r32): no compat package.
 *   JetPack 5 (r34/r35): 11.8, 12.0, 12.1, 12.2; 12.3 and later refused.
 *   JetPack 6 (r36): 12.4, 12.5, 12.6, 12.8, 12.9; 12.3, 12.7 and 13.x refused.
 *   JetPack 7.0 (r38): none.  JetPack 7.2 (r39): 13.3, 13.4.
 * (13.4 edition, section 8.)  On Thor the package is the data-center one,
 * cuda-compat-13-4 (libcuda.so.615.31 in /usr/local/cuda-13.4/compat); the
 * host's CUDA comes from the L4T release, not from the driver version. */
static const struct {
	int l4t_major;
	int cuda[8];	/* zero-terminated */
} jetson_compat[] = {
	{ 32, { 0 } },
	{ 34, { V(11, 8), V(12, 0), V(12, 1), V(12, 2), 0 } },
	{ 35, { V(11, 8), V(12, 0), V(12, 1), V(12, 2), 0 } },
	{ 36, { V(12, 4), V(12, 5), V(12, 6), V(12, 8), V(12, 9), 0 } },
	{ 38, { 0 } },
	{ 39, { V(13, 3), V(13, 4), 0 } },
};

/* Data-center forward compatibility when the compat libcuda has no note
 * (with a note, the note decides).  Source: CUDA Compatibility guide,
 * forward-compatibility table, CUDA 13.4 edition: the supported host
 * branches are 535, 570, 580, 590, 595, 610 and 615, each taking every
 * package newer than its own CUDA up to 13.4 (535 takes 12.3 through 13.4);
 * end-of-life branches (470, 550, ...) and new-feature branches (545, 555,
 * 560, 565, 575, ...) are not supported targets.  The strictly-newer rule
 * sets the lower bound; this is the upper one. */
static const struct {
	int branch, newest_compat;
} dgpu_compat[] = {
	{ 535, V(13, 4) }, { 570, V(13, 4) }, { 580, V(13, 4) }, { 590, V(13, 4) },
	{ 595, V(13, 4) }, { 610, V(13, 4) }, { 615, V(13, 4) },
};

/* Which SoCs each L4T release runs on.  Source: Jetson Linux release notes. */
static const struct {
	int l4t_major;
	const char *socs;	/* space-separated */
} l4t_socs[] = {
	{ 32, "tegra210 tegra186 tegra194" },
	{ 34, "tegra194 tegra234" },
	{ 35, "tegra194 tegra234" },
	{ 36, "tegra234" },
	{ 38, "tegra264" },
	{ 39, "tegra234 tegra264" },
};

/* GPU brands, matched on the words of a /proc/driver/nvidia/gpus/.../information
 * Model: line, first match wins.  The numbers are NVML's nvmlBrandType_t
 * (the numbers a compat note's "device" list holds).  Source: CUDA
 * Compatibility guide: forward compatibility is for data-center GPUs, select
 * NGC-ready RTX boards and Jetson; on GeForce, TITAN and NVS boards the compat
 * libcuda fails cuInit with 804 (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE).
 * Real notes list devices 1, 2, 7-14: leaving out NVS 3, GRID 4, GeForce 5,
 * TITAN 6, GeForce RTX 15, TITAN RTX 16. */
static const struct {
	const char *words;	/* consecutive words of the model name */
	int brand;
	bool compat;
} gpu_brands[] = {
	{ "GeForce RTX", 15, false }, { "GeForce", 5, false },
	{ "TITAN RTX", 16, false }, { "TITAN", 6, false },
	{ "NVS", 3, false }, { "GRID", 4, false },
	{ "Quadro RTX", 12, true }, { "Quadro", 1, true }, { "Tesla", 2, true },
	{ "RTX", 13, true },
};
#define BRAND_NVIDIA 14		/* "NVIDIA H100 ...": data center */

static const char *const brand_names[] = {
	"unknown", "Quadro", "Tesla", "NVS", "GRID", "GeForce", "TITAN", "NVIDIA vApps",
	"NVIDIA vPC", "NVIDIA vCS", "NVIDIA vWS", "NVIDIA Cloud Gaming", "Quadro RTX",
	"NVIDIA RTX", "NVIDIA", "GeForce RTX", "TITAN RTX",
};

static const struct {
	const char *soc, *name;
} soc_names[] = {
	{ "tegra210", "Nano/TX1" }, { "tegra186", "TX2" }, { "tegra194", "Xavier" },
	{ "tegra234", "Orin" }, { "tegra264", "Thor" },
};

int tables_l4t_cuda(int l4t_major, int l4t_minor)
{
	int cuda = 0;
	for (size_t i = 0; i < COUNT(l4t_cuda); i++)
		if (l4t_cuda[i].major == l4t_major && l4t_cuda[i].minor <= l4t_minor)
			cuda = l4t_cuda[i].cuda;
	return cuda;
}

int tables_branch_newest(void)
{
	return branch_cuda[COUNT(branch_cuda) - 1].branch;
}

int tables_branch_cuda(int branch)
{
	int cuda = 0;
	if (branch > tables_branch_newest())
		return 0;
	for (size_t i = 0; i < COUNT(branch_cuda); i++)
		if (branch_cuda[i].branch <= branch)
			cuda = branch_cuda[i].cuda;
	return cuda;
}

int tables_jetson_compat(int l4t_major, int cuda)
{
	for (size_t i = 0; i < COUNT(jetson_compat); i++) {
		if (jetson_compat[i].l4t_major != l4t_major)
			continue;
		for (const int *c = jetson_compat[i].cuda; *c; c++)
			if (*c == cuda)
				return 1;
		return 0;
	}
	return -1;
}

int tables_dgpu_compat_max(int branch)
{
	for (size_t i = 0; i < COUNT(dgpu_compat); i++)
		if (dgpu_compat[i].branch == branch)
			return dgpu_compat[i].newest_compat;
	return 0;
}

bool tables_l4t_runs_on(int l4t_major, const char *soc)
{
	size_t n = strlen(soc);
	for (size_t i = 0; i < COUNT(l4t_socs); i++) {
		if (l4t_socs[i].l4t_major != l4t_major)
			continue;
		for (const char *p = l4t_socs[i].socs; (p = strstr(p, soc)); p += n)
			if ((p == l4t_socs[i].socs || p[-1] == ' ') &&
			    (p[n] == ' ' || p[n] == '\0'))
				return true;
		return false;
	}
	return true;	/* a release we do not know: no evidence against it */
}

const char *tables_soc_name(const char *soc)
{
	for (size_t i = 0; i < COUNT(soc_names); i++)
		if (strcmp(soc_names[i].soc, soc) == 0)
			return soc_names[i].name;
	return NULL;
}

/* Does `words` occur in s as whole words, ignoring case? */
static bool has_words(const char *s, const char *words)
{
	size_t n = strlen(words);
	for (const char *p = s; *p; p++) {
		if ((p == s || p[-1] == ' ') && strncasecmp(p, words, n) == 0 &&
		    (p[n] == ' ' || p[n] == '\0'))
			return true;
	}
	return false;
}

int tables_gpu_brand(const char *model)
{
	for (size_t i = 0; i < COUNT(gpu_brands); i++)
		if (has_words(model, gpu_brands[i].words))
			return gpu_brands[i].brand;
	return BRAND_NVIDIA;
}

const char *tables_brand_name(int brand)
{
	return brand >= 0 && (size_t)brand < COUNT(brand_names) ? brand_names[brand] : NULL;
}

bool tables_brand_supports_compat(int brand)
{
	for (size_t i = 0; i < COUNT(gpu_brands); i++)
		if (gpu_brands[i].brand == brand)
			return gpu_brands[i].compat;
	return brand == BRAND_NVIDIA || (brand >= 7 && brand <= 11);
}
