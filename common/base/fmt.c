/* SPDX-License-Identifier: MIT */
#include "fmt.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct spec {
	bool left, zero, plus, space, alt;
	int width, prec;	/* prec < 0: none */
};

/* n copies of c, a few at a time. */
static int pad(fmt_put put, void *ctx, char c, int n)
{
	static const char spaces[16] = "                ", zeros[16] = "0000000000000000";
	while (n > 0) {
		int k = n < 16 ? n : 16;
		if (put(ctx, c == '0' ? zeros : spaces, (size_t)k) < 0)
			return -1;
		n -= k;
	}
	return 0;
}

/* prefix, then digits, laid out by width and precision; the length, or -1. */
static int emit_number(fmt_put put, void *ctx, const struct spec *sp, const char *prefix,
		       const char *digits, int nd)
{
	int np = (int)strlen(prefix);
	int zeros = sp->prec > nd ? sp->prec - nd : 0;
	int len = np + zeros + nd;
	int fill = sp->width > len ? sp->width - len : 0;
	if (sp->zero && !sp->left && sp->prec < 0) {
		zeros += fill;
		fill = 0;
	}
	if ((!sp->left && pad(put, ctx, ' ', fill) < 0) || put(ctx, prefix, (size_t)np) < 0 ||
	    pad(put, ctx, '0', zeros) < 0 || put(ctx, digits, (size_t)nd) < 0 ||
	    (sp->left && pad(put, ctx, ' ', fill) < 0))
		return -1;
	return np + zeros + nd + fill;
}

static int emit_text(fmt_put put, void *ctx, const struct spec *sp, const char *s, size_t n)
{
	int fill = sp->width > (int)n ? sp->width - (int)n : 0;
	if ((!sp->left && pad(put, ctx, ' ', fill) < 0) || put(ctx, s, n) < 0 ||
	    (sp->left && pad(put, ctx, ' ', fill) < 0))
		return -1;
	return (int)n + fill;
}

