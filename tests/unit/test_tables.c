/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/host/tables.h"

#define V(a, b) ((a) * 1000 + (b) * 10)

Test(tables_happy, l4t_cuda)
{
	cr_assert_eq(tables_l4t_cuda(32, 7), V(10, 2));
	cr_assert_eq(tables_l4t_cuda(32, 4), V(10, 2));
	cr_assert_eq(tables_l4t_cuda(32, 3), V(10, 0), "JetPack 4.2-4.3 shipped CUDA 10.0");
	cr_assert_eq(tables_l4t_cuda(32, 1), V(10, 0));
	cr_assert_eq(tables_l4t_cuda(35, 4), V(11, 4));
	cr_assert_eq(tables_l4t_cuda(36, 3), V(12, 2));
	cr_assert_eq(tables_l4t_cuda(36, 4), V(12, 6));
	cr_assert_eq(tables_l4t_cuda(38, 2), V(13, 0));
	cr_assert_eq(tables_l4t_cuda(39, 0), V(13, 2));
}

Test(tables_sad, l4t_cuda_unknown)
{
	cr_assert_eq(tables_l4t_cuda(31, 0), 0);
	cr_assert_eq(tables_l4t_cuda(37, 0), 0);
	cr_assert_eq(tables_l4t_cuda(-1, -1), 0);
}

Test(tables_happy, branch_cuda)
{
	cr_assert_eq(tables_branch_cuda(535), V(12, 2));
	cr_assert_eq(tables_branch_cuda(550), V(12, 4));
	cr_assert_eq(tables_branch_cuda(570), V(12, 8));
	cr_assert_eq(tables_branch_cuda(580), V(13, 0));
	cr_assert_eq(tables_branch_cuda(595), V(13, 2));
	cr_assert_eq(tables_branch_cuda(572), V(12, 8));
	cr_assert_eq(tables_branch_cuda(610), V(13, 3));
	cr_assert_eq(tables_branch_cuda(615), V(13, 4));
	cr_assert_eq(tables_branch_cuda(620), V(13, 5));
	cr_assert_eq(tables_branch_newest(), 620);
}

/* the releases a package can be of, oldest first, each the CUDA of a
 * branch row: every one forward.h puts to the decision */
Test(tables_happy, cuda_releases)
{
	int n = 0, last = 0;
	for (int cuda; (cuda = tables_cuda_release(n)); n++) {
		cr_assert_gt(cuda, last, "release %d: %d after %d", n, cuda, last);
		cr_assert_eq(tables_branch_cuda(tables_cuda_branch(cuda)), cuda, "%d", cuda);
		last = cuda;
	}
	cr_assert_eq(tables_cuda_release(0), 11000);
	cr_assert_eq(last, tables_branch_cuda(tables_branch_newest()));
	cr_assert_eq(tables_cuda_release(-1), 0);
	cr_assert_gt(n, 20);
}

Test(tables_sad, branch_newer_than_the_table)
{
	cr_assert_eq(tables_branch_cuda(625), 0, "unknown, never the last row");
	cr_assert_eq(tables_branch_cuda(700), 0);
}

Test(tables_happy, gpu_brands)
{
	static const struct {
		const char *model;
		int brand;
		bool compat;
	} cases[] = {
		{ "NVIDIA H200", 14, true },
		{ "NVIDIA H100 80GB HBM3", 14, true },
		{ "NVIDIA GeForce RTX 4090", 15, false },
		{ "NVIDIA GeForce GTX 970", 5, false },
		{ "GeForce GTX 1080 Ti", 5, false },
		{ "NVIDIA TITAN RTX", 16, false },
		{ "NVIDIA TITAN V", 6, false },
		{ "Quadro NVS 510", 3, false },
		{ "NVIDIA RTX A6000", 13, true },
		{ "NVIDIA RTX 6000 Ada Generation", 13, true },
		{ "Quadro RTX 8000", 12, true },
		{ "Tesla V100-SXM2-16GB", 2, true },
		{ "NVIDIA NVSwitch-like", 14, true },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int b = tables_gpu_brand(cases[i].model);
		cr_assert_eq(b, cases[i].brand, "%s: %d", cases[i].model, b);
		cr_assert_eq(tables_brand_supports_compat(b), cases[i].compat, "%s", cases[i].model);
	}
	cr_assert_str_eq(tables_brand_name(15), "GeForce RTX");
	cr_assert_null(tables_brand_name(99));
	cr_assert_str_eq(tables_checked, "2026-12-01");
	cr_assert_eq(tables_edition, V(13, 4));
}

