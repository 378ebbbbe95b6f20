// SPDX-License-Identifier: GPL-2.0
/* kmemctl struct: a kernel object printed by its BTF type, or a type's layout. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "klayout.h"
#include "kmemctl.h"
#include "kvalue.h"
#include "mem.h"
#include "parse.h"
#include "percpu.h"
#include "tspec.h"

#define DEPTH_MAX	1000
#define STRINGIFY(x)	#x
#define RANGE_TO(max)	"0 to " STRINGIFY(max)	/* as errors say it */

static void help(void)
{
	printf("Usage: kmemctl [--device PATH] struct TYPE[.MEMBER...] ADDR "
	       "[--json] [--depth N]\n"
	       "                 [--cpu N]\n"
	       "       kmemctl struct --type-only TYPE[.MEMBER...] [--json] "
	       "[--depth N]\n"
	       "Print the kernel object at ADDR by its BTF type "
	       "(/sys/kernel/btf), as crash's\n"
	       "struct does: nested structs and unions, arrays, bitfields, "
	       "char arrays as\n"
	       "strings, enums by name, pointers with <symbol+0xoff> when "
	       "they point into the\n"
	       "kernel image or near a module symbol.  TYPE.member.sub[N] "
	       "prints one member;\n"
	       "a path follows pointers (task_struct.signal.rlim[7], "
	       "a->b as a.b, p[N]).\n"
	       "  TYPE             task_struct, struct task_struct, union "
	       "NAME, a typedef;\n"
	       "                   module types too (their /sys/kernel/btf "
	       "file)\n"
	       "  ADDR             0xHEX, SYMBOL, SYMBOL+OFF or SYMBOL-OFF "
	       "(OFF: 0x hex or\n"
	       "                   decimal; 010 is ten)\n"
	       "  -t, --type-only  the layout (offsets, sizes, declarations) "
	       "with no object:\n"
	       "                   needs only BTF, no device\n"
	       "  -d, --depth N    levels of nested structs shown (default: "
	       "all; with\n"
	       "                   --type-only 1); deeper ones print as {...}\n"
	       "  -c, --cpu N      CPU N's copy of a per-CPU variable (ADDR "
	       "like runqueues);\n"
	       "                   without it, one per possible CPU (ADDR a "
	       "symbol)\n"
	       "  -j, --json       one JSON object: {type, addr, size, value} "
	       "(path if a member;\n"
	       "                   cpu for a per-CPU variable, an array of "
	       "them for all)\n"
	       "Memory comes from %s, or /proc/kcore when the device is "
	       "absent.\n", KMEM_RO_DEVICE);
}

/* The bytes of @p, read whole; *@data[0] is the byte at bit_off / 8. */
static int read_place(struct kmemdev *h, const char *what, uint64_t addr,
		      const struct kplace *p, unsigned char **data,
		      uint64_t *len)
{
	uint64_t bits = p->bit_size ? p->bit_size : ktype_size(p->btf, p->type) * 8;
	uint64_t first = p->bit_off / 8;
	uint64_t end = (p->bit_off + bits + 7) / 8;

	*len = end - first;
	if (!bits) {
		kmemctl_fail("%s: the type has no size to read", what);
		return -EINVAL;
	}
	if (*len > (64ULL << 20)) {
		kmemctl_fail("%s: %" PRIu64 " bytes is too large to print", what,
			     *len);
		return -EFBIG;
	}
	if (addr + first < addr || addr + first + *len - 1 < addr) {
		kmemctl_fail("%s: wraps past the end of the address space", what);
		return -EINVAL;
	}
	*data = malloc(*len);
	if (!*data) {
		kmemctl_err(KMEMDEV_OP_ANY, -ENOMEM, "%s", what);
		return -ENOMEM;
	}
	if (mem_read(h, what, addr + first, *data, *len)) {
		free(*data);
		*data = NULL;
		return -EIO;
	}
	return 0;
}

static int type_only(const struct tspec *ts, const char *spec, bool json,
		     int depth)
{
	if (json) {
		struct json j;

		json_init(&j, stdout);
		klayout_json(&j, &ts->place, ts->path ? spec : NULL, depth);
	} else {
		klayout_text(stdout, &ts->place, ts->path ? spec : NULL, depth);
	}
	return KMEMCTL_EXIT_OK;
}

