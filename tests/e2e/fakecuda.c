/* A stand-in libcuda.so.1: reports the CUDA version it was built with, so a
 * test can tell which driver library a program actually loaded. */
#ifndef FAKE_CUDA_VERSION
#error "build with -DFAKE_CUDA_VERSION=12020"
#endif

int cuDriverGetVersion(int *version);
int cuInit(unsigned int flags);

int cuDriverGetVersion(int *version)
{
	*version = FAKE_CUDA_VERSION;
	return 0;
}

int cuInit(unsigned int flags)
{
	return flags == 0 ? 0 : 1;	/* CUDA_ERROR_INVALID_VALUE */
}
