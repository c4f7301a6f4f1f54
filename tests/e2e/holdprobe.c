/* SPDX-License-Identifier: MIT */
/* The program of tests/e2e/hold.sh: which driver files did this process
 * get?  It opens the driver the way a program with static cudart does
 * (dlopen from the program itself, so its own RUNPATH counts), or, with
 * HOLD_VIA=1, the way a library does (from libvia.so.1, so that library's
 * RUNPATH counts), and prints one fact a line, as real paths:
 *   libcuda=<file>  ptxjit=<file>  bundle=<file of libbundle.so.1>
 *   LD_LIBRARY_PATH=<value or (unset)>
 * libbundle.so.1 is a DT_NEEDED found through the program's RUNPATH: a
 * library the program brings along must stay where it was. */
#define _GNU_SOURCE
#include "holdreport.h"

void via_report(const char *key, const char *soname, const char *symbol);	/* libvia.so.1 */
int bundle_marker(void);							/* libbundle.so.1 */

int main(void)
{
	void (*report)(const char *, const char *, const char *) =
		getenv("HOLD_VIA") ? via_report : hold_report_here;
	report("libcuda", "libcuda.so.1", "cuDriverGetVersion");
	report("libcuda_unversioned", "libcuda.so", "cuDriverGetVersion");
	report("ptxjit", "libnvidia-ptxjitcompiler.so.1", "hold_marker");
	Dl_info info;
	char *b = dladdr((void *)bundle_marker, &info) && info.dli_fname
			  ? realpath(info.dli_fname, NULL) : NULL;
	printf("bundle=%s\n", b ? b : "?");
	free(b);
	const char *llp = getenv("LD_LIBRARY_PATH");
	printf("LD_LIBRARY_PATH=%s\n", llp ? llp : "(unset)");
	return bundle_marker() == 1 ? 0 : 1;
}
