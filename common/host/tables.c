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

int tables_cuda_release(int i)
{
	return i >= 0 && (size_t)i < COUNT(branch_cuda) ? branch_cuda[i].cuda : 0;
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

/* Does `words` occur in s as whole words, ignoring case?  dash: a word may
 * also go on with '-' ("V100-SXM2" holds the chip "V100"). */
static bool has_words(const char *s, const char *words, bool dash)
{
	size_t n = strlen(words);
	for (const char *p = s; *p; p++) {
		if ((p == s || p[-1] == ' ') && strncasecmp(p, words, n) == 0 &&
		    (p[n] == ' ' || p[n] == '\0' || (dash && p[n] == '-')))
			return true;
	}
	return false;
}

int tables_gpu_brand(const char *model)
{
	for (size_t i = 0; i < COUNT(gpu_brands); i++)
		if (has_words(model, gpu_brands[i].words, false))
			return gpu_brands[i].brand;
	return BRAND_NVIDIA;
}

const char *tables_brand_name(int brand)
{
	return brand >= 0 && (size_t)brand < COUNT(brand_names) ? brand_names[brand] : NULL;
}

/* Source: CUDA Compatibility guide: forward compatibility on "select NGC
 * Server Ready SKUs of RTX cards"; which SKUs, the driver alone knows. */
bool tables_brand_needs_word(int brand)
{
	return brand == 1 || brand == 12 || brand == 13;
}

bool tables_brand_supports_compat(int brand)
{
	for (size_t i = 0; i < COUNT(gpu_brands); i++)
		if (gpu_brands[i].brand == brand)
			return gpu_brands[i].compat;
	return brand == BRAND_NVIDIA || (brand >= 7 && brand <= 11);
}

/* GPU architectures by PCI device ID (vendor 0x10de), for discrete GPUs.
 * Source: Debian's pci.ids (version 2023.04.10), which names each NVIDIA
 * device ID with its chip (GF100, GK210GL, GM204GL, GP100GL, GV100GL,
 * TU104GL, GA100, GH100, AD102 ...); each row spans the IDs of one family's
 * chips in that list, audio, USB and NVSwitch functions left out.  Newer
 * than that list, from the driver README's supported-gpus.json (the R580
 * edition): Hopper (H100 0x2330, H200 0x2335, GH200), Ada to 0x28ff, and
 * Blackwell (B200 0x2901, GB200 0x2941, RTX 5090 0x2b85, RTX PRO 6000
 * 0x2bb1, RTX 5080 0x2c02, RTX 5060 0x2d05, GB10 0x2e12, RTX 5070 0x2f04,
 * B300 0x3182); those rows span NVIDIA's per-chip blocks of IDs.  An ID in
 * no row is unknown: taken as current, and said so. */
static const struct {
	unsigned short first, last;
	unsigned char arch;
} gpu_ids[] = {
	{ 0x06c0, 0x06df, GPU_ARCH_FERMI },	/* GF100 */
	{ 0x0dc0, 0x0dff, GPU_ARCH_FERMI },	/* GF106, GF108 */
	{ 0x0e22, 0x0f06, GPU_ARCH_FERMI },	/* GF104, GF108 */
	{ 0x0fc0, 0x103f, GPU_ARCH_KEPLER },	/* GK107, GK110, GK208; Tesla K40 0x1023, K80 (GK210GL) 0x102d */
	{ 0x1040, 0x109b, GPU_ARCH_FERMI },	/* GF119, GF110 */
	{ 0x1140, 0x1140, GPU_ARCH_FERMI },	/* GF117M */
	{ 0x1180, 0x11fc, GPU_ARCH_KEPLER },	/* GK104, GK106 */
	{ 0x1200, 0x1251, GPU_ARCH_FERMI },	/* GF114, GF116 */
	{ 0x1280, 0x12ba, GPU_ARCH_KEPLER },	/* GK208 */
	{ 0x1340, 0x1436, GPU_ARCH_MAXWELL },	/* GM108, GM107, GM204 (Tesla M60 0x13f2), GM206 */
	{ 0x15f0, 0x15f9, GPU_ARCH_PASCAL },	/* GP100GL (Tesla P100 0x15f8) */
	{ 0x1617, 0x1667, GPU_ARCH_MAXWELL },	/* GM204M */
	{ 0x1725, 0x172f, GPU_ARCH_PASCAL },	/* GP100 */
	{ 0x174d, 0x17fd, GPU_ARCH_MAXWELL },	/* GM108M, GM200 (Tesla M40 0x17fd) */
	{ 0x1b00, 0x1d56, GPU_ARCH_PASCAL },	/* GP102, GP104, GP106, GP107, GP108 */
	{ 0x1d81, 0x1df6, GPU_ARCH_VOLTA },	/* GV100 (Tesla V100 0x1db1-0x1db6) */
	{ 0x1e02, 0x1ff9, GPU_ARCH_TURING },	/* TU102, TU104 (Tesla T4 0x1eb8), TU106, TU117 */
	{ 0x2082, 0x20fd, GPU_ARCH_AMPERE },	/* GA100 (A100 0x20b0-0x20b5) */
	{ 0x2182, 0x21d1, GPU_ARCH_TURING },	/* TU116 */
	{ 0x2200, 0x223f, GPU_ARCH_AMPERE },	/* GA102 (RTX A6000 0x2230) */
	{ 0x2300, 0x237f, GPU_ARCH_HOPPER },	/* GH100 */
	{ 0x2414, 0x25fb, GPU_ARCH_AMPERE },	/* GA103, GA104, GA106, GA107 */
	{ 0x2680, 0x28ff, GPU_ARCH_ADA },	/* AD102, AD103, AD104, AD106, AD107 */
	{ 0x2900, 0x29ff, GPU_ARCH_BLACKWELL },	/* GB100, GB102 */
	{ 0x2b80, 0x2c7f, GPU_ARCH_BLACKWELL },	/* GB202, GB203 */
	{ 0x2d00, 0x2e7f, GPU_ARCH_BLACKWELL },	/* GB206, GB207, GB10 */
	{ 0x2f00, 0x2f7f, GPU_ARCH_BLACKWELL },	/* GB205 */
	{ 0x3180, 0x31ff, GPU_ARCH_BLACKWELL },	/* GB110 (B300) */
};

/* Where sysfs has no PCI function for a GPU (some containers): its model
 * name, matched on whole words of the Model: line ("Tesla V100-SXM2-16GB"
 * matches "V100": a word may go on with '-').  The data-center and
 * workstation boards of each family, from the same sources. */
static const struct {
	char words[16];
	unsigned char arch;
} gpu_models[] = {
	{ "K80", GPU_ARCH_KEPLER }, { "K40m", GPU_ARCH_KEPLER }, { "K40c", GPU_ARCH_KEPLER },
	{ "K20Xm", GPU_ARCH_KEPLER }, { "K20m", GPU_ARCH_KEPLER }, { "K10", GPU_ARCH_KEPLER },
	{ "K520", GPU_ARCH_KEPLER },
	{ "M60", GPU_ARCH_MAXWELL }, { "M40", GPU_ARCH_MAXWELL }, { "M10", GPU_ARCH_MAXWELL },
	{ "M6", GPU_ARCH_MAXWELL }, { "M4", GPU_ARCH_MAXWELL }, { "M6000", GPU_ARCH_MAXWELL },
	{ "P100", GPU_ARCH_PASCAL }, { "P40", GPU_ARCH_PASCAL }, { "P4", GPU_ARCH_PASCAL },
	{ "P6", GPU_ARCH_PASCAL }, { "P6000", GPU_ARCH_PASCAL }, { "GP100", GPU_ARCH_PASCAL },
	{ "V100", GPU_ARCH_VOLTA }, { "V100S", GPU_ARCH_VOLTA }, { "GV100", GPU_ARCH_VOLTA },
	{ "TITAN V", GPU_ARCH_VOLTA },
	{ "T4", GPU_ARCH_TURING }, { "Quadro RTX", GPU_ARCH_TURING },
	{ "A100", GPU_ARCH_AMPERE }, { "A800", GPU_ARCH_AMPERE }, { "A40", GPU_ARCH_AMPERE },
	{ "A30", GPU_ARCH_AMPERE }, { "A16", GPU_ARCH_AMPERE }, { "A10", GPU_ARCH_AMPERE },
	{ "A10G", GPU_ARCH_AMPERE }, { "A2", GPU_ARCH_AMPERE }, { "RTX A6000", GPU_ARCH_AMPERE },
	{ "RTX A5000", GPU_ARCH_AMPERE }, { "RTX A4000", GPU_ARCH_AMPERE },
	{ "H100", GPU_ARCH_HOPPER }, { "H200", GPU_ARCH_HOPPER }, { "H800", GPU_ARCH_HOPPER },
	{ "H20", GPU_ARCH_HOPPER }, { "GH200", GPU_ARCH_HOPPER },
	{ "L4", GPU_ARCH_ADA }, { "L40", GPU_ARCH_ADA }, { "L40S", GPU_ARCH_ADA },
	{ "L20", GPU_ARCH_ADA }, { "Ada Generation", GPU_ARCH_ADA },
	{ "B100", GPU_ARCH_BLACKWELL }, { "B200", GPU_ARCH_BLACKWELL },
	{ "GB200", GPU_ARCH_BLACKWELL }, { "B300", GPU_ARCH_BLACKWELL },
	{ "GB300", GPU_ARCH_BLACKWELL }, { "Blackwell", GPU_ARCH_BLACKWELL },
};

/* Each architecture and the last driver branch that supports it (0: still
 * supported).  Source: NVIDIA's Unix graphics driver deprecation schedule:
 * "The release 580 series will be the last to support GPUs based on the
 * Maxwell, Pascal, and Volta architectures"; R470 was Kepler's last branch
 * and R390 Fermi's (supported-gpus.json marks such GPUs with
 * "legacybranch": "470.xx" and "390.xx"). */
static const struct {
	char name[12];
	short last_branch;
} gpu_archs[] = {
	[GPU_ARCH_UNKNOWN] = { "unknown", 0 },
	[GPU_ARCH_FERMI] = { "Fermi", 390 },
	[GPU_ARCH_KEPLER] = { "Kepler", 470 },
	[GPU_ARCH_MAXWELL] = { "Maxwell", 580 },
	[GPU_ARCH_PASCAL] = { "Pascal", 580 },
	[GPU_ARCH_VOLTA] = { "Volta", 580 },
	[GPU_ARCH_TURING] = { "Turing", 0 },
	[GPU_ARCH_AMPERE] = { "Ampere", 0 },
	[GPU_ARCH_ADA] = { "Ada", 0 },
	[GPU_ARCH_HOPPER] = { "Hopper", 0 },
	[GPU_ARCH_BLACKWELL] = { "Blackwell", 0 },
};

int tables_gpu_arch_by_id(unsigned device_id)
{
	for (size_t i = 0; i < COUNT(gpu_ids); i++)
		if (device_id >= gpu_ids[i].first && device_id <= gpu_ids[i].last)
			return gpu_ids[i].arch;
	return GPU_ARCH_UNKNOWN;
}

int tables_gpu_arch_by_model(const char *model)
{
	for (size_t i = 0; i < COUNT(gpu_models); i++)
		if (has_words(model, gpu_models[i].words, true))
			return gpu_models[i].arch;
	return GPU_ARCH_UNKNOWN;
}

const char *tables_arch_name(int arch)
{
	return arch >= 0 && (size_t)arch < COUNT(gpu_archs) ? gpu_archs[arch].name : "unknown";
}

int tables_arch_last_branch(int arch)
{
	return arch >= 0 && (size_t)arch < COUNT(gpu_archs) ? gpu_archs[arch].last_branch : 0;
}

int tables_cuda_branch(int cuda)
{
	for (size_t i = 0; i < COUNT(branch_cuda); i++)
		if (branch_cuda[i].cuda >= cuda)
			return branch_cuda[i].branch;
	return 0;
}
