/* SPDX-License-Identifier: MIT */
/* A real CUDA program: NVIDIA's runtime (libcudart, built with nvcc
 * -cudart shared) judges the libcuda it is handed.  Prints
 *   cudaGetDeviceCount=<error number> driver=<cudaDriverGetVersion>
 * 35 (cudaErrorInsufficientDriver): the runtime found the driver too old;
 * 100 (cudaErrorNoDevice): it accepted the driver (the fake has no GPU). */
#include <cuda_runtime.h>
#include <stdio.h>

int main(void)
{
	int n = -1, drv = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	cudaDriverGetVersion(&drv);
	printf("cudaGetDeviceCount=%d driver=%d\n", (int)e, drv);
	return 0;
}
