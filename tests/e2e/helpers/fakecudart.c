/* SPDX-License-Identifier: MIT */
/* A stand-in libcudart.so.12: programs linked against it carry
 * DT_NEEDED libcudart.so.12, which is how cudaload-patch tells a CUDA
 * program in a directory walk. */
int cudaRuntimeGetVersion(int *version);

int cudaRuntimeGetVersion(int *version)
{
	*version = 12020;
	return 0;
}
