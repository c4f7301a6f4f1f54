/* SPDX-License-Identifier: MIT */
/* libvia.so.1 of tests/e2e/suites/hold.sh: a library that opens the driver itself
 * (libcudart, libavutil do), so its own RUNPATH is what dlopen searches. */
#define _GNU_SOURCE
#include "holdreport.h"

void via_report(const char *key, const char *soname, const char *symbol);

void via_report(const char *key, const char *soname, const char *symbol)
{
	hold_report_here(key, soname, symbol);
}
