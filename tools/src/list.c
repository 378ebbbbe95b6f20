// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl list: every node of a kernel list_head list, with fields chosen
 * by BTF name, gathered by one WALK ioctl (or by reads on /proc/kcore).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "kmemctl.h"
#include "kvalue.h"
#include "kwalk.h"
#include "list.h"
#include "mem.h"
#include "parse.h"
#include "tspec.h"

struct field {
	char *path;
	struct kplace place;	/* in the node */
	struct kplace rel;	/* in the field's bytes */
	unsigned int pos;	/* of its bytes in a record */
};

struct list {
	const char *verb;	/* "list" or "tree" */
	enum list_shape shape;
	struct tspec ts;
	struct field *f;
	unsigned int n;
	struct kmem_ro_field wf[KMEM_RO_WALK_MAX_FIELDS];
	unsigned int nwf;
	size_t rec_size;
};

/*
 * Members that are a list's head in every object of their type, whose
 * nodes link through another member: walking them as a link reads
 * garbage, and nothing in BTF tells a head from a link.
 */
static const struct {
	const char *type, *head, *link;
} heads[] = {
	{ "task_struct", "children", "sibling" },
};

static void help(void)
{
	printf("Usage: kmemctl [--device PATH] list TYPE.MEMBER HEAD "
	       "[--fields A,B.C,...] [--json]\n"
	       "                 [--hlist]\n"
	       "       kmemctl [--device PATH] list TYPE.MEMBER --node ADDR "
	       "[--fields ...] [--json]\n"
	       "Walk a kernel list: nodes are TYPE objects linked through "
	       "their struct\n"
	       "list_head MEMBER (a path: se.group_node), HEAD is the list's "
	       "own list_head\n"
	       "(0xHEX or SYMBOL[+-OFF], e.g. modules), or ADDR.PATH: the "
	       "list_head at PATH\n"
	       "in the TYPE object at ADDR (list task_struct.sibling "
	       "init_task.children).\n"
	       "One WALK ioctl gathers the fields of every node; on "
	       "/proc/kcore the same walk\n"
	       "is done with reads.  A list that loops without coming back "
	       "to its head is an\n"
	       "error, after the nodes before the loop.\n"
	       "  -f, --fields LIST  members to print, by BTF path, comma "
	       "separated\n"
	       "                     (default: node addresses only)\n"
	       "  -n, --node ADDR    start at the node at ADDR, a TYPE object "
	       "in the list,\n"
	       "                     listed first (init_task for "
	       "task_struct.tasks)\n"
	       "  -H, --hlist        an hlist: MEMBER is a struct hlist_node, "
	       "HEAD a struct\n"
	       "                     hlist_head (or --node); NULL ends it "
	       "(walked with reads)\n"
	       "  -j, --json         a JSON array of {addr, FIELD: value, ...}\n"
	       "Text: one line per node, ADDR then the fields in columns, "
	       "values as struct\n"
	       "prints them (structs on one line).  Memory comes from %s, "
	       "or /proc/kcore\n"
	       "when the device is absent.\n", KMEM_RO_DEVICE);
}

