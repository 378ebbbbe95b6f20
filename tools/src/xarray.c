// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl tree --xarray: every entry of a kernel XArray (or IDR, or radix
 * tree: both are XArrays) in index order, as xa_for_each() visits them,
 * and optionally fields of the objects the entries point to.
 *
 * The encoding is include/linux/xarray.h's, the same in 6.1, 6.12 and
 * 7.3: bit 0 set is a value entry (xa_to_value(): the rest shifted down);
 * low bits 10 an internal entry, a node (xa_to_node(): minus 2) when above
 * 4096, else a sibling, retry or zero entry (none of which xa_for_each()
 * returns); anything else a pointer.  A node's slots cover 1 << shift
 * indices each; children have shift - XA_CHUNK_SHIFT, down to 0.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "kmemctl.h"
#include "kvalue.h"
#include "mem.h"
#include "parse.h"
#include "tspec.h"
#include "xarray.h"

#define XA_MAX_ENTRIES	(1U << 20)
#define XA_MAX_FIELDS	16
#define XA_MAX_SLOTS	64

struct xa_entry {
	uint64_t index, entry;
};

struct xa_field {
	const char *path;
	struct kplace place;	/* in the object */
};

struct xa_walk {
	struct kmemdev *h;
	const char *what;	/* "tree --xarray ROOT (0x...)", for errors */
	uint32_t shift_off, slots_off, nslots, chunk_shift;
	struct xa_entry *e;
	size_t n, cap;
	uint64_t fault;		/* the node that could not be read */
};

static void help(void)
{
	printf("Usage: kmemctl [--device PATH] tree --xarray ROOT [--type TYPE "
	       "[--fields A,B.C,...]]\n"
	       "                 [--json]\n"
	       "List every entry of a kernel XArray in index order, as "
	       "xa_for_each() does.\n"
	       "ROOT is the struct xarray (0xHEX or SYMBOL[+-OFF]).  An IDR "
	       "or a radix tree is\n"
	       "an XArray too: give the struct idr's address (its idr_rt comes "
	       "first); IDR ids\n"
	       "are the indices plus its idr_base (0 but for idr_init_base()), "
	       "e.g. the pids of\n"
	       "the first pid namespace: tree --xarray init_pid_ns --type pid "
	       "--fields\n"
	       "numbers[0].nr.  Value entries (xa_mk_value()) print as "
	       "value N.\n"
	       "  -x, --xarray       walk an XArray (not a red-black tree)\n"
	       "  -t, --type TYPE    the entries point to TYPE objects\n"
	       "  -f, --fields LIST  members of those objects to print, by "
	       "BTF path, comma\n"
	       "                     separated (with --type)\n"
	       "  -j, --json         a JSON array of {index, entry or value, "
	       "FIELD: value, ...}\n"
	       "A node that cannot be read, or a tree of the wrong shape, is "
	       "an error after the\n"
	       "entries before it.  Memory comes from %s, or /proc/kcore when "
	       "the device\n"
	       "is absent.\n", KMEM_RO_DEVICE);
}

static bool is_internal(uint64_t e)
{
	return (e & 3) == 2;
}

static bool is_node(uint64_t e)
{
	return is_internal(e) && e > 4096;
}

static int add(struct xa_walk *x, uint64_t index, uint64_t entry)
{
	struct xa_entry *ne;

	if (x->n >= XA_MAX_ENTRIES)
		return -E2BIG;
	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 64;
		ne = realloc(x->e, x->cap * sizeof(*ne));
		if (!ne)
			return -ENOMEM;
		x->e = ne;
	}
	x->e[x->n++] = (struct xa_entry){ .index = index, .entry = entry };
	return 0;
}

/* The node at @node, covering indices from @base, its shift @shift. */
static int walk_node(struct xa_walk *x, uint64_t node, uint64_t base,
		     unsigned int shift)
{
	uint64_t slots[XA_MAX_SLOTS];
	unsigned char have;
	int err;

	err = kmemdev_read(x->h, node + x->shift_off, &have, 1);
	if (!err)
		err = kmemdev_read(x->h, node + x->slots_off, slots,
				   x->nslots * sizeof(slots[0]));
	if (err) {
		x->fault = node;
		return err;
	}
	if (have != shift) {
		x->fault = node;
		return -EPROTO;
	}
	for (uint32_t i = 0; i < x->nslots && !err; i++) {
		uint64_t e = slots[i], index = base + ((uint64_t)i << shift);

		if (!e)
			continue;
		if (!is_internal(e))
			err = add(x, index, e);
		else if (is_node(e) && shift)
			err = walk_node(x, e - 2, index, shift - x->chunk_shift);
		else if (is_node(e))
			err = (x->fault = node, -EPROTO);
		/* sibling, retry and zero entries: none of xa_for_each()'s */
	}
	return err;
}

