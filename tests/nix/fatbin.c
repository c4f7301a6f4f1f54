/* SPDX-License-Identifier: MIT */
/* What nvcc's generated code gives a program built with the static CUDA
 * runtime (cuda-samples, CMake's default): device code in a section named
 * .nv_fatbin, and no CUDA library in DT_NEEDED.  Linked into a test program
 * so that cudaload-patch's walk has only that to go by. */
__attribute__((section(".nv_fatbin"), used))
static const unsigned char fatbin[16] = { 0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0 };
