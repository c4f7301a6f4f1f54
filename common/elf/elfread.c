/* SPDX-License-Identifier: MIT */
#include "elfread.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/alloc.h"
#include "../base/why.h"
#include "record.h"

/* Bounds for tables read whole: far above any real file, low enough that a
 * poked count cannot make us allocate or read much. */
#define MAX_SECTIONS 4096
#define MAX_SHSTRTAB (256 * 1024)
#define MAX_NOTE_SECTION (64 * 1024)
#define MAX_NOTE_SEGMENT (4 * 1024)
#define MAX_DYNAMIC (64 * 1024)
#define MAX_VERDEFS 256
#define VERDEF_CHUNK 4096

/* A field in the file's byte order: a load, swapped when that order is not
 * this machine's (where a loop shifted in each byte: 117 calls read ld.so's
 * program headers at every start). */
#define HOST_BIG_ENDIAN (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

static uint16_t get16(const struct elf_file *ef, const unsigned char *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof v);
	return ef->big_endian == HOST_BIG_ENDIAN ? v : __builtin_bswap16(v);
}

static uint32_t get32(const struct elf_file *ef, const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return ef->big_endian == HOST_BIG_ENDIAN ? v : __builtin_bswap32(v);
}

static uint64_t get64(const struct elf_file *ef, const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return ef->big_endian == HOST_BIG_ENDIAN ? v : __builtin_bswap64(v);
}

/* A word is 4 bytes in ELF32, 8 in ELF64. */
static uint64_t getword(const struct elf_file *ef, const unsigned char *p)
{
	return ef->cls == ELFCLASS64 ? get64(ef, p) : get32(ef, p);
}

/* Is [off, off+len) inside the file? */
static bool in_file(const struct elf_file *ef, uint64_t off, uint64_t len)
{
	return off <= ef->size && len <= ef->size - off;
}

/* Bytes [off, off+len) of the file: from the head when they are in it. */
static int ef_read(const struct elf_file *ef, void *buf, size_t len, uint64_t off)
{
	if (off <= ef->head_len && len <= ef->head_len - off) {
		memcpy(buf, ef->head + off, len);
		return 0;
	}
	return pread_full(ef->fd, buf, len, (off_t)off);
}

int elfread_open_fd(struct elf_file *ef, int fd, char *why, size_t whycap)
{
	unsigned char *head = malloc(ELF_HEAD);
	if (!head) {
		ef->head = NULL;
		ef->head_owned = false;
		why_fail(why, whycap, "%s", "out of memory");
		return -1;
	}
	int r = elfread_open_fd_head(ef, fd, head, ELF_HEAD, why, whycap);
	ef->head_owned = true;
	return r;
}

void elfread_release(struct elf_file *ef)
{
	if (ef->head_owned)
		free(ef->head);
	ef->head = NULL;
	ef->head_owned = false;
	ef->head_len = ef->head_cap = 0;
}

int elfread_open_fd_head(struct elf_file *ef, int fd, void *buf, size_t head_cap,
		     char *why, size_t whycap)
{
	const unsigned char *h = buf;
	struct stat st;

	ef->fd = fd;
	ef->head = buf;
	ef->head_cap = head_cap;
	ef->head_owned = false;
	ef->head_len = 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		why_fail(why, whycap, "%s", "not a regular file");
		return -1;
	}
	ef->size = (uint64_t)st.st_size;
	ef->mode = st.st_mode;
	size_t head = ef->size < head_cap ? (size_t)ef->size : head_cap;
	if (pread_full(fd, ef->head, head, 0) < 0 || head < SELFMAG || memcmp(h, ELFMAG, SELFMAG) != 0) {
		why_fail(why, whycap, "%s", "not an ELF file");
		return -1;
	}
	ef->head_len = head;
	if (head < EI_NIDENT) {
		why_fail(why, whycap, "%s", "too short for an ELF header");
		return -1;
	}
	ef->cls = h[EI_CLASS];
	if (ef->cls != ELFCLASS32 && ef->cls != ELFCLASS64) {
		why_fail(why, whycap, "%s", "unknown ELF class");
		return -1;
	}
	if (h[EI_DATA] != ELFDATA2LSB && h[EI_DATA] != ELFDATA2MSB) {
		why_fail(why, whycap, "%s", "unknown ELF byte order");
		return -1;
	}
	ef->big_endian = h[EI_DATA] == ELFDATA2MSB;

	size_t ehsize = ef->cls == ELFCLASS64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	if (head < ehsize) {
		why_fail(why, whycap, "%s", "truncated ELF header");
		return -1;
	}
	ef->type = get16(ef, h + 16);
	ef->machine = get16(ef, h + 18);
	if (ef->cls == ELFCLASS64) {
		ef->entry = get64(ef, h + 24);
		ef->phoff = get64(ef, h + 32);
		ef->shoff = get64(ef, h + 40);
		ef->phentsize = get16(ef, h + 54);
		ef->phnum = get16(ef, h + 56);
		ef->shentsize = get16(ef, h + 58);
		ef->shnum = get16(ef, h + 60);
		ef->shstrndx = get16(ef, h + 62);
	} else {
		ef->entry = get32(ef, h + 24);
		ef->phoff = get32(ef, h + 28);
		ef->shoff = get32(ef, h + 32);
		ef->phentsize = get16(ef, h + 42);
		ef->phnum = get16(ef, h + 44);
		ef->shentsize = get16(ef, h + 46);
		ef->shnum = get16(ef, h + 48);
		ef->shstrndx = get16(ef, h + 50);
	}
	return 0;
}

