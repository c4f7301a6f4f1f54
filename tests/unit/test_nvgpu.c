/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include <errno.h>

#include "../../common/host/nvgpu.h"
#include "../../common/base/sys.h"

/* The fake board behind the seam. */
static struct {
	const char *node;	/* suffix of the node that exists */
	uint32_t arch, impl, rev;
	uint64_t kernel_size;	/* size of the driver's struct */
	int ioctl_err;
	int opens;
	unsigned long last_request;
	uint64_t offered;
} board;

static int fake_open(const char *path)
{
	board.opens++;
	size_t n = strlen(path), m = strlen(board.node);
	return board.node[0] && n >= m && strcmp(path + n - m, board.node) == 0 ? 42 : -ENOENT;
}

static int fake_ioctl(int fd, unsigned long request, void *arg)
{
	cr_assert_eq(fd, 42);
	board.last_request = request;
	if (board.ioctl_err)
		return -board.ioctl_err;
	struct nvgpu_get_characteristics *req = arg;
	board.offered = req->buf_size;
	uint32_t head[4] = { board.arch, board.impl, board.rev, 1 };
	uint64_t n = req->buf_size < board.kernel_size ? req->buf_size : board.kernel_size;
	memcpy((void *)(uintptr_t)req->buf_addr, head, n < sizeof head ? n : sizeof head);
	req->buf_size = board.kernel_size;
	return 0;
}

static void fake_close(int fd)
{
	(void)fd;
}

static void use_board(const char *node, uint32_t arch, uint32_t impl)
{
	memset(&board, 0, sizeof board);
	board.node = node;
	board.arch = arch;
	board.impl = impl;
	board.kernel_size = 344;
	sys_gpu_open = fake_open;
	sys_gpu_ioctl = fake_ioctl;
	sys_gpu_close = fake_close;
}

Test(nvgpu_happy, real_boards)
{
	static const struct {
		const char *node;
		uint32_t arch, impl;
		const char *soc;
	} boards[] = {
		{ "/dev/nvgpu/igpu0/ctrl", 0x170, 0xB, "tegra234" },	/* GA10B Orin */
		{ "/dev/nvhost-ctrl-gpu", 0x150, 0xB, "tegra194" },	/* GV11B Xavier */
		{ "/dev/nvhost-ctrl-gpu", 0x130, 0xB, "tegra186" },	/* GP10B TX2 */
		{ "/dev/nvhost-ctrl-gpu", 0x120, 0xB, "tegra210" },	/* GM20B Nano */
	};
	for (size_t i = 0; i < sizeof boards / sizeof boards[0]; i++) {
		use_board(boards[i].node, boards[i].arch, boards[i].impl);
		struct gpu_info g;
		cr_assert_eq(nvgpu_query("/root", 0, &g), 0);
		cr_assert_str_eq(g.node, boards[i].node);
		cr_assert_eq(g.arch, boards[i].arch);
		cr_assert_eq(g.impl, boards[i].impl);
		cr_assert_str_eq(nvgpu_arch_soc(g.arch), boards[i].soc);
		cr_assert_eq(board.last_request, NVGPU_GPU_IOCTL_GET_CHARACTERISTICS);
		cr_assert_eq(board.offered, NVGPU_CHARS_BUF);
	}
}

Test(nvgpu_happy, ioctl_number)
{
	/* _IOWR('G', 5, 16 bytes): the value the nvgpu uapi header gives */
	cr_assert_eq(NVGPU_GPU_IOCTL_GET_CHARACTERISTICS, 0xC0104705UL);
}

Test(nvgpu_happy, small_old_struct)
{
	use_board("/dev/nvhost-ctrl-gpu", 0x120, 0xB);
	board.kernel_size = 16;	/* an old kernel: just the leading fields */
	struct gpu_info g;
	cr_assert_eq(nvgpu_query("", 0, &g), 0);
	cr_assert_eq(g.arch, 0x120);
}

Test(nvgpu_sad, no_node_and_failures)
{
	struct gpu_info g;
	use_board("", 0, 0);
	cr_assert_eq(nvgpu_query("", 0, &g), -ENOENT);
	cr_assert_eq(board.opens, 2, "both nodes tried");

	use_board("/dev/nvhost-ctrl-gpu", 0x170, 0xB);
	board.ioctl_err = ENOTTY;
	cr_assert_eq(nvgpu_query("", 0, &g), -ENOTTY);

	use_board("/dev/nvhost-ctrl-gpu", 0x170, 0xB);
	board.kernel_size = 8;	/* too small to hold arch/impl/rev */
	cr_assert_eq(nvgpu_query("", 0, &g), -EPROTO);

	cr_assert_null(nvgpu_arch_soc(0x999));
	char root[5000];
	memset(root, 'r', sizeof root - 1);
	root[sizeof root - 1] = '\0';
	cr_assert_eq(nvgpu_query(root, 0, &g), -ENAMETOOLONG);
}

