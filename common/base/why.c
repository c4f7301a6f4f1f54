/* SPDX-License-Identifier: MIT */
#include "why.h"

#include <stdio.h>

int why_vfail(char *why, size_t cap, const char *fmt, va_list ap)
{
	if (why && cap)
		vsnprintf(why, cap, fmt, ap);
	return -1;
}

int why_fail(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	why_vfail(why, cap, fmt, ap);
	va_end(ap);
	return -1;
}