/* One object: @base is TYPE's object (a CPU's copy if @cpu >= 0). */
static int show_one(struct kmemdev *h, const struct tspec *ts,
		    const char *spec, uint64_t base, int64_t cpu,
		    struct json *j, int depth)
{
	struct kvalue kv = { .btf = ts->place.btf, .max_depth = depth,
			     .f = stdout, .h = h };
	struct kplace rel = ts->place;
	char what[256], tname[160];
	unsigned char *data = NULL;
	uint64_t addr, len;
	int n;

	/* "struct task_struct at 0xffffffff82a0c940" */
	n = snprintf(what, sizeof(what), "struct %.60s at 0x%" PRIx64, spec,
		     base);
	if (cpu >= 0)
		snprintf(what + n, sizeof(what) - (size_t)n, " (CPU %" PRId64 ")",
			 cpu);
	if (tspec_follow(h, ts, what, base, &addr))
		return KMEMCTL_EXIT_ERROR;
	if (ts->nderef) {
		/* the last pointer's target is what a failed read names */
		n = (int)strlen(what);
		snprintf(what + n, sizeof(what) - (size_t)n, ": %s -> 0x%" PRIx64,
			 ts->deref[ts->nderef - 1].via, addr);
	}
	if (read_place(h, what, addr, &ts->place, &data, &len))
		return KMEMCTL_EXIT_ERROR;
	rel.bit_off = ts->place.bit_off % 8;
	kvalue_sym_range(&kv);
	ktype_name(kv.btf, ts->place.type, tname, sizeof(tname));
	if (j) {
		json_object_begin(j, NULL);
		json_str(j, "type", tname);
		if (ts->path)
			json_str(j, "path", spec);
		if (cpu >= 0)
			json_u64(j, "cpu", (uint64_t)cpu);
		json_hex(j, "addr", addr + ts->place.bit_off / 8);
		json_u64(j, "size", ts->place.bit_size ? len :
			 ktype_size(kv.btf, ts->place.type));
		if (ts->place.bit_size) {
			json_u64(j, "bit_offset", ts->place.bit_off % 8);
			json_u64(j, "bit_size", ts->place.bit_size);
		}
		kvalue_json(&kv, j, "value", &rel, data);
		json_object_end(j);
		free(data);
		return KMEMCTL_EXIT_OK;
	}
	if (cpu >= 0)
		printf("CPU %" PRId64 ": ", cpu);
	if (ts->path) {
		kvalue_text(&kv, spec, &rel, data, 0);
	} else if (btf_is_composite(btf__type_by_id(kv.btf,
			ktype_skip(kv.btf, ts->place.type)))) {
		printf("%s ", tname);
		kvalue_text(&kv, NULL, &rel, data, 0);
	} else {
		/* "unsigned int = 5": a scalar reads better with its type named */
		kvalue_text(&kv, tname, &rel, data, 0);
	}
	putchar('\n');
	free(data);
	return KMEMCTL_EXIT_OK;
}

/*
 * A per-CPU variable: CPU @cpu's copy, or every possible CPU's (@cpu < 0)
 * in CPU order, a JSON array then.
 */
static int show_percpu(struct kmemdev *h, const struct tspec *ts,
		       const char *spec, uint64_t addr, int64_t cpu, bool json,
		       int depth)
{
	struct json j, *jp = json ? &j : NULL;
	struct percpu pc;
	char what[160];
	uint32_t c;
	int rc = KMEMCTL_EXIT_OK;

	snprintf(what, sizeof(what), "struct %.60s at 0x%" PRIx64, spec, addr);
	if (percpu_load(h, what, &pc)) {
		percpu_free(&pc);
		return KMEMCTL_EXIT_ERROR;
	}
	if (cpu >= 0 && !percpu_possible(&pc, (uint64_t)cpu)) {
		kmemctl_fail("%s: no CPU %" PRId64 " (possible: 0-%" PRIu32 ")",
			     what, cpu, percpu_last(&pc));
		percpu_free(&pc);
		return KMEMCTL_EXIT_ERROR;
	}
	if (jp)
		json_init(jp, stdout);
	if (cpu >= 0) {
		rc = show_one(h, ts, spec, percpu_addr(&pc, addr, (uint32_t)cpu),
			      cpu, jp, depth);
		percpu_free(&pc);
		return rc;
	}
	if (jp)
		json_array_begin(jp, NULL);
	for (c = 0; c < pc.nr_cpu_ids && !rc; c++)
		if (percpu_possible(&pc, c))
			rc = show_one(h, ts, spec, percpu_addr(&pc, addr, c), c,
				      jp, depth);
	if (jp)
		json_array_end(jp);
	percpu_free(&pc);
	return rc;
}