Test(tables_sad, branch_cuda_too_old)
{
	cr_assert_eq(tables_branch_cuda(390), 0);
	cr_assert_eq(tables_branch_cuda(0), 0);
}

Test(tables_happy, jetson_compat)
{
	cr_assert_eq(tables_jetson_compat(35, V(12, 2)), 1);
	cr_assert_eq(tables_jetson_compat(35, V(11, 8)), 1);
	cr_assert_eq(tables_jetson_compat(36, V(12, 9)), 1);
	cr_assert_eq(tables_jetson_compat(39, V(13, 4)), 1);
}

Test(tables_sad, jetson_compat_refused)
{
	cr_assert_eq(tables_jetson_compat(35, V(12, 3)), 0);
	cr_assert_eq(tables_jetson_compat(36, V(12, 3)), 0);
	cr_assert_eq(tables_jetson_compat(36, V(12, 7)), 0);
	cr_assert_eq(tables_jetson_compat(36, V(13, 0)), 0);
	cr_assert_eq(tables_jetson_compat(38, V(13, 2)), 0);
	cr_assert_eq(tables_jetson_compat(32, V(11, 8)), 0);
	cr_assert_eq(tables_jetson_compat(40, V(13, 4)), -1);
}

Test(tables_happy, dgpu_and_socs)
{
	cr_assert_eq(tables_dgpu_compat_max(570), V(13, 4));
	cr_assert_eq(tables_dgpu_compat_max(560), 0);
	cr_assert_eq(tables_dgpu_compat_max(535), V(13, 4), "535 takes 12.3 through 13.4");
	cr_assert_eq(tables_dgpu_compat_max(550), 0, "end of life");
	cr_assert_eq(tables_dgpu_compat_max(575), 0, "a new-feature branch");
	cr_assert_eq(tables_dgpu_compat_max(615), V(13, 4));
	cr_assert(tables_l4t_runs_on(36, "tegra234"));
	cr_assert(tables_l4t_runs_on(35, "tegra194"));
	cr_assert(!tables_l4t_runs_on(32, "tegra234"));
	cr_assert(!tables_l4t_runs_on(36, "tegra23"));
	cr_assert(tables_l4t_runs_on(99, "tegra999"));
	cr_assert_str_eq(tables_soc_name("tegra234"), "Orin");
	cr_assert_null(tables_soc_name("tegra999"));
}

/* Device IDs as Debian's pci.ids names their chips, and the
 * boards of the hosts in the public reports. */
Test(tables_happy, gpu_arch_by_id)
{
	cr_assert_eq(tables_gpu_arch_by_id(0x102d), GPU_ARCH_KEPLER);	/* GK210GL Tesla K80 */
	cr_assert_eq(tables_gpu_arch_by_id(0x13f2), GPU_ARCH_MAXWELL);	/* GM204GL Tesla M60 */
	cr_assert_eq(tables_gpu_arch_by_id(0x15f8), GPU_ARCH_PASCAL);	/* GP100GL Tesla P100 */
	cr_assert_eq(tables_gpu_arch_by_id(0x1db4), GPU_ARCH_VOLTA);	/* GV100GL Tesla V100 */
	cr_assert_eq(tables_gpu_arch_by_id(0x1eb8), GPU_ARCH_TURING);	/* TU104GL Tesla T4 */
	cr_assert_eq(tables_gpu_arch_by_id(0x20b0), GPU_ARCH_AMPERE);	/* GA100 A100 */
	cr_assert_eq(tables_gpu_arch_by_id(0x2230), GPU_ARCH_AMPERE);	/* GA102GL RTX A6000 */
	cr_assert_eq(tables_gpu_arch_by_id(0x2330), GPU_ARCH_HOPPER);	/* GH100 H100 SXM5 */
	cr_assert_eq(tables_gpu_arch_by_id(0x2335), GPU_ARCH_HOPPER);	/* H200 */
	cr_assert_eq(tables_gpu_arch_by_id(0x26b9), GPU_ARCH_ADA);	/* L40S */
	cr_assert_eq(tables_gpu_arch_by_id(0x27b8), GPU_ARCH_ADA);	/* L4 */
	cr_assert_eq(tables_gpu_arch_by_id(0x2901), GPU_ARCH_BLACKWELL);	/* B200 */
	cr_assert_eq(tables_gpu_arch_by_id(0x2bb5), GPU_ARCH_BLACKWELL);	/* RTX PRO 6000 Server */
	cr_assert_eq(tables_gpu_arch_by_id(0x1086), GPU_ARCH_FERMI);	/* GF110 */
}

