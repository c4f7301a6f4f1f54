/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/tables.h"

#define V(a, b) ((a) * 1000 + (b) * 10)

Test(tables_happy, l4t_cuda)
{
	cr_assert_eq(tables_l4t_cuda(32, 7), V(10, 2));
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
	cr_assert(tables_l4t_runs_on(36, "tegra234"));
	cr_assert(tables_l4t_runs_on(35, "tegra194"));
	cr_assert(!tables_l4t_runs_on(32, "tegra234"));
	cr_assert(!tables_l4t_runs_on(36, "tegra23"));
	cr_assert(tables_l4t_runs_on(99, "tegra999"));
	cr_assert_str_eq(tables_soc_name("tegra234"), "Orin");
	cr_assert_null(tables_soc_name("tegra999"));
}