static int add_fields(struct list *l, const char *spec)
{
	char *copy = strdup(spec), *save = NULL, *tok;
	size_t pos = 8;
	int rc = KMEMCTL_EXIT_OK;

	if (!copy) {
		kmemctl_err(KMEMDEV_OP_ANY, -ENOMEM, "%s", l->verb);
		return KMEMCTL_EXIT_ERROR;
	}
	for (tok = strtok_r(copy, ",", &save); tok && !rc;
	     tok = strtok_r(NULL, ",", &save)) {
		struct field *f, *nf;
		uint64_t bits, first, len;

		if (l->n >= KMEM_RO_WALK_MAX_FIELDS) {
			rc = kmemctl_usage_err("%s: at most %d fields",
					       l->verb, KMEM_RO_WALK_MAX_FIELDS);
			break;
		}
		nf = realloc(l->f, (l->n + 1) * sizeof(*nf));
		if (!nf) {
			kmemctl_err(KMEMDEV_OP_ANY, -ENOMEM, "%s", l->verb);
			rc = KMEMCTL_EXIT_ERROR;
			break;
		}
		l->f = nf;
		f = &l->f[l->n];
		memset(f, 0, sizeof(*f));
		rc = tspec_member(&l->ts, l->verb, tok, &f->place);
		if (rc)
			break;
		bits = f->place.bit_size ? f->place.bit_size :
		       ktype_size(f->place.btf, f->place.type) * 8;
		first = f->place.bit_off / 8;
		len = (f->place.bit_off % 8 + bits + 7) / 8;
		if (!bits || pos + len > KMEM_RO_WALK_MAX_RECORD) {
			rc = kmemctl_usage_err("%s: field '%.40s': %s", l->verb,
					       tok,
					       bits ? "the fields exceed 4096 "
					       "bytes a node" : "has no size");
			break;
		}
		f->path = strdup(tok);
		f->rel = f->place;
		f->rel.bit_off %= 8;
		f->pos = (unsigned int)pos;
		l->wf[l->nwf].offset = (uint32_t)first;
		l->wf[l->nwf].len = (uint32_t)len;
		l->nwf++;
		l->n++;
		pos += len;
		if (!f->path) {
			kmemctl_err(KMEMDEV_OP_ANY, -ENOMEM, "%s", l->verb);
			rc = KMEMCTL_EXIT_ERROR;
		}
	}
	free(copy);
	return rc;
}

/* The text of one value, for column widths. */
static char *value_text(const struct kvalue *kv, const struct field *f,
			const unsigned char *rec)
{
	struct kvalue k = *kv;
	char *s = NULL;
	size_t len = 0;

	k.f = open_memstream(&s, &len);
	if (!k.f)
		return NULL;
	kvalue_text_inline(&k, &f->rel, rec + f->pos);
	fclose(k.f);
	return s;
}

static int print_text(const struct list *l, const struct kvalue *kv,
		      const unsigned char *recs, uint32_t nodes)
{
	size_t *width = calloc(l->n + 1, sizeof(*width));
	char **cell = calloc((size_t)nodes * (l->n ? l->n : 1) + 1,
			     sizeof(*cell));
	uint32_t i;
	unsigned int k;

	if (!width || !cell) {
		free(width);
		free(cell);
		return -ENOMEM;
	}
	for (k = 0; k < l->n; k++)
		width[k] = strlen(l->f[k].path);
	for (i = 0; i < nodes; i++) {
		for (k = 0; k < l->n; k++) {
			char *s = value_text(kv, &l->f[k],
					     recs + (size_t)i * l->rec_size);

			cell[(size_t)i * l->n + k] = s;
			if (s && strlen(s) > width[k])
				width[k] = strlen(s);
		}
	}
	printf("%-18s", "ADDR");
	for (k = 0; k < l->n; k++)
		printf("  %-*s", k + 1 < l->n ? (int)width[k] : 0, l->f[k].path);
	putchar('\n');
	for (i = 0; i < nodes; i++) {
		uint64_t addr;

		memcpy(&addr, recs + (size_t)i * l->rec_size, 8);
		printf("0x%016" PRIx64, addr);
		for (k = 0; k < l->n; k++) {
			const char *s = cell[(size_t)i * l->n + k];

			printf("  %-*s", k + 1 < l->n ? (int)width[k] : 0,
			       s ? s : "?");
		}
		putchar('\n');
	}
	for (i = 0; i < (size_t)nodes * l->n; i++)
		free(cell[i]);
	free(cell);
	free(width);
	return 0;
}

static void print_json(const struct list *l, const struct kvalue *kv,
		       const unsigned char *recs, uint32_t nodes)
{
	struct json j;
	uint32_t i;
	unsigned int k;

	json_init(&j, stdout);
	json_array_begin(&j, NULL);
	for (i = 0; i < nodes; i++) {
		const unsigned char *rec = recs + (size_t)i * l->rec_size;
		uint64_t addr;

		memcpy(&addr, rec, 8);
		json_object_begin(&j, NULL);
		json_hex(&j, "addr", addr);
		for (k = 0; k < l->n; k++)
			kvalue_json(kv, &j, l->f[k].path, &l->f[k].rel,
				    rec + l->f[k].pos);
		json_object_end(&j);
	}
	json_array_end(&j);
}