/* Both nodes, each with its own answer, and the order they were opened in. */
static struct {
	int igpu_err, legacy_err;	/* open's answer: 0 opens */
	char order[2];			/* 'i' or 'l', in the order opened */
	int n;
} two;

static int two_open(const char *path)
{
	bool igpu = strstr(path, "/dev/nvgpu/igpu0/ctrl") != NULL;
	if (two.n < 2)
		two.order[two.n] = igpu ? 'i' : 'l';
	two.n++;
	int err = igpu ? two.igpu_err : two.legacy_err;
	return err ? -err : (igpu ? 1 : 2);
}

static int two_ioctl(int fd, unsigned long request, void *arg)
{
	(void)request;
	if (fd == 1 && two.igpu_err == -1)
		return -ENOTTY;	/* -1: opens, but is no nvgpu device */
	struct nvgpu_get_characteristics *req = arg;
	uint32_t head[4] = { fd == 1 ? 0x170 : 0x150, 0xB, 0, 1 };
	memcpy((void *)(uintptr_t)req->buf_addr, head, sizeof head);
	req->buf_size = 344;
	return 0;
}

static void use_two(int igpu_err, int legacy_err)
{
	memset(&two, 0, sizeof two);
	two.igpu_err = igpu_err;
	two.legacy_err = legacy_err;
	sys_gpu_open = two_open;
	sys_gpu_ioctl = two_ioctl;
	sys_gpu_close = fake_close;
}

/* r35 and older (JetPack 4, 5) have /dev/nvhost-ctrl-gpu: it is asked first,
 * so it answers after one open; r36 and later, or no release, ask
 * /dev/nvgpu/igpu0/ctrl first.  Only the order changes. */
Test(nvgpu_happy, release_sets_the_order)
{
	struct gpu_info g;
	use_two(ENOENT, 0);
	cr_assert_eq(nvgpu_query("", 35, &g), 0);
	cr_assert_eq(two.n, 1, "the legacy node first on r35");
	cr_assert_str_eq(g.node, "/dev/nvhost-ctrl-gpu");
	cr_assert_eq(g.arch, 0x150);

	use_two(0, ENOENT);
	cr_assert_eq(nvgpu_query("", 36, &g), 0);
	cr_assert_eq(two.n, 1, "the new node first on r36");
	cr_assert_str_eq(g.node, "/dev/nvgpu/igpu0/ctrl");

	use_two(0, ENOENT);
	cr_assert_eq(nvgpu_query("", 32, &g), 0, "the other node is still tried");
	cr_assert_eq(two.n, 2);
	cr_assert_eq(two.order[0], 'l');
	cr_assert_eq(two.order[1], 'i');
	cr_assert_str_eq(g.node, "/dev/nvgpu/igpu0/ctrl");

	use_two(ENOENT, 0);
	cr_assert_eq(nvgpu_query("", 0, &g), 0, "no release: the usual order");
	cr_assert_eq(two.order[0], 'i');
	cr_assert_eq(two.n, 2);
}

/* When no node answers, what is reported does not depend on the order. */
Test(nvgpu_sad, failure_independent_of_order)
{
	struct gpu_info g;
	static const int releases[] = { 0, 35, 36 };
	for (size_t i = 0; i < sizeof releases / sizeof releases[0]; i++) {
		use_two(-1, EACCES);	/* igpu0 is no nvgpu device, legacy not ours to open */
		cr_assert_eq(nvgpu_query("", releases[i], &g), -EACCES);
		cr_assert_str_eq(g.node, "/dev/nvhost-ctrl-gpu");
		use_two(EACCES, ENOENT);
		cr_assert_eq(nvgpu_query("", releases[i], &g), -EACCES, "a missing node gives way");
		cr_assert_str_eq(g.node, "/dev/nvgpu/igpu0/ctrl");
		use_two(ENOENT, ENOENT);
		cr_assert_eq(nvgpu_query("", releases[i], &g), -ENOENT);
		cr_assert_null(g.node);
		use_two(-1, ENOENT);
		cr_assert_eq(nvgpu_query("", releases[i], &g), -ENOTTY);
		cr_assert_str_eq(g.node, "/dev/nvgpu/igpu0/ctrl");
	}
}
