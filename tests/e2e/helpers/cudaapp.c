/* SPDX-License-Identifier: MIT */
/* A program that needs libcudart (DT_NEEDED), like a real CUDA application. */
#include <stdio.h>

int cudaRuntimeGetVersion(int *version);

int main(void)
{
	int v = 0;
	cudaRuntimeGetVersion(&v);
	printf("cudart %d\n", v);
	return 0;
}