static int show(struct kmemdev *h, const struct tspec *ts, const char *spec,
		const char *expr, int64_t cpu, bool json, int depth)
{
	uint64_t addr;
	struct json j;
	int rc;

	rc = parse_addr_or_fail(h, "struct", expr, &addr);
	if (rc)
		return rc;
	/*
	 * A symbol of the per-CPU section names every CPU's copy; a bare
	 * 0x... only with --cpu (with zero-based per-CPU symbols, as on
	 * x86-64 before 6.15, it would otherwise be a user address).
	 */
	if ((cpu >= 0 || !parse_is_hex(expr)) && percpu_is_var(h, addr))
		return show_percpu(h, ts, spec, addr, cpu, json, depth);
	if (cpu >= 0) {
		kmemctl_fail("struct %.60s at 0x%" PRIx64 ": --cpu: not a "
			     "per-CPU variable", spec, addr);
		return KMEMCTL_EXIT_ERROR;
	}
	if (json)
		json_init(&j, stdout);
	return show_one(h, ts, spec, addr, -1, json ? &j : NULL, depth);
}

struct struct_opts {
	uint64_t depth;		/* --depth, UNSET when not given */
	bool layout;		/* --type-only */
	uint64_t cpu;		/* --cpu, UNSET when not given */
};

#define UNSET	UINT64_MAX

int kmemctl_struct(const struct kmemctl *ctx, int argc, char **argv)
{
	static const struct kmemctl_opt opts[] = {
		KMEMCTL_U64("depth", 'd', struct struct_opts, depth, 0, DEPTH_MAX,
			    NULL, RANGE_TO(DEPTH_MAX)),
		KMEMCTL_FLAG("type-only", 't', struct struct_opts, layout),
		/* which CPUs exist is the kernel's to say */
		KMEMCTL_U64("cpu", 'c', struct struct_opts, cpu, 0, UINT32_MAX,
			    NULL, "a CPU number"),
		{ NULL }
	};
	static const struct kmemctl_cli cli = {
		.verb = "struct", .help = help, .opts = opts, .max = -1,
	};
	struct struct_opts o = { .depth = UNSET, .cpu = UNSET };
	struct ktypes kt = { 0 };
	struct kmemdev *h = NULL;
	bool json, layout;
	int rc, depth;
	int64_t cpu;
	struct tspec ts;

	rc = kmemctl_parse(ctx, &cli, argc, argv, &o, &json);
	if (rc != KMEMCTL_PARSED)
		return rc;
	depth = o.depth == UNSET ? -1 : (int)o.depth;
	layout = o.layout;
	cpu = o.cpu == UNSET ? -1 : (int64_t)o.cpu;
	if (optind >= argc)
		return kmemctl_usage_err("struct: missing TYPE");
	if (layout && cpu >= 0)
		return kmemctl_usage_err("struct: --type-only takes no --cpu");
	if (layout && argc - optind > 1)
		return kmemctl_usage_err("struct: --type-only takes no ADDR "
					 "('%s')", argv[optind + 1]);
	if (!layout && argc - optind < 2)
		return kmemctl_usage_err("struct: missing ADDR (or use "
					 "--type-only)");
	if (kmemctl_operands("struct", argc, argv, 0, 2, NULL))
		return KMEMCTL_EXIT_USAGE;

	if (!layout) {
		h = mem_open_typed(ctx, "struct", argv[optind + 1], &kt);
		if (!h)
			return KMEMCTL_EXIT_ERROR;
	}
	rc = tspec_resolve(&kt, "struct", argv[optind], &ts);
	if (rc)
		goto out;
	if (layout)
		rc = type_only(&ts, argv[optind], json, depth < 0 ? 1 : depth);
	else
		rc = show(h, &ts, argv[optind], argv[optind + 1], cpu, json,
			  depth);
out:
	ktypes_free(&kt);
	kmemdev_close(h);
	return rc;
}