/* The record of the --node object itself, read field by field. */
static int node_record(struct kmemdev *h, const struct list *l, uint64_t node,
		       unsigned char *rec, const char *what)
{
	unsigned int k;

	memcpy(rec, &node, 8);
	for (k = 0; k < l->nwf && l->n; k++)
		if (mem_read(h, what, node + l->wf[k].offset, rec + l->f[k].pos,
			     l->wf[k].len))
			return -EIO;
	return 0;
}

static const char *walk_reason(struct kmemdev *h, int err,
			       enum list_shape shape)
{
	switch (err) {
	case -ELOOP:
		return shape == LIST_HLIST ? "the hlist loops: no NULL ends it" :
		       shape == LIST_TREE ? "deeper than a red-black tree can be" :
		       "the list loops without coming back to its head";
	case -E2BIG:
		return "more nodes than a walk takes (1048576)";
	case -ENOMEM:
		return "out of memory";
	default:
		return mem_reason(h, err);
	}
}

/* Is @p a whole struct named @name (through typedefs)? */
static bool is_struct(const struct kplace *p, const char *name)
{
	const struct btf_type *t =
		btf__type_by_id(p->btf, ktype_skip(p->btf, p->type));
	const char *n = t ? btf__name_by_offset(p->btf, t->name_off) : NULL;

	return t && btf_is_struct(t) && n && !strcmp(n, name) &&
	       !p->bit_size && !(p->bit_off % 8);
}

/*
 * Refuse a MEMBER that cannot link TYPE's nodes: not in the node itself,
 * not a list_head (hlist_node with --hlist), or a known list head.
 */
static int check_link(const struct list *l, const char *spec)
{
	static const char *const links[] = {
		[LIST_RING] = "list_head", [LIST_HLIST] = "hlist_node",
		[LIST_TREE] = "rb_node",
	};
	const char *want = links[l->shape];
	const struct btf_type *t =
		btf__type_by_id(l->ts.btf, ktype_skip(l->ts.btf, l->ts.outer));
	const char *tname = t ? btf__name_by_offset(l->ts.btf, t->name_off) : "";
	char mtype[160];
	size_t i;

	if (l->ts.nderef) {
		kmemctl_fail("%s %.60s: the link must be in the node, not "
			     "through a pointer", l->verb, spec);
		return KMEMCTL_EXIT_ERROR;
	}
	if (!is_struct(&l->ts.place, want)) {
		ktype_name(l->ts.place.btf, l->ts.place.type, mtype,
			   sizeof(mtype));
		kmemctl_fail("%s %.60s: a %.40s, not a struct %s%s", l->verb,
			     spec, mtype, want,
			     l->shape == LIST_RING &&
			     is_struct(&l->ts.place, "hlist_node") ?
			     " (--hlist)" : "");
		return KMEMCTL_EXIT_ERROR;
	}
	for (i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		if (strcmp(tname, heads[i].type) || strcmp(l->ts.path,
							   heads[i].head))
			continue;
		kmemctl_fail("list %.60s: a list head: use list %s.%s ADDR.%s",
			     spec, tname, heads[i].link, heads[i].head);
		return KMEMCTL_EXIT_ERROR;
	}
	return KMEMCTL_EXIT_OK;
}

/*
 * HEAD: an address, or ADDR.PATH (ADDR->PATH): the list_head (hlist_head
 * with --hlist) at PATH in the TYPE object at ADDR.
 */
