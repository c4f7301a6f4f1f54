/* SPDX-License-Identifier: MIT */
/* The stand-in libtorch_cuda.so of tests/e2e/helpers/pyworker.c: it needs the
 * CUDA runtime (DT_NEEDED libcudart.so.12, found through its RUNPATH in the
 * nvidia-cuda-runtime wheel, as PyTorch's wheels do), which is what makes
 * the interpreter a CUDA program to cudaload-patch, and opens libcuda.so.1
 * as the runtime would, reporting the file that answered. */
#define _GNU_SOURCE
#include "holdreport.h"

int cudaRuntimeGetVersion(int *version);
void torch_report(void);

void torch_report(void)
{
	int v = 0;
	cudaRuntimeGetVersion(&v);
	hold_report_here("libcuda", "libcuda.so.1", "cuDriverGetVersion");
}
