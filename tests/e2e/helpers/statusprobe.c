/* SPDX-License-Identifier: MIT */
/* The program of tests/e2e/suites/status.sh: which libcuda.so.1 did this process
 * get?  One line, libcuda=<real path>, "none" when nothing loaded.  What
 * `cudaload --status` said it will load is checked against this. */
#define _GNU_SOURCE
#include "holdreport.h"

int main(void)
{
	hold_report_here("libcuda", "libcuda.so.1", "cuDriverGetVersion");
	return 0;
}