static int parse_head(struct kmemdev *h, const struct list *l,
		      const char *expr, uint64_t *head)
{
	static const char *const heads_of[] = {
		[LIST_RING] = "list_head", [LIST_HLIST] = "hlist_head",
		[LIST_TREE] = "rb_root",
	};
	const char *want = heads_of[l->shape];
	const char *dot = strchr(expr, '.'), *arrow = strstr(expr, "->");
	char base[128], mtype[160];
	struct kplace p;
	size_t n;
	int rc;

	/* symbol names may hold dots (foo.cold): the whole first */
	if ((!dot && !arrow) || !kmemdev_parse_addr(h, expr, head))
		return parse_addr_or_fail(h, l->verb, expr, head);
	if (!dot || (arrow && arrow < dot))
		dot = arrow;
	n = (size_t)(dot - expr);
	if (n >= sizeof(base))
		return parse_addr_or_fail(h, l->verb, expr, head);
	memcpy(base, expr, n);
	base[n] = '\0';
	rc = parse_addr_or_fail(h, l->verb, base, head);
	if (rc)
		return rc;
	rc = tspec_member(&l->ts, l->verb, dot + (*dot == '.' ? 1 : 2), &p);
	if (rc)
		return rc;
	/* rb_root_cached starts with its rb_root */
	if (!is_struct(&p, want) && !(l->shape == LIST_TREE &&
				       is_struct(&p, "rb_root_cached"))) {
		kmemctl_fail("%s %.60s: a %.40s, not a struct %s", l->verb, expr,
			     ktype_name(p.btf, p.type, mtype, sizeof(mtype)),
			     want);
		return KMEMCTL_EXIT_ERROR;
	}
	*head += p.bit_off / 8;
	return KMEMCTL_EXIT_OK;
}

struct list_opts {
	const char *fields;	/* --fields */
	const char *node_expr;	/* --node */
	bool hlist;		/* --hlist */
};

int list_verb(const struct kmemctl *ctx, int argc, char **argv,
	      enum list_shape shape, void (*help_fn)(void))
{
	static const struct kmemctl_opt opts[] = {
		KMEMCTL_STR("fields", 'f', struct list_opts, fields),
		KMEMCTL_STR("node", 'n', struct list_opts, node_expr),
		KMEMCTL_FLAG("hlist", 'H', struct list_opts, hlist),
		{ NULL }
	};
	const struct kmemctl_cli cli = {
		.verb = argv[0], .help = help_fn, .opts = opts, .max = -1,
	};
	struct list_opts o = { NULL };
	const char *fields, *node_expr, *head_expr = NULL;
	struct kvalue kv = { .max_depth = -1, .f = stdout };
	struct ktypes kt = { 0 };
	struct list l = { .verb = argv[0], .shape = shape };
	struct kwalk w = { 0 };
	unsigned char *all = NULL;
	struct kmemdev *h = NULL;
	uint64_t head, node = 0;
	bool json;
	char what[160];
	int err, rc;
	uint32_t total;

	rc = kmemctl_parse(ctx, &cli, argc, argv, &o, &json);
	if (rc != KMEMCTL_PARSED)
		return rc;
	fields = o.fields;
	node_expr = o.node_expr;
	if (shape == LIST_TREE && node_expr)
		return kmemctl_usage_err("tree: no --node: a tree is walked from "
					 "its root");
	if (shape == LIST_TREE && o.hlist)
		return kmemctl_usage_err("tree: no --hlist");
	if (o.hlist)
		l.shape = LIST_HLIST;
	if (optind >= argc)
		return kmemctl_usage_err("%s: missing TYPE.MEMBER", l.verb);
	if (!node_expr && argc - optind < 2)
		return kmemctl_usage_err(shape == LIST_TREE ?
					 "%s: missing ROOT" :
					 "%s: missing HEAD (or --node ADDR)",
					 l.verb);
	if (kmemctl_operands(l.verb, argc, argv, 0, node_expr ? 1 : 2, NULL))
		return KMEMCTL_EXIT_USAGE;
	if (!node_expr)
		head_expr = argv[optind + 1];

