/* SPDX-License-Identifier: MIT */
#include "visible.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../base/why.h"

enum entry_kind {
	ENTRY_UUID,		/* GPU-..., or MIG-GPU-...: the GPU named */
	ENTRY_MIG,		/* MIG-<uuid>: a GPU only the driver knows */
	ENTRY_INDEX,
	ENTRY_UNCLEAR,		/* digits and more: what CUDA makes of it is not known */
	ENTRY_INVALID,		/* neither index nor UUID: the list ends */
};

/* The next entry after *at, blanks around it dropped, empty ones skipped:
 * false at the end. */
static bool next_entry(const char **at, const char **entry, size_t *len)
{
	for (const char *s = *at; *s;) {
		const char *b = s, *e = s + strcspn(s, ",");
		s = *e ? e + 1 : e;
		while (b < e && (*b == ' ' || *b == '\t'))
			b++;
		while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (e > b) {
			*at = s;
			*entry = b;
			*len = (size_t)(e - b);
			return true;
		}
	}
	return false;
}

static bool starts(const char *p, size_t n, const char *word)
{
	size_t w = strlen(word);
	return n >= w && strncasecmp(p, word, w) == 0;
}

static size_t digits(const char *p, size_t n)
{
	size_t i = 0;
	while (i < n && p[i] >= '0' && p[i] <= '9')
		i++;
	return i;
}

/* What an entry is; for a UUID its GPU's part ("GPU-...", up to a MIG
 * instance's '/'), for an index its value (capped: past any GPU). */
static enum entry_kind kind_of(const char *p, size_t n, const char **uuid, size_t *ulen, int *index)
{
	if (starts(p, n, "MIG-GPU-")) {
		*uuid = p + 4;
		*ulen = strcspn(*uuid, "/,");
		*ulen = *ulen < n - 4 ? *ulen : n - 4;
		return ENTRY_UUID;
	}
	if (starts(p, n, "GPU-")) {
		*uuid = p;
		*ulen = n;
		return ENTRY_UUID;
	}
	if (starts(p, n, "MIG-"))
		return ENTRY_MIG;
	size_t d = digits(p, n);
	if (d == n) {
		*index = 0;
		for (size_t i = 0; i < n && *index < 1000; i++)
			*index = *index * 10 + (p[i] - '0');
		return ENTRY_INDEX;
	}
	if (d > 0 || p[0] == '+')
		return ENTRY_UNCLEAR;
	return ENTRY_INVALID;	/* "-1", "NoDevFiles" (Slurm's), "none" */
}

const char *visible_rule_name(enum visible_rule r)
{
	switch (r) {
	case VISIBLE_UNSET: return "unset";
	case VISIBLE_NAMED: return "named";
	case VISIBLE_NONE: return "none";
	case VISIBLE_EVERY: return "every";
	}
	return "?";
}

unsigned char visible_names(const char *devices, const char *uuid)
{
	unsigned char named = 0;
	const char *at = devices ? devices : "", *p, *u;
	size_t n, un;
	int index;
	for (int k = 0; k < VISIBLE_MAX_NAMED && next_entry(&at, &p, &n); k++)
		if (kind_of(p, n, &u, &un, &index) == ENTRY_UUID &&
		    (!uuid || (strlen(uuid) >= un && strncasecmp(uuid, u, un) == 0)))
			named |= (unsigned char)(1u << k);
	return named;
}

#define SHOWN 64	/* bytes of the value or an entry quoted in why */

enum visible_rule visible_pick(const struct visible_ask *ask, int n, int held,
			       const unsigned char *named, unsigned *seen, char *why, size_t cap)
{
	held = held < 0 ? 0 : held > 32 ? 32 : held;
	*seen = held == 32 ? ~0u : (1u << held) - 1;
	if (!ask || !ask->devices) {
		why_fail(why, cap, "CUDA_VISIBLE_DEVICES is not set: every GPU");
		return VISIBLE_UNSET;
	}
	const char *v = ask->devices, *at = v, *p, *u;
	size_t len, un;
	int index;
	unsigned mask = 0;
	bool by_uuid = false, by_index = false;
	char end[SHOWN + 64] = "";
	for (int k = 0; next_entry(&at, &p, &len); k++) {
		int shown = len < SHOWN ? (int)len : SHOWN;
		if (n > held) {
			why_fail(why, cap, "CUDA_VISIBLE_DEVICES=%.*s: every GPU, more of them (%d) than cudaload holds (%d)",
			    SHOWN, v, n, held);
			return VISIBLE_EVERY;
		}
		enum entry_kind kind = kind_of(p, len, &u, &un, &index);
		if (kind == ENTRY_UUID && k >= VISIBLE_MAX_NAMED) {
			why_fail(why, cap, "CUDA_VISIBLE_DEVICES=%.*s: every GPU, more entries than cudaload reads (%d)",
			    SHOWN, v, VISIBLE_MAX_NAMED);
			return VISIBLE_EVERY;
		}
		if (kind == ENTRY_MIG) {
			why_fail(why, cap, "CUDA_VISIBLE_DEVICES=%.*s: every GPU, %.*s is a MIG instance whose GPU only the driver knows",
			    SHOWN, v, shown, p);
			return VISIBLE_EVERY;
		}
		if (kind == ENTRY_UNCLEAR) {
			why_fail(why, cap, "CUDA_VISIBLE_DEVICES=%.*s: every GPU, %.*s is not an index cudaload can read as CUDA would",
			    SHOWN, v, shown, p);
			return VISIBLE_EVERY;
		}
		if (kind == ENTRY_INDEX && index < n && !ask->pci_order && n > 1) {
			why_fail(why, cap, "CUDA_VISIBLE_DEVICES=%.*s: every GPU, indexes count in CUDA's default order (fastest first), which only the driver knows (CUDA_DEVICE_ORDER=PCI_BUS_ID counts them by bus)",
			    SHOWN, v);
			return VISIBLE_EVERY;
		}
		unsigned m = 0;
		if (kind == ENTRY_INDEX && index < n)
			m = 1u << index;
		for (int i = 0; kind == ENTRY_UUID && i < held; i++)
			if (named[i] >> k & 1)
				m |= 1u << i;
		if (!m) {
			snprintf(end, sizeof end, "; %.*s %s: the list ends there", shown, p,
				 kind == ENTRY_UUID ? "names no GPU" : kind == ENTRY_INDEX ? "is past the last GPU"
											 : "is neither an index nor a UUID");
			break;
		}
		mask |= m;
		by_uuid |= kind == ENTRY_UUID;
		by_index |= kind == ENTRY_INDEX;
	}
	*seen = mask;
	if (!mask && !end[0])
		why_fail(why, cap, "CUDA_VISIBLE_DEVICES is empty: the program sees no GPU");
	else if (!mask)
		why_fail(why, cap, "CUDA_VISIBLE_DEVICES=%.*s names no GPU: the program sees none%s", SHOWN, v, end);
	if (!mask)
		return VISIBLE_NONE;
	why_fail(why, cap, "CUDA_VISIBLE_DEVICES=%.*s: the GPUs it names, %s%s", SHOWN, v,
	    by_uuid && by_index ? "by UUID and by index" : by_uuid ? "by UUID"
			       : ask->pci_order ? "by index in PCI bus order" : "by index (the only GPU)",
	    end);
	return VISIBLE_NAMED;
}