int fmt_vformat(fmt_put put, void *ctx, const char *fmt, va_list ap)
{
	int total = 0;
	while (*fmt) {
		const char *pct = strchr(fmt, '%');
		size_t lit = pct ? (size_t)(pct - fmt) : strlen(fmt);
		if (lit) {
			if (put(ctx, fmt, lit) < 0)
				return -1;
			total += (int)lit;
			fmt += lit;
			continue;
		}
		const char *start = fmt++;
		struct spec sp = { .prec = -1 };
		for (;; fmt++) {
			if (*fmt == '-') sp.left = true;
			else if (*fmt == '0') sp.zero = true;
			else if (*fmt == '+') sp.plus = true;
			else if (*fmt == ' ') sp.space = true;
			else if (*fmt == '#') sp.alt = true;
			else break;
		}
		if (*fmt == '*') {
			sp.width = va_arg(ap, int);
			if (sp.width < 0) {
				sp.left = true;
				sp.width = -sp.width;
			}
			fmt++;
		} else {
			while (*fmt >= '0' && *fmt <= '9')
				sp.width = sp.width * 10 + (*fmt++ - '0');
		}
		if (*fmt == '.') {
			fmt++;
			sp.prec = 0;
			if (*fmt == '*') {
				sp.prec = va_arg(ap, int);
				fmt++;
			} else {
				while (*fmt >= '0' && *fmt <= '9')
					sp.prec = sp.prec * 10 + (*fmt++ - '0');
			}
		}
		/* length: the number of 'l's or the size of the type */
		enum { L_INT, L_CHAR, L_SHORT, L_LONG, L_LLONG, L_SIZE, L_MAX, L_PTRDIFF, L_LDOUBLE } len = L_INT;
		if (*fmt == 'h') {
			len = fmt[1] == 'h' ? L_CHAR : L_SHORT;
			fmt += len == L_CHAR ? 2 : 1;
		} else if (*fmt == 'l') {
			len = fmt[1] == 'l' ? L_LLONG : L_LONG;
			fmt += len == L_LLONG ? 2 : 1;
		} else if (*fmt == 'L') {
			len = L_LDOUBLE;
			fmt++;
		} else if (*fmt == 'z' || *fmt == 'j' || *fmt == 't') {
			len = *fmt == 'z' ? L_SIZE : *fmt == 'j' ? L_MAX : L_PTRDIFF;
			fmt++;
		}

		char conv = *fmt ? *fmt++ : '\0';
		char digits[24], *end = digits + sizeof digits, *d = end;
		const char *prefix = "";
		int n;
		switch (conv) {
		case 'd': case 'i': {
			intmax_t v;
			switch (len) {
			case L_CHAR: v = (signed char)va_arg(ap, int); break;
			case L_SHORT: v = (short)va_arg(ap, int); break;
			case L_LONG: v = va_arg(ap, long); break;
			case L_LLONG: v = va_arg(ap, long long); break;
			case L_SIZE: v = va_arg(ap, ptrdiff_t); break;	/* ssize_t */
			case L_MAX: v = va_arg(ap, intmax_t); break;
			case L_PTRDIFF: v = va_arg(ap, ptrdiff_t); break;
			default: v = va_arg(ap, int); break;
			}
			uintmax_t u = v < 0 ? -(uintmax_t)v : (uintmax_t)v;
			for (; u; u /= 10)
				*--d = (char)('0' + u % 10);
			if (sp.prec < 0 && d == end)
				*--d = '0';
			prefix = v < 0 ? "-" : sp.plus ? "+" : sp.space ? " " : "";
			n = emit_number(put, ctx, &sp, prefix, d, (int)(end - d));
			break;
		}
		case 'u': case 'o': case 'x': case 'X': case 'p': {
			uintmax_t u;
			if (conv == 'p') {
				u = (uintptr_t)va_arg(ap, void *);
				sp.alt = true;
			} else {
				switch (len) {
				case L_CHAR: u = (unsigned char)va_arg(ap, unsigned); break;
				case L_SHORT: u = (unsigned short)va_arg(ap, unsigned); break;
				case L_LONG: u = va_arg(ap, unsigned long); break;
				case L_LLONG: u = va_arg(ap, unsigned long long); break;
				case L_SIZE: u = va_arg(ap, size_t); break;
				case L_MAX: u = va_arg(ap, uintmax_t); break;
				case L_PTRDIFF: u = (uintmax_t)va_arg(ap, ptrdiff_t); break;
				default: u = va_arg(ap, unsigned); break;
				}
			}
			unsigned base = conv == 'u' ? 10 : conv == 'o' ? 8 : 16;
			const char *set = conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
			bool nonzero = u != 0;
			for (; u; u /= base)
				*--d = set[u % base];
			if (sp.prec < 0 && d == end)
				*--d = '0';
			if (sp.alt && conv == 'o' && (d == end || *d != '0'))
				*--d = '0';
			if (sp.alt && nonzero && conv != 'o' && conv != 'u')
				prefix = conv == 'X' ? "0X" : "0x";
			n = emit_number(put, ctx, &sp, prefix, d, (int)(end - d));
			break;
		}
		case 'c': {
			char c = (char)va_arg(ap, int);
			n = emit_text(put, ctx, &sp, &c, 1);
			break;
		}
		case 's': {
			const char *s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			size_t sl = sp.prec >= 0 ? strnlen(s, (size_t)sp.prec) : strlen(s);
			n = emit_text(put, ctx, &sp, s, sl);
			break;
		}
		case '%':
			n = put(ctx, "%", 1) < 0 ? -1 : 1;
			break;
		case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
			/* no floating point in cudaload: a marker, and the argument skipped */
			if (len == L_LDOUBLE)
				(void)va_arg(ap, long double);
			else
				(void)va_arg(ap, double);
			n = emit_text(put, ctx, &sp, "?", 1);
			break;
		default:
			/* %n and unknown conversions: printed as written, nothing consumed */
			n = put(ctx, start, (size_t)(fmt - start)) < 0 ? -1 : (int)(fmt - start);
			break;
		}
		if (n < 0)
			return -1;
		total += n;
	}
	return total;
}

struct sbuf {
	char *buf;
	size_t cap, len;
};

static int put_buf(void *ctx, const char *s, size_t n)
{
	struct sbuf *b = ctx;
	if (b->len + 1 < b->cap) {
		size_t room = b->cap - 1 - b->len;
		memcpy(b->buf + b->len, s, n < room ? n : room);
	}
	b->len += n;
	return 0;
}

int fmt_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap)
{
	struct sbuf b = { buf, cap, 0 };
	int n = fmt_vformat(put_buf, &b, fmt, ap);
	if (cap)
		buf[b.len < cap ? b.len : cap - 1] = '\0';
	return n;
}

int fmt_snprintf(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = fmt_vsnprintf(buf, cap, fmt, ap);
	va_end(ap);
	return n;
}
