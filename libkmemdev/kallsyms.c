// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Kernel symbols through the device, for callers /proc/kallsyms shows only
 * zeros (Debian: no CAP_SYSLOG, kernel.perf_event_paranoid > 1; see
 * kallsyms_show_value()).  An fd that reads all of memory gains nothing
 * from hidden addresses, so the library decodes the kernel's own tables:
 *
 *  - INFO gives the physical address of the VMCOREINFO ELF note
 *    (paddr_vmcoreinfo_note()); its text names the kallsyms tables
 *    (SYMBOL(kallsyms_names)=..., kernel/crash_core.c in 6.1,
 *    kernel/vmcore_info.c in 6.12 and 7.3, since 6.0);
 *  - the core tables decode as kernel/kallsyms.c does
 *    (kallsyms_expand_symbol(), kallsyms_sym_address());
 *  - module symbols come from the module list (modsyms.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Elf64_Nhdr, spelled out: the note is read as bytes. */
struct note_hdr {
	uint32_t namesz;
	uint32_t descsz;
	uint32_t type;
};

#define VMCOREINFO_NAME		"VMCOREINFO"
#define KSYM_NAME_LEN		512	/* include/linux/kallsyms.h, 6.1+ */
#define TABLE_MAX		(64u << 20)	/* sanity bound for one table */

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

int kmemdev__vmcoreinfo_parse(const void *note, size_t len,
			      const char **desc, size_t *desc_len)
{
	const unsigned char *p = note;
	struct note_hdr nh;
	size_t off;

	if (!note || !desc || !desc_len)
		return -EINVAL;
	if (len < sizeof(nh))
		return -EPROTO;
	memcpy(&nh, p, sizeof(nh));
	/* crash_update_vmcoreinfo_safecopy()/append_elf_note(): "VMCOREINFO\0". */
	if (nh.namesz != sizeof(VMCOREINFO_NAME) ||
	    len - sizeof(nh) < align4(nh.namesz) ||
	    memcmp(p + sizeof(nh), VMCOREINFO_NAME, sizeof(VMCOREINFO_NAME)))
		return -EPROTO;
	off = sizeof(nh) + align4(nh.namesz);
	if (nh.descsz > len - off)
		return -EPROTO;
	*desc = (const char *)p + off;
	*desc_len = nh.descsz;
	return 0;
}

int kmemdev__vmcoreinfo_value(const char *desc, size_t len, const char *key,
			      const char **val, size_t *val_len)
{
	size_t klen = strlen(key), i = 0;

	while (i < len) {
		const char *line = desc + i;
		const char *nl = memchr(line, '\n', len - i);
		size_t llen = nl ? (size_t)(nl - line) : len - i;

		if (llen > klen && !memcmp(line, key, klen) && line[klen] == '=') {
			*val = line + klen + 1;
			*val_len = llen - klen - 1;
			return 0;
		}
		i += llen + 1;
	}
	return -ENOENT;
}

int kmemdev__vmcoreinfo_number(const char *desc, size_t len, const char *key,
			       int base, uint64_t *val)
{
	const char *v;
	size_t vlen, i;
	uint64_t x = 0;
	int err;

	err = kmemdev__vmcoreinfo_value(desc, len, key, &v, &vlen);
	if (err)
		return err;
	if (!vlen || (base != 10 && base != 16))
		return -EPROTO;
	for (i = 0; i < vlen; i++) {
		char c = (char)(v[i] | 0x20);
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 : 99;

		if (d >= base || x > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -EPROTO;
		x = x * (uint64_t)base + (uint64_t)d;
	}
	*val = x;
	return 0;
}

/* "SYMBOL(name)=hex" (VMCOREINFO_SYMBOL(): the running, relocated address). */
int kmemdev__vmcoreinfo_symbol(const char *desc, size_t len, const char *name,
			       uint64_t *addr)
{
	char key[128];
	int n;

	n = snprintf(key, sizeof(key), "SYMBOL(%s)", name);
	if (n < 0 || (size_t)n >= sizeof(key))
		return -EINVAL;
	return kmemdev__vmcoreinfo_number(desc, len, key, 16, addr);
}

/* kallsyms_sym_address() of each version; see struct kmemdev_kallsyms. */
static uint64_t sym_address(const struct kmemdev_kallsyms *t, bool absolute_percpu,
			    uint32_t i)
{
	int32_t off = t->offsets[i];

	if (!t->has_relative_base)	/* 7.3: offset_to_ptr(&offsets[i]) */
		return t->offsets_addr + 4 * (uint64_t)i + (int64_t)off;
	if (!absolute_percpu)
		return t->relative_base + (uint32_t)off;
	if (off >= 0)
		return (uint64_t)(int64_t)off;
	return t->relative_base - 1 - (uint64_t)(int64_t)off;
}

/*
 * Characters of a name compared before the rest is expanded.  6.1 has no
 * kallsyms_seqs_of_names (6.2+) to search by name, so a by-name pass runs
 * this filter on a good part of ~100k names: it compares each wanted
 * name's first bytes as one 64-bit number, with no call per name.
 */
#define WANT_PREFIX	8

/* The wanted names' first WANT_PREFIX bytes, zero-padded, as numbers. */
struct want_keys {
	uint64_t mask[WANT_PREFIX + 1];	/* [n]: the first n bytes set */
	uint64_t *key;
	size_t n;
};

static uint64_t first_bytes(const char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static int keys_init(const struct kmemdev_kallsyms *t, struct want_keys *k)
{
	k->n = t->nwant;
	k->key = calloc(k->n ? k->n : 1, sizeof(*k->key));
	if (!k->key)
		return -ENOMEM;
	for (size_t w = 0; w < k->n; w++)
		strncpy((char *)&k->key[w], t->want[w], WANT_PREFIX);
	for (int i = 0; i <= WANT_PREFIX; i++) {
		k->mask[i] = 0;
		memset(&k->mask[i], 0xff, (size_t)i);	/* byte order neutral */
	}
	return 0;
}

/*
 * Whether a name beginning with @p (@n characters expanded so far, at
 * least WANT_PREFIX unless that is all of it; @p readable for
 * WANT_PREFIX bytes) may be one of the wanted names.
 */
static bool wanted(const struct want_keys *k, const char *p, size_t n)
{
	uint64_t m = k->mask[n < WANT_PREFIX ? n : WANT_PREFIX];
	uint64_t v = first_bytes(p) & m;

	for (size_t w = 0; w < k->n; w++)
		if ((k->key[w] & m) == v)
			return true;
	return false;
}

/*
 * Per token: false when a name whose first token it is cannot be one of
 * @t->want (the type letter, then at least one character that no wanted
 * name has there), so most names are skipped after one byte.
 */
static void first_tokens(const struct kmemdev_kallsyms *t,
			 const struct want_keys *k, bool maybe[256])
{
	for (int i = 0; i < 256; i++) {
		const char *tok = t->tokens + t->token_index[i];
		char head[WANT_PREFIX + 1] = { 0 };
		size_t n = strlen(tok);

		/* too short to decide without the next tokens */
		if (n < 2) {
			maybe[i] = true;
			continue;
		}
		strncpy(head, tok + 1, WANT_PREFIX);
		maybe[i] = wanted(k, head, n - 1);
	}
}

int kmemdev__kallsyms_decode(const struct kmemdev_kallsyms *t,
			     kmemdev__sym_fn fn, void *arg)
{
	bool absolute_percpu = false, maybe[256];
	/* the type letter, then the name; wanted() reads 8 bytes of it */
	char name[KSYM_NAME_LEN + 1] = { 0 };
	struct want_keys keys = { 0 };
	size_t off = 0;
	uint32_t i;
	int err = 0;

	for (i = 0; i < 256; i++)
		if (t->token_index[i] >= t->tokens_len ||
		    !memchr(t->tokens + t->token_index[i], '\0',
			    t->tokens_len - t->token_index[i]))
			return -EPROTO;
	/*
	 * CONFIG_KALLSYMS_ABSOLUTE_PERCPU (x86_64 SMP up to 6.14) stores
	 * every non-percpu symbol as a negative offset; without it scripts/
	 * kallsyms.c writes unsigned offsets below 2^31 (it refuses larger).
	 */
	for (i = 0; t->has_relative_base && i < t->num_syms; i++)
		if (t->offsets[i] < 0)
			absolute_percpu = true;
	if (t->want) {
		err = keys_init(t, &keys);
		if (err)
			return err;
		first_tokens(t, &keys, maybe);
	}

	for (i = 0; i < t->num_syms && !err; i++) {
		bool maybe_name = true;
		size_t len, n = 0;

		if (off >= t->names_len)
			break;
		len = t->names[off++];
		if (len & 0x80) {	/* a "big" symbol: two length bytes */
			if (off >= t->names_len)
				break;
			len = (len & 0x7f) | (size_t)t->names[off++] << 7;
		}
		if (len > t->names_len - off)
			break;
		if (i < t->first || (t->want && len && !maybe[t->names[off]])) {
			off += len;
			continue;
		}
		/*
		 * kallsyms_expand_symbol(), truncating as it does; with
		 * @t->want, a name that no wanted one begins like is left
		 * after the token that tells.
		 */
		for (; len && n < 1 + WANT_PREFIX && maybe_name; len--) {
			const char *tok = t->tokens + t->token_index[t->names[off++]];

			for (; *tok && n < sizeof(name) - 1; tok++)
				name[n++] = *tok;
			maybe_name = !t->want || n < 2 || wanted(&keys, name + 1, n - 1);
		}
		if (!maybe_name) {
			off += len;
			continue;
		}
		for (; len; len--) {
			const char *tok = t->tokens + t->token_index[t->names[off++]];

			for (; *tok && n < sizeof(name) - 1; tok++)
				name[n++] = *tok;
		}
		name[n] = '\0';
		/* s_show(): "Some debugging symbols have no name." */
		if (n < 2)
			continue;
		err = fn(arg, sym_address(t, absolute_percpu, i), name[0],
			 name + 1, NULL);
	}
	free(keys.key);
	if (err)
		return err;
	return i < t->num_syms ? -EPROTO : 0;
}

/* Read [addr, addr + len) into a new buffer. */
static int read_alloc(struct kmemdev *h, uint64_t addr, size_t len, void **out)
{
	void *buf;
	int err;

	if (!len || len > TABLE_MAX)
		return -EPROTO;
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	err = kmemdev__read_scratch(h, addr, buf, len);
	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	return 0;
}

int kmemdev__vmcoreinfo_read(struct kmemdev *h, char **note, size_t *len)
{
	int err;

	err = kmemdev__feature(h, KMEM_RO_FEAT_VMCOREINFO);
	if (err)
		return err;
	if (!h->info.vmcoreinfo_addr || !h->info.vmcoreinfo_size)
		return -EOPNOTSUPP;
	err = read_alloc(h, h->info.page_offset + h->info.vmcoreinfo_addr,
			 h->info.vmcoreinfo_size, (void **)note);
	if (!err)
		*len = h->info.vmcoreinfo_size;
	return err;
}

enum { T_NUM, T_NAMES, T_TOKENS, T_INDEX, T_OFFSETS, T_BASE, T_COUNT };

static const char *const table_names[T_COUNT] = {
	"kallsyms_num_syms", "kallsyms_names", "kallsyms_token_table",
	"kallsyms_token_index", "kallsyms_offsets", "kallsyms_relative_base",
};

/*
 * How far a table of unknown length (names, token table) may extend: up to
 * the next table above it; scripts/kallsyms.c writes them all into one
 * section, in an order that changed between versions.
 */
static size_t extent(const uint64_t *addr, int which)
{
	uint64_t end = addr[which] + TABLE_MAX;
	int i;

	for (i = 0; i < T_COUNT; i++)
		if (addr[i] > addr[which] && addr[i] < end)
			end = addr[i];
	return end - addr[which];
}

int kmemdev__kallsyms_locate(const char *desc, size_t dlen, kmemdev__read_fn read,
			     void *arg, uint16_t index[256],
			     struct kmemdev_kallsyms *t, struct kmemdev_kallsyms_at *at)
{
	uint64_t addr[T_COUNT] = { 0 };
	uint32_t num;
	int i, err;

	for (i = 0; i < T_COUNT; i++) {
		err = kmemdev__vmcoreinfo_symbol(desc, dlen, table_names[i], &addr[i]);
		if (err == -ENOENT && i == T_BASE)	/* 7.3: PC-relative offsets */
			continue;
		if (err)	/* older kernels, or kallsyms_addresses: not ours */
			return err == -ENOENT ? -EOPNOTSUPP : err;
	}
	*t = (struct kmemdev_kallsyms){ .has_relative_base = addr[T_BASE] != 0 };
	err = read(arg, addr[T_NUM], &num, sizeof(num));
	if (!err && t->has_relative_base)
		err = read(arg, addr[T_BASE], &t->relative_base, sizeof(t->relative_base));
	if (!err)
		err = read(arg, addr[T_INDEX], index, 256 * sizeof(*index));
	if (err)
		return err;
	if (!num || num > TABLE_MAX / 4)
		return -EPROTO;
	t->token_index = index;
	t->offsets_addr = addr[T_OFFSETS];
	t->num_syms = num;
	*at = (struct kmemdev_kallsyms_at){
		.names = addr[T_NAMES],
		.names_len = extent(addr, T_NAMES),
		.tokens = addr[T_TOKENS],
		.tokens_len = extent(addr, T_TOKENS),
		.offsets = addr[T_OFFSETS],
		.offsets_len = (size_t)num * 4,
	};
	return 0;
}

static int handle_read(void *arg, uint64_t kaddr, void *buf, size_t len)
{
	return kmemdev_read(arg, kaddr, buf, len);
}

/* The core (vmlinux) symbols, in the kernel's table order (those that may
 * be one of @want, if set). */
static int core_symbols(struct kmemdev *h, const char *desc, size_t dlen,
			const char *const *want, size_t nwant,
			kmemdev__sym_fn fn, void *arg)
{
	struct kmemdev_kallsyms t;
	struct kmemdev_kallsyms_at at;
	void *names = NULL, *tokens = NULL, *offsets = NULL;
	uint16_t index[256];
	int err;

	err = kmemdev__kallsyms_locate(desc, dlen, handle_read, h, index, &t, &at);
	if (!err)
		err = read_alloc(h, at.names, at.names_len, &names);
	if (!err)
		err = read_alloc(h, at.tokens, at.tokens_len, &tokens);
	if (!err)
		err = read_alloc(h, at.offsets, at.offsets_len, &offsets);
	if (!err) {
		t.names = names;
		t.names_len = at.names_len;
		t.tokens = tokens;
		t.tokens_len = at.tokens_len;
		t.offsets = offsets;
		t.want = want;
		t.nwant = nwant;
		err = kmemdev__kallsyms_decode(&t, fn, arg);
	}
	free(names);
	free(tokens);
	free(offsets);
	return err;
}

struct core_walk {
	kmemdev__sym_fn fn;
	void *arg;
	uint64_t modules;	/* &modules (kernel/module/main.c), 0 if none */
};

static int core_sym(void *arg, uint64_t addr, char type, const char *name,
		    const char *module)
{
	struct core_walk *w = arg;

	if (!strcmp(name, "modules"))
		w->modules = addr;
	return w->fn(w->arg, addr, type, name, module);
}

/* The vmlinux symbols of the running kernel's tables, in their order. */
static int core_read(struct kmemdev *h, const char *const *want, size_t nwant,
		     kmemdev__sym_fn fn, void *arg)
{
	const char *desc;
	size_t len, dlen;
	char *note;
	int err;

	err = kmemdev__vmcoreinfo_read(h, &note, &len);
	if (err)
		return err;
	err = kmemdev__vmcoreinfo_parse(note, len, &desc, &dlen);
	if (!err)
		err = core_symbols(h, desc, dlen, want, nwant, fn, arg);
	free(note);
	return err;
}

int kmemdev__kallsyms_read(struct kmemdev *h, kmemdev__sym_fn fn, void *arg)
{
	struct core_walk w = { .fn = fn, .arg = arg };
	int err;

	if (!h || !fn)
		return -EINVAL;
	err = core_read(h, NULL, 0, core_sym, &w);
	if (err)
		return err;
	/* A kernel without modules (or without BTF for them) stops here. */
	if (!w.modules)
		return 0;
	return kmemdev__kallsyms_modules(h, w.modules, fn, arg);
}

struct core_find {
	const char *const *names;
	size_t n;
	struct kmemdev_sym *out;
	bool *found;
};

/* The first of equal names in kmemdev_symbol_find()'s order: lowest address. */
static int find_sym(void *arg, uint64_t addr, char type, const char *name,
		    const char *module)
{
	struct core_find *f = arg;

	(void)module;
	for (size_t i = 0; i < f->n; i++) {
		if (strcmp(name, f->names[i]) || (f->found[i] && f->out[i].addr <= addr))
			continue;
		f->out[i].addr = addr;
		f->out[i].type = type;
		f->out[i].module = NULL;
		f->found[i] = true;
	}
	return 0;
}

int kmemdev__kallsyms_find_core(struct kmemdev *h, const char *const *names,
				size_t n, struct kmemdev_sym *syms, bool *found)
{
	struct core_find f = { .names = names, .n = n, .out = syms, .found = found };

	if (!h || !names || !syms || !found)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		found[i] = false;
	return core_read(h, names, n, find_sym, &f);
}