/* From struct xarray's xa_head; its shape from BTF. */
static int walk(struct xa_walk *x, uint64_t root)
{
	uint32_t head_off, nslots_bytes;
	uint64_t head;
	unsigned char shift;
	int err;

	err = kmemdev_btf_member(x->h, "xarray", "xa_head", &head_off, NULL);
	if (!err)
		err = kmemdev_btf_member(x->h, "xa_node", "shift", &x->shift_off,
					 NULL);
	if (!err)
		err = kmemdev_btf_member(x->h, "xa_node", "slots", &x->slots_off,
					 &nslots_bytes);
	if (err)
		return err;
	x->nslots = nslots_bytes / 8;
	/* XA_CHUNK_SIZE: 64, or 16 with CONFIG_BASE_SMALL */
	if (x->nslots < 2 || x->nslots > XA_MAX_SLOTS ||
	    (x->nslots & (x->nslots - 1)))
		return -EPROTO;
	for (x->chunk_shift = 0; (1U << x->chunk_shift) < x->nslots;)
		x->chunk_shift++;
	err = kmemdev_read(x->h, root + head_off, &head, 8);
	if (err) {
		x->fault = root;
		return err;
	}
	if (!head)
		return 0;
	if (!is_node(head))
		return is_internal(head) ? 0 : add(x, 0, head);
	err = kmemdev_read(x->h, head - 2 + x->shift_off, &shift, 1);
	if (err) {
		x->fault = head - 2;
		return err;
	}
	if (shift >= 64 || shift % x->chunk_shift) {
		x->fault = head - 2;
		return -EPROTO;
	}
	return walk_node(x, head - 2, 0, shift);
}

/* The bytes of field @f of the object at @obj, @rel its place in them. */
static int read_field(struct kmemdev *h, const struct xa_field *f, uint64_t obj,
		      unsigned char *buf, size_t cap, struct kplace *rel)
{
	uint64_t bits = f->place.bit_size ? f->place.bit_size :
			ktype_size(f->place.btf, f->place.type) * 8;
	size_t len = (size_t)((f->place.bit_off % 8 + bits + 7) / 8);

	if (!bits || len > cap)
		return -E2BIG;
	*rel = f->place;
	rel->bit_off %= 8;
	return kmemdev_read(h, obj + f->place.bit_off / 8, buf, len);
}

static void print_entries(const struct xa_walk *x, const struct xa_field *f,
			  unsigned int nf, const struct kvalue *kv, bool json)
{
	static unsigned char buf[4096];
	struct kplace rel;
	struct json j;

	if (json) {
		json_init(&j, stdout);
		json_array_begin(&j, NULL);
	} else {
		printf("%-18s  ENTRY", "INDEX");
		for (unsigned int k = 0; k < nf; k++)
			printf("  %s", f[k].path);
		putchar('\n');
	}
	for (size_t i = 0; i < x->n; i++) {
		uint64_t e = x->e[i].entry;
		bool value = e & 1;

		if (json) {
			json_object_begin(&j, NULL);
			json_u64(&j, "index", x->e[i].index);
			if (value)
				json_u64(&j, "value", e >> 1);
			else
				json_hex(&j, "entry", e);
		} else if (value) {
			printf("%-18" PRIu64 "  value %" PRIu64, x->e[i].index, e >> 1);
		} else {
			printf("%-18" PRIu64 "  0x%016" PRIx64, x->e[i].index, e);
		}
		for (unsigned int k = 0; k < nf && !value; k++) {
			bool ok = !read_field(x->h, &f[k], e, buf, sizeof(buf), &rel);

			if (json && ok)
				kvalue_json(kv, &j, f[k].path, &rel, buf);
			else if (json)
				json_null(&j, f[k].path);
			else
				printf("  ");
			if (!json && ok)
				kvalue_text_inline(kv, &rel, buf);
			else if (!json)
				putchar('?');
		}
		if (json)
			json_object_end(&j);
		else
			putchar('\n');
	}
	if (json)
		json_array_end(&j);
}