int elfread_interp_parts(const char *bytes, size_t len, const char **interp, const char **recorded)
{
	const char *nul = memchr(bytes, '\0', len);
	if (!nul)
		return -1;
	*interp = bytes;
	*recorded = "";
	const char *rest = nul + 1;
	size_t restlen = len - (size_t)(rest - bytes);
	size_t ml = sizeof RECORD_MAGIC - 1;
	if (restlen > ml && memcmp(rest, RECORD_MAGIC, ml) == 0) {
		const char *orig = rest + ml;
		const char *end = memchr(orig, '\0', restlen - ml);
		if (end && end > orig)
			*recorded = orig;
	}
	return 0;
}

int elfread_split_interp(const char *bytes, size_t len, char *interp, size_t icap,
		     char *recorded, size_t rcap)
{
	const char *i, *r;
	if (elfread_interp_parts(bytes, len, &i, &r) < 0 || strlen(i) + 1 > icap)
		return -1;
	strcpy(interp, i);
	recorded[0] = '\0';
	if (strlen(r) + 1 <= rcap)
		strcpy(recorded, r);
	return 0;
}

/* A whole region of the file (bounded by limit): a pointer into the head
 * when it lies there, else a fresh buffer.  Give it back with release(). */
static const unsigned char *read_section(const struct elf_file *ef, uint64_t off,
					 uint64_t size, uint64_t limit)
{
	if (size > limit || !in_file(ef, off, size))
		return NULL;
	/* an empty region points at the head's start, not one past its end,
	 * where release() could not tell it from a buffer of its own */
	if (off <= ef->head_len && size <= ef->head_len - off)
		return ef->head + (size ? off : 0);
	unsigned char *buf = malloc(size ? size : 1);
	if (buf && size && pread_full(ef->fd, buf, size, (off_t)off) < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void release(const struct elf_file *ef, const unsigned char *p)
{
	if (p && (p < ef->head || p >= ef->head + ef->head_cap))
		free((void *)p);
}

/* The NUL-terminated string at off in a table of size n, or NULL. */
static const char *string_at(const unsigned char *table, uint64_t n, uint64_t off)
{
	return off < n && memchr(table + off, '\0', n - off) ? (const char *)table + off : NULL;
}

int elfread_read_phdrs(const struct elf_file *ef, struct elf_phdr *phs, unsigned cap,
		   unsigned *n, char *why, size_t whycap)
{
	size_t want = ef->cls == ELFCLASS64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);

	*n = 0;
	if (ef->phnum == 0)
		return 0;
	if (ef->phentsize < want || ef->phnum > cap) {
		why_fail(why, whycap, "%s", ef->phnum > cap && ef->phentsize >= want
					 ? "too many program headers"
					 : "bad program header size or count");
		return -1;
	}
	uint64_t tablen = (uint64_t)ef->phnum * ef->phentsize;
	if (!in_file(ef, ef->phoff, tablen)) {
		why_fail(why, whycap, "%s", "program headers lie outside the file");
		return -1;
	}
	const unsigned char *tab = read_section(ef, ef->phoff, tablen, tablen);
	if (!tab) {
		why_fail(why, whycap, "%s", "cannot read program headers");
		return -1;
	}
	for (unsigned i = 0; i < ef->phnum; i++) {
		const unsigned char *p = tab + (size_t)i * ef->phentsize;
		struct elf_phdr *ph = &phs[i];
		ph->type = get32(ef, p);
		if (ef->cls == ELFCLASS64) {
			ph->flags = get32(ef, p + 4);
			ph->offset = get64(ef, p + 8);
			ph->vaddr = get64(ef, p + 16);
			ph->filesz = get64(ef, p + 32);
			ph->memsz = get64(ef, p + 40);
			ph->align = get64(ef, p + 48);
		} else {
			ph->offset = get32(ef, p + 4);
			ph->vaddr = get32(ef, p + 8);
			ph->filesz = get32(ef, p + 16);
			ph->memsz = get32(ef, p + 20);
			ph->flags = get32(ef, p + 24);
			ph->align = get32(ef, p + 28);
		}
	}
	*n = ef->phnum;
	release(ef, tab);
	return 0;
}

int elfread_read_program(const struct elf_file *ef, struct elf_program *out,
		     char *why, size_t whycap)
{
	/* not a memset: the struct is large and mostly left unused */
	out->n = 0;
	out->has_interp = out->has_dynamic = false;
	out->interp[0] = out->recorded[0] = '\0';
	if (ef->phnum > ELF_MAX_PHDRS) {
		why_fail(why, whycap, "%s", "bad program header size or count");
		return -1;
	}
	if (elfread_read_phdrs(ef, out->ph, ELF_MAX_PHDRS, &out->n, why, whycap) < 0)
		return -1;

	for (unsigned i = 0; i < out->n; i++) {
		const struct elf_phdr *ph = &out->ph[i];
		if (ph->type == PT_DYNAMIC)
			out->has_dynamic = true;
		if (ph->type != PT_INTERP || out->has_interp)
			continue;
		/* Same limits as fs/binfmt_elf.c. */
		if (ph->filesz < 2 || ph->filesz > CL_PATH_MAX ||
		    !in_file(ef, ph->offset, ph->filesz)) {
			why_fail(why, whycap, "%s", "PT_INTERP has a bad size or offset");
			return -1;
		}
		/* on the heap, and given back at once (alloc.h) */
		char *buf = malloc(ph->filesz);
		if (!buf) {
			why_fail(why, whycap, "%s", "out of memory");
			return -1;
		}
		int bad = ef_read(ef, buf, ph->filesz, ph->offset) < 0 ||
			  buf[ph->filesz - 1] != '\0' ||
			  elfread_split_interp(buf, ph->filesz, out->interp, sizeof out->interp,
					   out->recorded, sizeof out->recorded) < 0;
		free(buf);
		if (bad) {
			why_fail(why, whycap, "%s", "PT_INTERP is not NUL-terminated");
			return -1;
		}
		out->has_interp = true;
	}
	return 0;
}

struct shdr {
	uint32_t name, type;
	uint64_t offset, size, align;
};

static struct shdr shdr_at(const struct elf_file *ef, const unsigned char *p)
{
	struct shdr s;
	s.name = get32(ef, p);
	s.type = get32(ef, p + 4);
	if (ef->cls == ELFCLASS64) {
		s.offset = get64(ef, p + 24);
		s.size = get64(ef, p + 32);
		s.align = get64(ef, p + 48);
	} else {
		s.offset = get32(ef, p + 16);
		s.size = get32(ef, p + 20);
		s.align = get32(ef, p + 32);
	}
	return s;
}

/* The most a descriptor may run past its section and still be read: less
 * than the 4 bytes a note's descriptor is padded to.  NVIDIA's Orin CUDA
 * 13.2 libcuda gives descsz 41 in a 71-byte section, 2 bytes short, the
 * section's last bytes NULs; its container toolkit clamps the descriptor
 * to the section and trims the NULs (commit 1a09d4a1).  A shortfall below
 * the padding is a size that counted padding never written; one of 4 or
 * more could be text cut away. */
#define NOTE_CLAMP_MAX 3

/* Is a descriptor that runs past its section readable when cut to the
 * bytes the section holds?  Only the owner's, short by at most
 * NOTE_CLAMP_MAX, and only when those bytes hold text and end in a NUL:
 * the JSON ended inside the section (it cannot hold a NUL), so what is
 * missing past it could only have been padding. */
static bool clampable(const unsigned char *d, uint64_t kept, uint64_t short_by)
{
	if (short_by > NOTE_CLAMP_MAX || kept == 0 || d[kept - 1] != '\0')
		return false;
	for (uint64_t i = 0; i < kept; i++)
		if (d[i])
			return true;
	return false;
}

/* Walk the notes in buf; copy the descriptor of the first one owned by
 * `owner`.  The descriptor starts at the note's 12-byte header plus its
 * name rounded up to the section's alignment, 4, or 8 where the section is
 * aligned to 8 (as readelf reads them); NVIDIA has shipped both paddings.
 * The last descriptor may lack its final padding, and the owner's may run
 * a few bytes past the section (clampable); *past says by how many. */
static long scan_notes(const struct elf_file *ef, const unsigned char *buf, uint64_t len,
		       uint64_t align, const char *owner, char *desc, size_t cap,
		       unsigned *past, char *why, size_t whycap)
{
	size_t ol = strlen(owner) + 1;
	uint64_t mask = align == 8 ? 7 : 3;

	for (uint64_t pos = 0; len - pos >= 12;) {
		uint64_t namesz = get32(ef, buf + pos);
		uint64_t descsz = get32(ef, buf + pos + 4);
		/* offsets from the note's start; 32-bit sizes cannot overflow them */
		uint64_t desc_at = (12 + namesz + mask) & ~mask;
		uint64_t next = (desc_at + descsz + mask) & ~mask;
		if (desc_at > len - pos) {
			why_fail(why, whycap, "%s", "note runs past the end of its section");
			return -1;
		}
		const unsigned char *name = buf + pos + 12;
		bool mine = namesz == ol && memcmp(name, owner, ol) == 0;
		uint64_t kept = descsz;
		if (descsz > len - pos - desc_at) {
			kept = len - pos - desc_at;
			if (!mine || !clampable(buf + pos + desc_at, kept, descsz - kept)) {
				why_fail(why, whycap, "%s", "note runs past the end of its section");
				return -1;
			}
			*past = (unsigned)(descsz - kept);
		}
		if (mine) {
			size_t n = kept < cap - 1 ? (size_t)kept : cap - 1;
			memcpy(desc, buf + pos + desc_at, n);
			desc[n] = '\0';
			return (long)kept;
		}
		if (next >= len - pos)
			break;
		pos += next;
	}
	return 0;
}

/* A stretch of the file read in one go, for sections that lie inside it. */
struct window {
	const unsigned char *p;
	uint64_t off, len;
};

/* Bytes before the section header table read with it: linkers and objcopy
 * put .shstrtab (a few hundred bytes) and non-allocated notes just before
 * the table, so one read usually brings all three.  Small, because each
 * page it touches costs more than the read it saves. */
#define SHDR_LEAD 1024

/* Section bytes from the head or the window when they lie there, else read
 * on their own (bounded by limit).  Give them back with release_in(). */
static const unsigned char *section_in(const struct elf_file *ef, const struct window *w,
				       uint64_t off, uint64_t size, uint64_t limit)
{
	if (size > limit || !in_file(ef, off, size))
		return NULL;
	if (w->p && off >= w->off && off - w->off <= w->len && size <= w->len - (off - w->off))
		return w->p + (size ? off - w->off : 0);	/* as read_section */
	return read_section(ef, off, size, limit);
}

static void release_in(const struct elf_file *ef, const struct window *w, const unsigned char *p)
{
	if (!w->p || p < w->p || p >= w->p + w->len)
		release(ef, p);
}

long elfread_find_note(const struct elf_file *ef, const char *section,
		   const char *owner, char *desc, size_t cap, unsigned *past,
		   char *why, size_t whycap)
{
	size_t want = ef->cls == ELFCLASS64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	long result = 0;
	unsigned ignored;

	if (!past)
		past = &ignored;
	*past = 0;
	if (cap == 0)
		return -1;
	desc[0] = '\0';
	if (ef->shnum == 0 || ef->shoff == 0)
		return 0;	/* stripped of section headers: no note to find */
	/* exactly one header's size: a larger one would only make the table
	 * (read whole) larger, up to 4096 x 64 KiB on a sparse file */
	if (ef->shentsize != want || ef->shnum > MAX_SECTIONS ||
	    ef->shstrndx >= ef->shnum) {
		why_fail(why, whycap, "%s", "bad section header size, count or string index");
		return -1;
	}
	uint64_t tablen = (uint64_t)ef->shnum * ef->shentsize;
	if (!in_file(ef, ef->shoff, tablen)) {
		why_fail(why, whycap, "%s", "section headers lie outside the file");
		return -1;
	}
	/* The table, and what lies just before it, in one read (unless the
	 * head holds the table already). */
	struct window w = { 0 };
	const unsigned char *tab;
	if (ef->shoff <= ef->head_len && tablen <= ef->head_len - ef->shoff) {
		tab = ef->head + ef->shoff;
	} else {
		uint64_t lead = ef->shoff < SHDR_LEAD ? ef->shoff : SHDR_LEAD;
		unsigned char *buf = malloc(lead + tablen);
		if (!buf || pread_full(ef->fd, buf, lead + tablen, (off_t)(ef->shoff - lead)) < 0) {
			free(buf);
			why_fail(why, whycap, "%s", "section headers lie outside the file");
			return -1;
		}
		w = (struct window){ buf, ef->shoff - lead, lead + tablen };
		tab = buf + lead;
	}
	struct shdr strs = shdr_at(ef, tab + (size_t)ef->shstrndx * ef->shentsize);
	const unsigned char *names = section_in(ef, &w, strs.offset, strs.size, MAX_SHSTRTAB);
	if (!names) {
		free((void *)w.p);
		why_fail(why, whycap, "%s", "section name table lies outside the file");
		return -1;
	}
	for (unsigned i = 0; i < ef->shnum; i++) {
		struct shdr s = shdr_at(ef, tab + (size_t)i * ef->shentsize);
		const char *name = string_at(names, strs.size, s.name);
		if (s.type != SHT_NOTE || !name || strcmp(name, section) != 0)
			continue;
		const unsigned char *notes = section_in(ef, &w, s.offset, s.size, MAX_NOTE_SECTION);
		if (!notes) {
			why_fail(why, whycap, "%s", "note section is too large or lies outside the file");
			result = -1;
			break;
		}
		result = scan_notes(ef, notes, s.size, s.align, owner, desc, cap, past, why, whycap);
		release_in(ef, &w, notes);
		break;
	}
	release_in(ef, &w, names);
	free((void *)w.p);	/* last: the allocator gives back the newest block first */
	return result;
}

/* File offset of a virtual address, through the PT_LOAD that maps it. */
static bool vaddr_to_offset(const struct elf_phdr *phs, unsigned n, uint64_t vaddr,
			    uint64_t *off)
{
	for (unsigned i = 0; i < n; i++) {
		const struct elf_phdr *ph = &phs[i];
		if (ph->type == PT_LOAD && vaddr >= ph->vaddr &&
		    vaddr - ph->vaddr < ph->filesz) {
			*off = ph->offset + (vaddr - ph->vaddr);
			return true;
		}
	}
	return false;
}

/* The values of the dynamic tags asked for: vals[i] for tags[i], the last
 * entry of that tag winning, left as it was when there is none.  1 when
 * read, 0 without a PT_DYNAMIC, -1 when it cannot be read. */
static int read_dynamic(const struct elf_file *ef, const struct elf_phdr *phs, unsigned n,
			const uint64_t *tags, uint64_t *vals, unsigned ntags)
{
	const struct elf_phdr *dyn = NULL;
	for (unsigned i = 0; i < n; i++)
		if (phs[i].type == PT_DYNAMIC)
			dyn = &phs[i];
	if (!dyn)
		return 0;
	const unsigned char *d = read_section(ef, dyn->offset, dyn->filesz, MAX_DYNAMIC);
	if (!d)
		return -1;
	size_t w = ef->cls == ELFCLASS64 ? 8 : 4;
	for (uint64_t p = 0; p + 2 * w <= dyn->filesz; p += 2 * w) {
		uint64_t tag = getword(ef, d + p), val = getword(ef, d + p + w);
		if (tag == DT_NULL)
			break;
		for (unsigned k = 0; k < ntags; k++)
			if (tag == tags[k])
				vals[k] = val;
	}
	release(ef, d);
	return 1;
}

int elfread_dynamic_role(const struct elf_file *ef, const struct elf_phdr *phs, unsigned n,
			 bool *needs, uint64_t *flags_1)
{
	static const uint64_t tags[] = { DT_NEEDED, DT_FLAGS_1 };
	uint64_t v[2] = { UINT64_MAX, 0 };	/* a DT_NEEDED's value is a string offset */
	int r = read_dynamic(ef, phs, n, tags, v, 2);
	*needs = r > 0 && v[0] != UINT64_MAX;
	*flags_1 = r > 0 ? v[1] : 0;
	return r;
}

int elfread_glibc_minor(const struct elf_file *ef, const struct elf_phdr *phs, unsigned n)
{
	static const uint64_t tags[] = { DT_VERDEF, DT_VERDEFNUM, DT_STRTAB, DT_STRSZ };
	uint64_t v[4] = { 0 };
	int r = read_dynamic(ef, phs, n, tags, v, 4);
	if (r <= 0)
		return r;
	uint64_t verdef = v[0], verdefnum = v[1], strtab = v[2], strsz = v[3];
	uint64_t vd_off, str_off;
	if (!verdef || !strtab)
		return 0;
	if (verdefnum > MAX_VERDEFS || strsz > MAX_SHSTRTAB ||
	    !vaddr_to_offset(phs, n, verdef, &vd_off) ||
	    !vaddr_to_offset(phs, n, strtab, &str_off) || vd_off >= ef->size)
		return -1;
	const unsigned char *strs = read_section(ef, str_off, strsz, MAX_SHSTRTAB);
	/* The definitions are small and together: read them in one go. */
	uint64_t span = ef->size - vd_off < VERDEF_CHUNK ? ef->size - vd_off : VERDEF_CHUNK;
	const unsigned char *vds = read_section(ef, vd_off, span, VERDEF_CHUNK);
	if (!strs || !vds) {
		release(ef, strs);
		release(ef, vds);
		return -1;
	}
	int best = 0;
	uint64_t pos = 0;
	for (uint64_t i = 0; i < verdefnum; i++) {
		if (span < 20 || pos > span - 20)
			break;
		const unsigned char *vd = vds + pos;
		uint32_t vd_aux = get32(ef, vd + 12), vd_next = get32(ef, vd + 16);
		if (vd_aux <= span - pos && span - pos - vd_aux >= 8) {
			const char *name = string_at(strs, strsz, get32(ef, vd + vd_aux));
			char *end;
			long minor = name && strncmp(name, "GLIBC_2.", 8) == 0 &&
					     name[8] >= '0' && name[8] <= '9'
					     ? strtol(name + 8, &end, 10) : 0;
			if (minor > best && minor < 1000 && *end == '\0')
				best = (int)minor;
		}
		if (vd_next == 0)
			break;
		pos += vd_next;
	}
	release(ef, vds);
	release(ef, strs);
	return best;
}

int elfread_search_paths(const struct elf_file *ef, const struct elf_phdr *phs, unsigned n,
		     char *rpath, char *runpath, size_t cap)
{
	rpath[0] = runpath[0] = '\0';
	static const uint64_t tags[] = { DT_STRTAB, DT_STRSZ, DT_RPATH, DT_RUNPATH };
	uint64_t v[4] = { 0, 0, UINT64_MAX, UINT64_MAX };
	int got = read_dynamic(ef, phs, n, tags, v, 4);
	if (got <= 0)
		return got;
	uint64_t strtab = v[0], strsz = v[1], rp = v[2], rn = v[3];
	uint64_t str_off;
	if (rp == UINT64_MAX && rn == UINT64_MAX)
		return 0;
	if (!strtab || strsz > MAX_SHSTRTAB || !vaddr_to_offset(phs, n, strtab, &str_off))
		return -1;
	const unsigned char *strs = read_section(ef, str_off, strsz, MAX_SHSTRTAB);
	if (!strs)
		return -1;
	const char *a = rp != UINT64_MAX ? string_at(strs, strsz, rp) : "";
	const char *b = rn != UINT64_MAX ? string_at(strs, strsz, rn) : "";
	int r = a && b ? 0 : -1;
	snprintf(rpath, cap, "%s", a ? a : "");
	snprintf(runpath, cap, "%s", b ? b : "");
	release(ef, strs);
	return r;
}

int elfread_needed(const struct elf_file *ef, const struct elf_phdr *phs, unsigned n,
	       char *buf, size_t cap, unsigned *count)
{
	*count = 0;
	if (cap == 0)
		return -1;
	buf[0] = '\0';
	static const uint64_t tags[] = { DT_STRTAB, DT_STRSZ };
	uint64_t v[2] = { 0, 0 };
	int got = read_dynamic(ef, phs, n, tags, v, 2);
	if (got <= 0)
		return got;
	const struct elf_phdr *dyn = NULL;
	for (unsigned i = 0; i < n; i++)
		if (phs[i].type == PT_DYNAMIC)
			dyn = &phs[i];
	uint64_t strtab = v[0], strsz = v[1], str_off;
	if (!strtab || strsz > MAX_SHSTRTAB || !vaddr_to_offset(phs, n, strtab, &str_off))
		return -1;
	const unsigned char *d = read_section(ef, dyn->offset, dyn->filesz, MAX_DYNAMIC);
	const unsigned char *strs = d ? read_section(ef, str_off, strsz, MAX_SHSTRTAB) : NULL;
	int r = d && strs ? 0 : -1;
	size_t w = ef->cls == ELFCLASS64 ? 8 : 4, used = 0;
	for (uint64_t p = 0; r == 0 && p + 2 * w <= dyn->filesz; p += 2 * w) {
		uint64_t tag = getword(ef, d + p), val = getword(ef, d + p + w);
		if (tag == DT_NULL)
			break;
		if (tag != DT_NEEDED)
			continue;
		const char *name = string_at(strs, strsz, val);
		size_t l = name ? strlen(name) : 0;
		if (!name || l + 2 > cap - used) {
			r = -1;
			break;
		}
		memcpy(buf + used, name, l + 1);
		used += l + 1;
		buf[used] = '\0';
		++*count;
	}
	if (strs)
		release(ef, strs);
	if (d)
		release(ef, d);
	return r;
}

bool elfread_has_segment_note(const struct elf_file *ef, const struct elf_phdr *phs, unsigned n,
			  const char *owner, uint32_t type)
{
	size_t ol = strlen(owner) + 1;
	for (unsigned i = 0; i < n; i++) {
		const struct elf_phdr *ph = &phs[i];
		if (ph->type != PT_NOTE)
			continue;
		/* From the head, where notes usually are; else read (bounded). */
		const unsigned char *seg = read_section(ef, ph->offset, ph->filesz, MAX_NOTE_SEGMENT);
		if (!seg)
			continue;
		const unsigned char *p = seg, *end = p + ph->filesz;
		bool found = false;
		while (!found && end - p >= 12) {
			uint32_t namesz = get32(ef, p), descsz = get32(ef, p + 4), t = get32(ef, p + 8);
			uint64_t name_pad = ((uint64_t)namesz + 3) & ~(uint64_t)3;
			uint64_t desc_pad = ((uint64_t)descsz + 3) & ~(uint64_t)3;
			if (name_pad + desc_pad > (uint64_t)(end - p - 12))
				break;
			found = t == type && namesz == ol && memcmp(p + 12, owner, ol) == 0;
			p += 12 + name_pad + desc_pad;
		}
		release(ef, seg);
		if (found)
			return true;
	}
	return false;
}

const char *elfread_machine_name(int machine)
{
	switch (machine) {
	case EM_X86_64: return "x86_64";
	case EM_AARCH64: return "aarch64";
	case EM_386: return "i386";
	case EM_ARM: return "arm";
	case EM_PPC64: return "ppc64";
	case EM_RISCV: return "riscv";
	default: return NULL;
	}
}

const char *elfread_machine_label(int machine, char *buf, size_t cap)
{
	const char *name = elfread_machine_name(machine);
	if (name)
		return name;
	snprintf(buf, cap, "machine %d", machine);
	return buf;
}

int elfread_machine_from_name(const char *name)
{
	static const int known[] = { EM_X86_64, EM_AARCH64, EM_386, EM_ARM, EM_PPC64, EM_RISCV };
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(elfread_machine_name(known[i]), name) == 0)
			return known[i];
	return -1;
}
