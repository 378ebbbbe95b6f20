// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl dmesg: the kernel log read from memory, from the lockless
 * printk ring buffer (kernel/printk/printk_ringbuffer.h, 5.10 on; the
 * layout of each kernel from its BTF), as drgn's get_printk_records() and
 * crash's log read it: descriptors from tail_id to head_id, each with its
 * printk_info, the text in the data ring after its block's id.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "kmemctl.h"
#include "ktype.h"
#include "mem.h"

/* state_var: two state bits above the id (printk_ringbuffer.h). */
#define DESC_FLAGS_SHIFT	62
#define DESC_FLAGS_MASK		(3ULL << DESC_FLAGS_SHIFT)
#define DESC_ID_MASK		(~DESC_FLAGS_MASK)
#define DESC_COMMITTED		1
#define DESC_FINALIZED		2
/* rings beyond these are no printk ring (LOG_BUF_SHIFT is at most 25) */
#define COUNT_BITS_MAX		26
#define SIZE_BITS_MAX		31

/* Offsets the walk needs, from BTF. */
struct layout {
	uint64_t count_bits, descs, infos, head_id, tail_id;	/* prb */
	uint64_t size_bits, data;				/* prb */
	uint64_t desc_size, state_var, begin, next;		/* prb_desc */
	uint64_t info_size, seq, ts_nsec, text_len, facility, caller_id;
	struct kplace level;					/* bitfield */
};

static void help(void)
{
	printf("Usage: kmemctl [--device PATH] dmesg [--json]\n"
	       "Print the kernel log from memory (the printk ring buffer "
	       "prb), as dmesg\n"
	       "prints it: \"[seconds.micros] text\", a line of text each; "
	       "records not yet\n"
	       "committed are left out.  Needs only reads: works where "
	       "syslog(2) is refused\n"
	       "(dmesg_restrict), as /proc/kcore would.\n"
	       "  -j, --json  a JSON array of {seq, ts_nsec, level, facility, "
	       "caller_id, text}\n");
}

static int off(struct ktypes *kt, const char *type, const char *path,
	       uint64_t *o, struct kplace *place)
{
	const struct btf *btf;
	struct kplace p;
	char bad[64];
	uint32_t id;

	if (ktypes_find(kt, type, &btf, &id) ||
	    ktype_path(btf, id, path, &p, bad, sizeof(bad))) {
		kmemctl_fail("dmesg: no %s.%s in the kernel's BTF", type, path);
		return -ENOENT;
	}
	if (o)
		*o = p.bit_off / 8;
	if (place)
		*place = p;
	return 0;
}

static int load_layout(struct ktypes *kt, struct layout *l)
{
	const struct btf *btf;
	uint32_t id;

	if (off(kt, "printk_ringbuffer", "desc_ring.count_bits", &l->count_bits, NULL) ||
	    off(kt, "printk_ringbuffer", "desc_ring.descs", &l->descs, NULL) ||
	    off(kt, "printk_ringbuffer", "desc_ring.infos", &l->infos, NULL) ||
	    off(kt, "printk_ringbuffer", "desc_ring.head_id", &l->head_id, NULL) ||
	    off(kt, "printk_ringbuffer", "desc_ring.tail_id", &l->tail_id, NULL) ||
	    off(kt, "printk_ringbuffer", "text_data_ring.size_bits", &l->size_bits, NULL) ||
	    off(kt, "printk_ringbuffer", "text_data_ring.data", &l->data, NULL) ||
	    off(kt, "prb_desc", "state_var", &l->state_var, NULL) ||
	    off(kt, "prb_desc", "text_blk_lpos.begin", &l->begin, NULL) ||
	    off(kt, "prb_desc", "text_blk_lpos.next", &l->next, NULL) ||
	    off(kt, "printk_info", "seq", &l->seq, NULL) ||
	    off(kt, "printk_info", "ts_nsec", &l->ts_nsec, NULL) ||
	    off(kt, "printk_info", "text_len", &l->text_len, NULL) ||
	    off(kt, "printk_info", "facility", &l->facility, NULL) ||
	    off(kt, "printk_info", "caller_id", &l->caller_id, NULL) ||
	    off(kt, "printk_info", "level", NULL, &l->level))
		return -ENOENT;
	if (ktypes_find(kt, "prb_desc", &btf, &id))
		return -ENOENT;
	l->desc_size = ktype_size(btf, id);
	if (ktypes_find(kt, "printk_info", &btf, &id))
		return -ENOENT;
	l->info_size = ktype_size(btf, id);
	return l->desc_size && l->info_size ? 0 : -ENOENT;
}