	rc = tspec_resolve(&kt, l.verb, argv[optind], &l.ts);
	if (rc)
		goto out;
	if (!l.ts.path) {
		rc = kmemctl_usage_err("%s: '%.40s' names no MEMBER: use "
				       "TYPE.MEMBER", l.verb, argv[optind]);
		goto out;
	}
	rc = check_link(&l, argv[optind]);
	if (rc)
		goto out;
	if (fields) {
		rc = add_fields(&l, fields);
		if (rc)
			goto out;
	}
	if (!l.nwf) {
		/* WALK wants a field: the link itself, not printed */
		l.wf[0].offset = (uint32_t)(l.ts.place.bit_off / 8);
		l.wf[0].len = 8;
		l.nwf = 1;
	}
	l.rec_size = w.rec_size = 8;
	for (unsigned int k = 0; k < l.nwf; k++)
		l.rec_size += l.wf[k].len;

	h = mem_open(ctx, l.verb);
	if (!h) {
		rc = KMEMCTL_EXIT_ERROR;
		goto out;
	}
	if (node_expr) {
		rc = parse_addr_or_fail(h, l.verb, node_expr, &node);
		if (rc)
			goto out;
		head = node + l.ts.place.bit_off / 8;
	} else {
		rc = parse_head(h, &l, head_expr, &head);
		if (rc)
			goto out;
	}
	snprintf(what, sizeof(what), "%s %.60s at 0x%" PRIx64, l.verb,
		 argv[optind], node_expr ? node : head);
	w.head = head;
	w.link_offset = l.ts.place.bit_off / 8;
	w.fields = l.wf;
	w.nfields = l.nwf;
	if (l.shape != LIST_RING) {
		/*
		 * From hlist_head.first or rb_root.rb_node, or from the
		 * --node itself
		 */
		if (!node_expr && mem_read(h, what, head, &w.head, 8)) {
			rc = KMEMCTL_EXIT_ERROR;
			goto out;
		}
		err = l.shape == LIST_HLIST ? kwalk_hlist_run(h, &w) :
		      kwalk_rbtree_run(h, &w);
		node_expr = NULL;	/* the walk lists it */
	} else {
		err = kwalk_run(h, &w);
	}

	total = w.nodes + (node_expr ? 1 : 0);
	all = malloc((size_t)(total ? total : 1) * l.rec_size);
	if (!all) {
		kmemctl_err(KMEMDEV_OP_ANY, -ENOMEM, "%s", l.verb);
		rc = KMEMCTL_EXIT_ERROR;
		goto out;
	}
	if (node_expr && node_record(h, &l, node, all, what)) {
		rc = KMEMCTL_EXIT_ERROR;
		goto out;
	}
	if (w.nodes)
		memcpy(all + (node_expr ? l.rec_size : 0), w.buf,
		       (size_t)w.nodes * l.rec_size);

	kv.btf = l.ts.place.btf;
	kv.h = h;
	kvalue_sym_range(&kv);
	if (json)
		print_json(&l, &kv, all, total);
	else if (print_text(&l, &kv, all, total))
		kmemctl_err(KMEMDEV_OP_ANY, -ENOMEM, "%s", l.verb);
	rc = KMEMCTL_EXIT_OK;
	if (err) {
		/* what was gathered is printed; the rest is an error */
		if (w.fault_addr)
			kmemctl_fail("%s: after %" PRIu32 " nodes, at 0x%" PRIx64
				     ": %s", what, w.nodes, w.fault_addr,
				     walk_reason(h, err, l.shape));
		else
			kmemctl_fail("%s: after %" PRIu32 " nodes: %s", what,
				     w.nodes, walk_reason(h, err, l.shape));
		rc = KMEMCTL_EXIT_ERROR;
	}
out:
	for (unsigned int k = 0; k < l.n; k++)
		free(l.f[k].path);
	free(l.f);
	free(all);
	free(w.buf);
	kmemdev_close(h);
	ktypes_free(&kt);
	return rc;
}

int kmemctl_list(const struct kmemctl *ctx, int argc, char **argv)
{
	return list_verb(ctx, argc, argv, LIST_RING, help);
}
