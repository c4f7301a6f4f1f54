/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../tools/verify/ptx.h"

/* Each device gets its own target and the ISA that introduced it (PTX ISA
 * release notes), so that every JIT that supports the GPU takes it. */
Test(ptx_happy, the_isa_that_introduced_each_target)
{
	static const struct {
		int major, minor, isa;
	} want[] = {
		{ 3, 7, 41 }, { 5, 0, 40 }, { 6, 0, 50 }, { 7, 0, 60 }, { 7, 2, 61 }, { 7, 5, 63 },
		{ 8, 0, 70 }, { 8, 6, 71 }, { 8, 7, 74 }, { 8, 9, 78 }, { 9, 0, 78 }, { 10, 0, 86 },
		{ 10, 1, 86 }, { 10, 3, 88 }, { 11, 0, 90 }, { 12, 0, 87 }, { 12, 1, 88 },
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		struct ptx_choice c;
		cr_assert_eq(ptx_choose(want[i].major, want[i].minor, &c), 0);
		cr_assert_eq(c.target, want[i].major * 10 + want[i].minor);
		cr_assert_eq(c.isa, want[i].isa, "sm_%d: PTX %d, want %d", c.target, c.isa, want[i].isa);
		cr_assert(!c.guessed);
	}
}

Test(ptx_happy, a_capability_past_the_table_gets_the_newest_isa_and_says_so)
{
	struct ptx_choice c;
	cr_assert_eq(ptx_choose(13, 0, &c), 0);
	cr_assert_eq(c.target, 130);
	cr_assert_eq(c.isa, 90);
	cr_assert(c.guessed);
}

Test(ptx_happy, the_module_text)
{
	struct ptx_choice c;
	char buf[256];
	cr_assert_eq(ptx_choose(7, 0, &c), 0);
	int n = ptx_module(&c, buf, sizeof buf);
	cr_assert_eq(n, (int)strlen(buf));
	cr_assert(strncmp(buf, ".version 6.0\n.target sm_70\n.address_size 64\n", 44) == 0, "%s", buf);
	cr_assert(strstr(buf, ".visible .entry " PTX_ENTRY "()\n{\n\tret;\n}\n") != NULL, "%s", buf);
	cr_assert_eq(ptx_module(&c, buf, 20), -1, "does not fit");
}

Test(ptx_sad, not_a_capability)
{
	struct ptx_choice c;
	cr_assert_eq(ptx_choose(-1, 0, &c), -1);
	cr_assert_eq(ptx_choose(8, 10, &c), -1);
	cr_assert_eq(ptx_choose(8, -1, &c), -1);
	cr_assert_eq(ptx_choose(100, 0, &c), -1);
}