static uint64_t get(const unsigned char *p, uint64_t off, unsigned int len)
{
	uint64_t v = 0;

	memcpy(&v, p + off, len);
	return v;
}

/* The ring's arrays and data, read whole. */
struct ring {
	unsigned char *descs, *infos, *data;
	uint64_t ndescs, data_size, head_id, tail_id;
};

static int read_ring(struct kmemdev *h, const struct layout *l, struct ring *r)
{
	unsigned char rb[256];
	uint64_t prb, count_bits, size_bits, descs, infos, data;

	if (kmemdev_symbol(h, "prb", &prb)) {
		kmemctl_fail("dmesg: no symbol prb (the printk ring buffer)");
		return -ENOENT;
	}
	/* prb points at printk_rb_static, or at the one log_buf_len= made */
	if (mem_read(h, "dmesg: prb", prb, &prb, 8) ||
	    mem_read(h, "dmesg: printk_ringbuffer", prb, rb,
		     l->data + 8 > l->tail_id + 8 ? l->data + 8 : l->tail_id + 8))
		return -EIO;
	count_bits = get(rb, l->count_bits, 4);
	size_bits = get(rb, l->size_bits, 4);
	descs = get(rb, l->descs, 8);
	infos = get(rb, l->infos, 8);
	data = get(rb, l->data, 8);
	r->head_id = get(rb, l->head_id, 8);
	r->tail_id = get(rb, l->tail_id, 8);
	if (count_bits > COUNT_BITS_MAX || size_bits > SIZE_BITS_MAX) {
		kmemctl_fail("dmesg: printk_ringbuffer at 0x%" PRIx64 ": "
			     "count_bits %" PRIu64 ", size_bits %" PRIu64
			     ": not a printk ring", prb, count_bits, size_bits);
		return -EINVAL;
	}
	r->ndescs = 1ULL << count_bits;
	r->data_size = 1ULL << size_bits;
	r->descs = malloc(r->ndescs * l->desc_size);
	r->infos = malloc(r->ndescs * l->info_size);
	r->data = malloc(r->data_size);
	if (!r->descs || !r->infos || !r->data) {
		kmemctl_err(KMEMDEV_OP_ANY, -ENOMEM, "dmesg");
		return -ENOMEM;
	}
	if (mem_read(h, "dmesg: prb descs", descs, r->descs,
		     r->ndescs * l->desc_size) ||
	    mem_read(h, "dmesg: prb infos", infos, r->infos,
		     r->ndescs * l->info_size) ||
	    mem_read(h, "dmesg: prb data", data, r->data, r->data_size))
		return -EIO;
	return 0;
}

/* "[    5.123456] " as the kernel's print_time() writes it. */
static void print_record(struct json *j, uint64_t seq, uint64_t ts,
			 unsigned int level, unsigned int facility,
			 uint32_t caller, const char *text, size_t len)
{
	size_t i, start = 0;

	if (j) {
		json_object_begin(j, NULL);
		json_u64(j, "seq", seq);
		json_u64(j, "ts_nsec", ts);
		json_u64(j, "level", level);
		json_u64(j, "facility", facility);
		json_u64(j, "caller_id", caller);
		json_str_n(j, "text", text, len);
		json_object_end(j);
		return;
	}
	/* every line of a record carries the record's prefix */
	for (i = 0; i <= len; i++) {
		if (i < len && text[i] != '\n')
			continue;
		printf("[%5" PRIu64 ".%06" PRIu64 "] %.*s\n", ts / 1000000000,
		       ts % 1000000000 / 1000, (int)(i - start), text + start);
		start = i + 1;
	}
}

