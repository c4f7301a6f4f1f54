/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/host/visible.h"

/* Two GPUs in PCI bus order, as nvidia-smi -L names them. */
#define H100 "GPU-5d8a6e2c-1f0b-4c93-9a7e-2b64c1d0e8f3"
#define V100 "GPU-9e1c4b7a-3d2f-4e6a-8b5c-7f0a1d2e3c4b"

static enum visible_rule pick(const char *devices, bool pci_order, unsigned *seen, char *why,
			      size_t cap)
{
	struct visible_ask ask = { devices, pci_order };
	unsigned char named[2] = { visible_names(devices, H100), visible_names(devices, V100) };
	return visible_pick(&ask, 2, 2, named, seen, why, cap);
}

static void expect(const char *devices, bool pci_order, enum visible_rule rule, unsigned seen)
{
	unsigned got;
	char why[256];
	cr_assert_eq(pick(devices, pci_order, &got, why, sizeof why), rule, "%s: %s", devices, why);
	cr_assert_eq(got, seen, "%s: seen 0x%x, not 0x%x (%s)", devices, got, seen, why);
}

Test(visible_happy, names)
{
	cr_assert_eq(visible_names(H100 "," V100, H100), 1);
	cr_assert_eq(visible_names(H100 "," V100, V100), 2);
	cr_assert_eq(visible_names("0,GPU-5d8a", H100), 2, "entry 1: the index counts as an entry");
	cr_assert_eq(visible_names("MIG-" H100 "/1/0", H100), 1, "a MIG instance's GPU");
	cr_assert_eq(visible_names("MIG-4f1e2d3c-5b6a-5988-a9ba-cbdcedfe0f10", H100), 0);
	cr_assert_eq(visible_names("GPU-5d8a", NULL), 1, "a GPU whose UUID is unknown: named");
	cr_assert_eq(visible_names("0,1", NULL), 0, "... by UUID entries only");
	cr_assert_eq(visible_names("GPU-5D8A", H100), 1, "hex in either case");
	cr_assert_eq(visible_names(H100 "0", H100), 0, "longer than the UUID: not it");
}

Test(visible_happy, forms)
{
	expect(NULL, false, VISIBLE_UNSET, 3);
	expect(H100, false, VISIBLE_NAMED, 1);
	expect("GPU-9e1c", false, VISIBLE_NAMED, 2);
	expect(V100 "," H100, false, VISIBLE_NAMED, 3);
	expect("GPU-", false, VISIBLE_NAMED, 3);	/* a prefix of both: both */
	expect(" GPU-5d8a ,", false, VISIBLE_NAMED, 1);
	expect("MIG-GPU-9e1c/1/0", false, VISIBLE_NAMED, 2);
	expect("1", true, VISIBLE_NAMED, 2);
	expect("1,0", true, VISIBLE_NAMED, 3);
	expect("0,GPU-9e1c", true, VISIBLE_NAMED, 3);
}

Test(visible_happy, the_list_ends_at_an_invalid_entry)
{
	expect("0,-1,1", true, VISIBLE_NAMED, 1);
	expect("GPU-5d8a,GPU-ffff,GPU-9e1c", false, VISIBLE_NAMED, 1);
	expect("1,2,0", true, VISIBLE_NAMED, 2);
	expect("GPU-9e1c,none,0", true, VISIBLE_NAMED, 2);
}

Test(visible_happy, none)
{
	expect("", false, VISIBLE_NONE, 0);
	expect(" , ", false, VISIBLE_NONE, 0);
	expect("-1", false, VISIBLE_NONE, 0);
	expect("NoDevFiles", false, VISIBLE_NONE, 0);
	expect("2", true, VISIBLE_NONE, 0);
	expect("2", false, VISIBLE_NONE, 0);	/* past the last in any order */
	expect("GPU-ffff", false, VISIBLE_NONE, 0);
}

/* What cudaload cannot tell: every GPU judged, never fewer. */
Test(visible_happy, every)
{
	expect("0", false, VISIBLE_EVERY, 3);
	expect("MIG-4f1e2d3c-5b6a-5988-a9ba-cbdcedfe0f10", false, VISIBLE_EVERY, 3);
	expect("1x", true, VISIBLE_EVERY, 3);
	expect("+1", true, VISIBLE_EVERY, 3);
	expect("GPU-5d8a,0", false, VISIBLE_EVERY, 3);	/* an index after, in the default order */
	expect("0,0,0,0,0,0,0,0,GPU-5d8a", true, VISIBLE_EVERY, 3);
	unsigned seen;
	struct visible_ask ask = { "0", true };
	unsigned char named[8] = { 0 };
	cr_assert_eq(visible_pick(&ask, 9, 8, named, &seen, NULL, 0), VISIBLE_EVERY, "more GPUs than held");
	cr_assert_eq(seen, 0xff);
	ask.devices = "";
	cr_assert_eq(visible_pick(&ask, 9, 8, named, &seen, NULL, 0), VISIBLE_NONE);
}

/* One GPU (a Jetson's): index 0 is it in any order; a UUID is taken as it. */
Test(visible_happy, one_gpu)
{
	static const unsigned char any = 0xff;
	unsigned seen;
	struct visible_ask ask = { "0", false };
	cr_assert_eq(visible_pick(&ask, 1, 1, &any, &seen, NULL, 0), VISIBLE_NAMED);
	cr_assert_eq(seen, 1);
	ask.devices = "1";
	cr_assert_eq(visible_pick(&ask, 1, 1, &any, &seen, NULL, 0), VISIBLE_NONE);
	ask.devices = "GPU-abc";
	cr_assert_eq(visible_pick(&ask, 1, 1, &any, &seen, NULL, 0), VISIBLE_NAMED);
}

Test(visible_happy, why)
{
	unsigned seen;
	char why[256];
	pick("GPU-5d8a,GPU-ffff", false, &seen, why, sizeof why);
	cr_assert_str_eq(why, "CUDA_VISIBLE_DEVICES=GPU-5d8a,GPU-ffff: the GPUs it names, by UUID; GPU-ffff names no GPU: the list ends there");
	pick("", false, &seen, why, sizeof why);
	cr_assert_str_eq(why, "CUDA_VISIBLE_DEVICES is empty: the program sees no GPU");
	pick("-1", false, &seen, why, sizeof why);
	cr_assert_str_eq(why, "CUDA_VISIBLE_DEVICES=-1 names no GPU: the program sees none; -1 is neither an index nor a UUID: the list ends there");
	pick("1,0", true, &seen, why, sizeof why);
	cr_assert_str_eq(why, "CUDA_VISIBLE_DEVICES=1,0: the GPUs it names, by index in PCI bus order");
	pick(NULL, false, &seen, why, sizeof why);
	cr_assert_str_eq(why, "CUDA_VISIBLE_DEVICES is not set: every GPU");
}
