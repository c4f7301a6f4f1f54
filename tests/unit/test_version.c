/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/base/version.h"

Test(version_happy, cuda)
{
	cr_assert_eq(cuda_version_parse("12.2", false), 12020);
	cr_assert_eq(cuda_version_parse("13", false), 13000);
	cr_assert_eq(cuda_version_parse("12.10", false), 12100);
	cr_assert_eq(cuda_version_parse("12.2.140", true), 12020);
	char buf[16];
	cr_assert_str_eq(cuda_version_format(12090, buf, sizeof buf), "12.9");
	cr_assert_str_eq(cuda_version_format(0, buf, sizeof buf), "unknown");
}

Test(version_sad, cuda)
{
	cr_assert_eq(cuda_version_parse("", false), -1);
	cr_assert_eq(cuda_version_parse("x12", false), -1);
	cr_assert_eq(cuda_version_parse("12.", false), -1);
	cr_assert_eq(cuda_version_parse("12.2.140", false), -1);
	cr_assert_eq(cuda_version_parse("12.2a", true), -1);
	cr_assert_eq(cuda_version_parse("100.1", false), -1);
	cr_assert_eq(cuda_version_parse("12.1234567", false), -1);
	cr_assert_eq(cuda_version_parse("99999999999999999999", false), -1);
}

Test(version_happy, driver)
{
	struct driver_version v;
	cr_assert_eq(driver_version_parse("580.65.06\n", &v), 0);
	cr_assert_eq(v.major, 580);
	cr_assert_eq(v.minor, 65);
	cr_assert_eq(v.patch, 6);
	cr_assert_eq(driver_version_parse("535.104", &v), 0);
	cr_assert_eq(v.patch, -1);
}

Test(version_sad, driver)
{
	struct driver_version v;
	cr_assert_eq(driver_version_parse("", &v), -1);
	cr_assert_eq(driver_version_parse("580", &v), -1);
	cr_assert_eq(driver_version_parse("580.65.06 extra", &v), -1);
	cr_assert_eq(driver_version_parse("580.x", &v), -1);
	cr_assert_eq(driver_version_parse("1234567.1", &v), -1);
}

Test(version_happy, nvrm)
{
	struct driver_version v;
	cr_assert_eq(nvrm_version_parse("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\nGCC version: x\n", &v), 0);
	cr_assert_eq(v.major, 550);
	cr_assert_eq(v.patch, 14);
	cr_assert_eq(nvrm_version_parse("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.57.08  Release Build  (dvs-builder@U16)  Sat May 24 UTC 2025", &v), 0);
	cr_assert_eq(v.major, 575);
	cr_assert_eq(nvrm_version_parse("NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  540.4.0  Release Build", &v), 0);
	cr_assert_eq(v.minor, 4);
}

Test(version_sad, nvrm)
{
	struct driver_version v;
	cr_assert_eq(nvrm_version_parse("", &v), -1);
	cr_assert_eq(nvrm_version_parse("NVRM version: NVIDIA UNIX x86_64 Kernel Module\n550.54.14", &v), -1);
	cr_assert_eq(nvrm_version_parse("GCC version: 550.54.14", &v), -1);
	cr_assert_eq(nvrm_version_parse("NVRM version: no module here 550.54.14", &v), -1);
	char longline[600];
	memset(longline, 'a', sizeof longline - 1);
	longline[sizeof longline - 1] = '\0';
	cr_assert_eq(nvrm_version_parse(longline, &v), -1);
}

Test(version_happy, l4t)
{
	struct l4t_release r;
	cr_assert_eq(l4t_release_parse("# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic, EABI: aarch64, DATE: Wed Jan  8 01:49:37 UTC 2025\n"
			       "# KERNEL_VARIANT: oot\nTARGET_USERSPACE_LIB_DIR=nvidia\n"
			       "TARGET_USERSPACE_LIB_DIR_PATH=usr/lib/aarch64-linux-gnu/nvidia\n", &r), 0);
	cr_assert_eq(r.major, 36);
	cr_assert_eq(r.minor, 4);
	cr_assert_eq(r.patch, 3);
	cr_assert_str_eq(r.lib_dir, "/usr/lib/aarch64-linux-gnu/nvidia");
	cr_assert_eq(l4t_release_parse("# R35 (release), REVISION: 4.1, GCID: 33958178, BOARD: t186ref, EABI: aarch64, DATE: x", &r), 0);
	cr_assert_eq(r.major, 35);
	cr_assert_str_eq(r.lib_dir, "");
	cr_assert_eq(l4t_release_parse("# R32 (release), REVISION: 7\n", &r), 0);
	cr_assert_eq(r.minor, 7);
	cr_assert_eq(r.patch, 0);
}

Test(version_sad, l4t)
{
	struct l4t_release r;
	cr_assert_eq(l4t_release_parse("", &r), -1);
	cr_assert_eq(l4t_release_parse("# R", &r), -1);
	cr_assert_eq(l4t_release_parse("# R36", &r), -1);
	cr_assert_eq(l4t_release_parse("# R36 (release), GCID: 1\nREVISION: 4.3", &r), -1);
	cr_assert_eq(l4t_release_parse("# R36 (release), REVISION: x", &r), -1);
	cr_assert_eq(l4t_release_parse("# R36 (release), REVISION: 4.3x", &r), -1);
	cr_assert_eq(l4t_release_parse("R36 (release), REVISION: 4.3", &r), -1);
	cr_assert_eq(l4t_release_parse("# R9999 (release), REVISION: 4.3", &r), -1);
	/* a lib dir line too long is ignored, not overflowed */
	char text[1024];
	snprintf(text, sizeof text, "# R36 (release), REVISION: 4.3\nTARGET_USERSPACE_LIB_DIR_PATH=%0400d\n", 0);
	cr_assert_eq(l4t_release_parse(text, &r), 0);
	cr_assert_str_eq(r.lib_dir, "");
}
