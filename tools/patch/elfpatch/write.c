/* SPDX-License-Identifier: MIT */
/* A plan made real: its size, the file in memory, the file written to a
 * descriptor (the one place elfpatch touches a file), and the plan freed. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

uint64_t patch_plan_size(const struct patch_plan *plan)
{
	return plan->keep + plan->pad + plan->tail_len;
}

unsigned char *patch_plan_render(const unsigned char *img, const struct patch_plan *plan)
{
	unsigned char *out = malloc(patch_plan_size(plan) + 1);
	if (!out)
		return NULL;
	memcpy(out, img, plan->keep);
	for (int i = 0; i < plan->n_edits; i++)
		memcpy(out + plan->edits[i].off, plan->edits[i].bytes, plan->edits[i].len);
	memset(out + plan->keep, 0, plan->pad);
	if (plan->tail_len)
		memcpy(out + plan->keep + plan->pad, plan->tail, plan->tail_len);
	return out;
}

int patch_plan_walk(const unsigned char *img, const struct patch_plan *plan,
	      int (*fn)(void *ctx, const unsigned char *p, size_t n), void *ctx)
{
	int order[PLAN_MAX_EDITS], r;
	uint64_t pos = 0;
	for (int i = 0; i < plan->n_edits; i++)
		order[i] = i;
	for (int i = 1; i < plan->n_edits; i++)	/* by offset */
		for (int k = i; k > 0 && plan->edits[order[k]].off < plan->edits[order[k - 1]].off; k--) {
			int t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	for (int i = 0; i < plan->n_edits; i++) {
		const struct plan_edit *e = &plan->edits[order[i]];
		if (e->off < pos || e->off + e->len > plan->keep)
			return -EINVAL;	/* edits never overlap; refuse rather than guess */
		if ((r = fn(ctx, img + pos, e->off - pos)) != 0 || (r = fn(ctx, e->bytes, e->len)) != 0)
			return r;
		pos = e->off + e->len;
	}
	if ((r = fn(ctx, img + pos, plan->keep - pos)) != 0)
		return r;
	if (plan->pad && (r = fn(ctx, NULL, plan->pad)) != 0)	/* NULL: that many zeros */
		return r;
	return plan->tail_len ? fn(ctx, plan->tail, plan->tail_len) : 0;
}

/* The pieces go out in one writev (a plan has at most 2 * edits + 2), the
 * padding as a hole (lseek), so a large bss costs no disk. */
struct gather {
	int fd;
	struct iovec iov[2 * PLAN_MAX_EDITS + 2];
	int n;
};

static int gather_flush(struct gather *g)
{
	for (int i = 0; i < g->n;) {
		ssize_t w = writev(g->fd, g->iov + i, g->n - i);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		while (i < g->n && (size_t)w >= g->iov[i].iov_len)
			w -= (ssize_t)g->iov[i++].iov_len;
		if (i < g->n) {	/* a short write: go on from inside this piece */
			g->iov[i].iov_base = (char *)g->iov[i].iov_base + w;
			g->iov[i].iov_len -= (size_t)w;
		}
	}
	g->n = 0;
	return 0;
}

static int gather_piece(void *ctx, const unsigned char *p, size_t n)
{
	struct gather *g = ctx;
	if (!p) {
		int r = gather_flush(g);
		return r ? r : lseek(g->fd, (off_t)n, SEEK_CUR) < 0 ? -errno : 0;
	}
	if (n) {
		g->iov[g->n].iov_base = (void *)p;
		g->iov[g->n].iov_len = n;
		g->n++;
	}
	return 0;
}

int patch_plan_write(int fd, const unsigned char *img, const struct patch_plan *plan)
{
	struct gather g = { .fd = fd, .n = 0 };
	int r = patch_plan_walk(img, plan, gather_piece, &g);
	return r ? r : gather_flush(&g);
}

void patch_plan_free(struct patch_plan *plan)
{
	for (int i = 0; i < plan->n_edits; i++)
		free(plan->edits[i].bytes);
	free(plan->tail);
	memset(plan, 0, sizeof *plan);
}