/* --fields LIST of TYPE: each resolved, at most XA_MAX_FIELDS. */
static int parse_fields(const struct tspec *ts, char *list, struct xa_field *f,
			unsigned int *nf)
{
	char *save = NULL;
	int rc = KMEMCTL_EXIT_OK;

	for (char *tok = strtok_r(list, ",", &save); tok && !rc;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*nf == XA_MAX_FIELDS)
			return kmemctl_usage_err("tree: at most %d fields",
						 XA_MAX_FIELDS);
		f[*nf].path = tok;
		rc = tspec_member(ts, "tree", tok, &f[*nf].place);
		(*nf)++;
	}
	return rc;
}

static const char *reason(struct kmemdev *h, int err)
{
	switch (err) {
	case -EPROTO:
		return "node shift is wrong";
	case -E2BIG:
		return "more entries than a walk takes (1048576)";
	case -ENOMEM:
		return "out of memory";
	default:
		return mem_reason(h, err);
	}
}

struct xarray_opts {
	bool xarray;			/* --xarray: how tree.c sent us here */
	const char *type, *fields;
};

int xarray_verb(const struct kmemctl *ctx, int argc, char **argv)
{
	static const struct kmemctl_opt opts[] = {
		KMEMCTL_FLAG("xarray", 'x', struct xarray_opts, xarray),
		KMEMCTL_STR("type", 't', struct xarray_opts, type),
		KMEMCTL_STR("fields", 'f', struct xarray_opts, fields),
		{ NULL }
	};
	static const struct kmemctl_cli cli = {
		.verb = "tree --xarray", .help = help, .opts = opts,
		.min = 1, .max = 1, .missing = "ROOT",
	};
	struct kvalue kv = { .max_depth = -1, .f = stdout };
	struct xa_field f[XA_MAX_FIELDS];
	struct xa_walk x = { .what = "tree" };
	struct xarray_opts o = { .type = NULL };
	struct ktypes kt = { 0 };
	struct tspec ts = { .btf = NULL };
	const char *type, *fields;
	char list[1024], what[160], label[128];
	unsigned int nf = 0;
	uint64_t root;
	bool json;
	int err, rc;

	rc = kmemctl_parse(ctx, &cli, argc, argv, &o, &json);
	if (rc != KMEMCTL_PARSED)
		return rc;
	rc = KMEMCTL_EXIT_OK;
	type = o.type;
	fields = o.fields;
	if (fields && !type)
		rc = kmemctl_usage_err("tree --xarray: --fields needs --type TYPE");
	if (!rc && type)
		rc = tspec_resolve(&kt, "tree", type, &ts);
	if (!rc && type && ts.path)
		rc = kmemctl_usage_err("tree --type %.40s: a type, no member",
				       type);
	if (!rc && fields && strlen(fields) >= sizeof(list))
		rc = kmemctl_usage_err("tree: --fields list too long");
	if (!rc && fields)
		rc = parse_fields(&ts, strcpy(list, fields), f, &nf);
	if (rc)
		goto out;
	x.h = mem_open(ctx, "tree");
	if (!x.h) {
		rc = KMEMCTL_EXIT_ERROR;
		goto out;
	}
	rc = parse_addr_or_fail(x.h, "tree", argv[optind], &root);
	if (rc)
		goto out;
	snprintf(what, sizeof(what), "tree %s",
		 addr_label(label, sizeof(label), argv[optind], root));
	err = walk(&x, root);
	kv.btf = ts.btf;
	kv.h = x.h;
	kvalue_sym_range(&kv);
	print_entries(&x, f, nf, &kv, json);
	/* the root is on the command line: the node and why, in one line */
	if (err && x.fault)
		kmemctl_fail("tree --xarray: node 0x%" PRIx64 ", after %zu "
			     "entries: %s", x.fault, x.n, reason(x.h, err));
	else if (err)
		kmemctl_err(KMEMDEV_OP_BTF, err, "%s: look up struct xarray and "
			    "xa_node in BTF", what);
	rc = err ? KMEMCTL_EXIT_ERROR : KMEMCTL_EXIT_OK;
out:
	free(x.e);
	kmemdev_close(x.h);
	ktypes_free(&kt);
	return rc;
}

bool xarray_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--xarray") || !strcmp(argv[i], "-x"))
			return true;
	return false;
}