static void walk(const struct layout *l, const struct ring *r, struct json *j)
{
	uint64_t id = r->tail_id, mask = r->ndescs - 1, dmask = r->data_size - 1;
	uint64_t n;

	/* at most one lap: a ring changing under us cannot loop forever */
	for (n = 0; n <= r->ndescs; n++, id = (id + 1) & DESC_ID_MASK) {
		const unsigned char *d = r->descs + (id & mask) * l->desc_size;
		const unsigned char *in = r->infos + (id & mask) * l->info_size;
		uint64_t sv = get(d, l->state_var, 8), state;
		uint64_t begin = get(d, l->begin, 8), next = get(d, l->next, 8);
		uint64_t len = get(in, l->text_len, 2), b, size;
		unsigned int lv = (unsigned int)(get(in, l->level.bit_off / 8, 1) >>
						 (l->level.bit_off % 8)) & 7;

		state = (sv & DESC_FLAGS_MASK) >> DESC_FLAGS_SHIFT;
		if ((sv & DESC_ID_MASK) == (id & DESC_ID_MASK) &&
		    (state == DESC_COMMITTED || state == DESC_FINALIZED)) {
			/* get_data() of printk_ringbuffer.c */
			if (begin & 1 || next == begin) {
				size = 0;	/* a data-less block */
				b = 0;
			} else if ((begin & ~dmask) == (next & ~dmask)) {
				b = begin & dmask;
				size = next - begin;
			} else {
				/* a block that wraps is stored at the start */
				b = 0;
				size = next & dmask;
			}
			/* the block starts with its id */
			size = size >= 8 && b + size <= r->data_size ? size - 8 : 0;
			if (len > size)
				len = size;
			print_record(j, get(in, l->seq, 8), get(in, l->ts_nsec, 8),
				     lv, (unsigned int)get(in, l->facility, 1),
				     (uint32_t)get(in, l->caller_id, 4),
				     (const char *)r->data + b + 8, len);
		}
		if ((id & DESC_ID_MASK) == (r->head_id & DESC_ID_MASK))
			break;
	}
}

int kmemctl_dmesg(const struct kmemctl *ctx, int argc, char **argv)
{
	static const struct kmemctl_cli cli = { .verb = "dmesg", .help = help };
	struct ring r = { 0 };
	struct ktypes kt = { 0 };
	struct layout l;
	struct kmemdev *h = NULL;
	struct json j;
	bool json;
	int err, rc;

	rc = kmemctl_parse(ctx, &cli, argc, argv, NULL, &json);
	if (rc != KMEMCTL_PARSED)
		return rc;
	rc = KMEMCTL_EXIT_ERROR;
	err = ktypes_load(&kt);
	if (err) {
		kmemctl_err(KMEMDEV_OP_BTF, err, "dmesg: load BTF");
		return KMEMCTL_EXIT_ERROR;
	}
	if (load_layout(&kt, &l))
		goto out;
	h = mem_open(ctx, "dmesg");
	if (!h || read_ring(h, &l, &r))
		goto out;
	if (json) {
		json_init(&j, stdout);
		json_array_begin(&j, NULL);
	}
	walk(&l, &r, json ? &j : NULL);
	if (json)
		json_array_end(&j);
	rc = KMEMCTL_EXIT_OK;
out:
	free(r.descs);
	free(r.infos);
	free(r.data);
	kmemdev_close(h);
	ktypes_free(&kt);
	return rc;
}
