/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/tables.h"

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