Test(tables_sad, gpu_arch_unknown)
{
	cr_assert_eq(tables_gpu_arch_by_id(0), GPU_ARCH_UNKNOWN);
	cr_assert_eq(tables_gpu_arch_by_id(0x1af1), GPU_ARCH_UNKNOWN);	/* an NVSwitch, no GPU */
	cr_assert_eq(tables_gpu_arch_by_id(0x3fff), GPU_ARCH_UNKNOWN);	/* after the table */
	cr_assert_eq(tables_gpu_arch_by_id(0xffff), GPU_ARCH_UNKNOWN);
	cr_assert_eq(tables_gpu_arch_by_model("NVIDIA Future GPU"), GPU_ARCH_UNKNOWN);
	cr_assert_eq(tables_gpu_arch_by_model(""), GPU_ARCH_UNKNOWN);
	/* a word only where it ends: "Quadro M4000" is no "M4", "A100X" no "A100" */
	cr_assert_eq(tables_gpu_arch_by_model("Quadro M4000x"), GPU_ARCH_UNKNOWN);
	cr_assert_str_eq(tables_arch_name(GPU_ARCH_UNKNOWN), "unknown");
	cr_assert_str_eq(tables_arch_name(99), "unknown");
	cr_assert_str_eq(tables_arch_name(-1), "unknown");
	cr_assert_eq(tables_arch_last_branch(99), 0);
}

Test(tables_happy, gpu_arch_by_model)
{
	cr_assert_eq(tables_gpu_arch_by_model("Tesla V100-SXM2-16GB"), GPU_ARCH_VOLTA);
	cr_assert_eq(tables_gpu_arch_by_model("Tesla P100-PCIE-16GB"), GPU_ARCH_PASCAL);
	cr_assert_eq(tables_gpu_arch_by_model("Tesla K80"), GPU_ARCH_KEPLER);
	cr_assert_eq(tables_gpu_arch_by_model("Tesla M60"), GPU_ARCH_MAXWELL);
	cr_assert_eq(tables_gpu_arch_by_model("Tesla T4"), GPU_ARCH_TURING);
	cr_assert_eq(tables_gpu_arch_by_model("NVIDIA A100-SXM4-40GB"), GPU_ARCH_AMPERE);
	cr_assert_eq(tables_gpu_arch_by_model("NVIDIA RTX A6000"), GPU_ARCH_AMPERE);
	cr_assert_eq(tables_gpu_arch_by_model("NVIDIA H100 80GB HBM3"), GPU_ARCH_HOPPER);
	cr_assert_eq(tables_gpu_arch_by_model("NVIDIA L40S"), GPU_ARCH_ADA);
	cr_assert_eq(tables_gpu_arch_by_model("NVIDIA RTX 6000 Ada Generation"), GPU_ARCH_ADA);
	cr_assert_eq(tables_gpu_arch_by_model("NVIDIA B200"), GPU_ARCH_BLACKWELL);
	cr_assert_eq(tables_gpu_arch_by_model("Quadro RTX 8000"), GPU_ARCH_TURING);
}

/* The deprecation schedule: Kepler R470; Maxwell, Pascal, Volta R580. */
Test(tables_happy, last_branches)
{
	cr_assert_eq(tables_arch_last_branch(GPU_ARCH_KEPLER), 470);
	cr_assert_eq(tables_arch_last_branch(GPU_ARCH_MAXWELL), 580);
	cr_assert_eq(tables_arch_last_branch(GPU_ARCH_PASCAL), 580);
	cr_assert_eq(tables_arch_last_branch(GPU_ARCH_VOLTA), 580);
	cr_assert_eq(tables_arch_last_branch(GPU_ARCH_TURING), 0);
	cr_assert_eq(tables_arch_last_branch(GPU_ARCH_HOPPER), 0);
	cr_assert_eq(tables_arch_last_branch(GPU_ARCH_UNKNOWN), 0);
	cr_assert_str_eq(tables_arch_name(GPU_ARCH_VOLTA), "Volta");
}

Test(tables_happy, cuda_branch)
{
	cr_assert_eq(tables_cuda_branch(V(13, 0)), 580);
	cr_assert_eq(tables_cuda_branch(V(13, 1)), 590);
	cr_assert_eq(tables_cuda_branch(V(12, 2)), 535);
	cr_assert_eq(tables_cuda_branch(V(12, 3)), 545);
	cr_assert_eq(tables_cuda_branch(V(13, 5)), 620);
	cr_assert_eq(tables_cuda_branch(V(13, 6)), 0);	/* newer than the table */
}
