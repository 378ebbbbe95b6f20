// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl whatis ADDR: what a kernel address is, as crash's "kmem ADDR"
 * answers: a symbol of the kernel image or a module, a task's stack, an
 * object in a slab cache (the cache, the object's start and size), a page
 * of the direct map (its flags), or a vmalloc area (its caller).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "kmemctl.h"
#include "ktype.h"
#include "kvalue.h"
#include "kwalk.h"
#include "mem.h"
#include "parse.h"
#include "percpu.h"
#include "ps_snapshot.h"

#define PAGE_SHIFT	12
#define MAX_THREAD_SIZE	(1U << 20)

struct whatis {
	struct kmemdev *h;
	struct ktypes kt;
	struct kmem_ro_info info;
	struct json *j;
	const char *expr;
	uint64_t addr;
};

static void help(void)
{
	printf("Usage: kmemctl [--device PATH] whatis ADDR [--json]\n"
	       "Say what the kernel address ADDR is, as crash's kmem ADDR "
	       "does; the first of:\n"
	       "  symbol  in the kernel image or a module: NAME+0xOFF "
	       "[module]\n"
	       "  stack   in the kernel stack of a task, thread or CPU's idle "
	       "task: pid, tid,\n          comm, task, "
	       "THREAD_SIZE (from the init stack's bounds in "
	       "kallsyms)\n"
	       "  slab    in an object of a slab cache: the cache, the "
	       "object's start,\n"
	       "          object size and slot size (as /proc/slabinfo's "
	       "objsize)\n"
	       "  page    in a page of the direct map: struct page, pfn, "
	       "flags by name\n"
	       "  vmalloc in a vmalloc area: its range and caller (as "
	       "/proc/vmallocinfo)\n"
	       "  -j, --json  {addr, kind, ...} with the fields above\n"
	       "Exit status 1 when it is none of these.\n");
}

/* Byte offset of @path in struct @type of vmlinux: 0 or -ENOENT. */
static int off_of(struct whatis *w, const char *type, const char *path,
		  uint64_t *off)
{
	const struct btf *btf;
	struct kplace p;
	char bad[64];
	uint32_t id;

	if (ktypes_find(&w->kt, type, &btf, &id) ||
	    ktype_path(btf, id, path, &p, bad, sizeof(bad)))
		return -ENOENT;
	*off = p.bit_off / 8;
	return 0;
}

static uint64_t size_of(struct whatis *w, const char *type)
{
	const struct btf *btf;
	uint32_t id;

	if (ktypes_find(&w->kt, type, &btf, &id))
		return 0;
	return ktype_size(btf, id);
}

static bool as_symbol(struct whatis *w)
{
	struct kvalue kv = { .h = w->h };
	const struct kmemdev_sym *sym;
	char buf[256];
	uint64_t off;

	kvalue_sym_range(&kv);
	if (!*kvalue_symbol(&kv, w->addr, buf, sizeof(buf)) ||
	    kmemdev_symbolize(w->h, w->addr, &sym, &off))
		return false;
	if (w->j) {
		json_str(w->j, "kind", "symbol");
		json_str(w->j, "symbol", sym->name);
		json_u64(w->j, "offset", off);
		json_str(w->j, "module", sym->module);
		json_hex(w->j, "symbol_addr", sym->addr);
	} else {
		/* " <name+0xoff [mod]>" */
		buf[strlen(buf) - 1] = '\0';
		printf("0x%016" PRIx64 ": symbol %s\n", w->addr, buf + 2);
	}
	return true;
}

/*
 * THREAD_SIZE, as the kernel's linker script lays out the init stack
 * (INIT_TASK_DATA in include/asm-generic/vmlinux.lds.h): from
 * __start_init_stack to __end_init_stack (6.12, 7.3), __start_init_task to
 * __end_init_task (6.1).  0 if neither pair is there.
 */
static uint64_t thread_size(struct whatis *w)
{
	static const char *const bounds[][2] = {
		{ "__start_init_stack", "__end_init_stack" },
		{ "__start_init_task", "__end_init_task" },
	};
	uint64_t start, end, size;

	for (size_t i = 0; i < sizeof(bounds) / sizeof(bounds[0]); i++) {
		if (kmemdev_symbol(w->h, bounds[i][0], &start) ||
		    kmemdev_symbol(w->h, bounds[i][1], &end) || end <= start)
			continue;
		size = end - start;
		/* a power of two: PAGE_SIZE << THREAD_SIZE_ORDER */
		if (size <= MAX_THREAD_SIZE && !(size & (size - 1)))
			return size;
	}
	return 0;
}

static bool print_stack(struct whatis *w, const struct ps_task *t,
			uint64_t size)
{
	if (!t->stack || w->addr < t->stack || w->addr - t->stack >= size)
		return false;
	if (w->j) {
		json_str(w->j, "kind", "stack");
		json_i64(w->j, "pid", t->tgid);
		json_i64(w->j, "tid", t->pid);
		json_str(w->j, "comm", t->comm);
		json_hex(w->j, "task", t->addr);
		json_hex(w->j, "stack", t->stack);
		json_u64(w->j, "offset", w->addr - t->stack);
		json_u64(w->j, "stack_size", size);
	} else {
		printf("0x%016" PRIx64 ": stack of pid %d tid %d \"%s\" (task "
		       "0x%" PRIx64 "), 0x%" PRIx64 " of %" PRIu64 " bytes from "
		       "its base\n", w->addr, t->tgid, t->pid, t->comm, t->addr,
		       w->addr - t->stack, size);
	}
	return true;
}

/* The task at @addr, read alone: one not on the task list. */
static bool lone_task_stack(struct whatis *w, uint64_t addr, uint64_t size)
{
	struct ps_task t = { .addr = addr };
	uint64_t stack, pid, comm;

	if (off_of(w, "task_struct", "stack", &stack) ||
	    off_of(w, "task_struct", "pid", &pid) ||
	    off_of(w, "task_struct", "comm", &comm) ||
	    kmemdev_read(w->h, t.addr + stack, &t.stack, 8) ||
	    kmemdev_read(w->h, t.addr + pid, &t.pid, 4) ||
	    kmemdev_read(w->h, t.addr + comm, t.comm, 16))
		return false;
	t.tgid = t.pid;
	return print_stack(w, &t, size);
}

/*
 * The idle tasks, which no task list holds: init_task (CPU 0's) and every
 * other possible CPU's runqueues.idle (swapper/N).
 */
static bool idle_stack(struct whatis *w, uint64_t size)
{
	uint64_t init, rq, idle_off, idle;
	struct percpu pc;
	bool found;

	if (kmemdev_symbol(w->h, "init_task", &init))
		return false;
	found = lone_task_stack(w, init, size);
	if (found || kmemdev_symbol(w->h, "runqueues", &rq) ||
	    off_of(w, "rq", "idle", &idle_off) || percpu_load(w->h, "whatis", &pc))
		return found;
	for (uint32_t cpu = 1; cpu <= percpu_last(&pc) && !found; cpu++)
		if (percpu_possible(&pc, cpu) &&
		    !kmemdev_read(w->h, percpu_addr(&pc, rq, cpu) + idle_off, &idle, 8) &&
		    idle && idle != init)
			found = lone_task_stack(w, idle, size);
	percpu_free(&pc);
	return found;
}

/* A task whose stack holds the address: every thread of every process. */
static bool as_stack(struct whatis *w)
{
	uint64_t size = thread_size(w);
	enum ps_backend b;
	struct ps_snap s;
	bool found = false;

	if (!size)
		return false;
	if (idle_stack(w, size))
		return true;
	if (ps_backend_default(w->h, &b))
		return false;
	if (!ps_snap_init(&s, w->h, b, PS_FIELDS_PS)) {
		s.threads = true;
		if (!ps_snap_take(&s))
			for (size_t i = 0; i < s.nr && !found; i++)
				found = print_stack(w, &s.task[i], size);
	}
	ps_snap_fini(&s);
	return found;
}

/* The struct page of a direct-map address, and its compound head. */
struct page_at {
	uint64_t page, head, pfn, head_pfn, psize, flags;
};

static int page_of(struct whatis *w, struct page_at *pg)
{
	uint64_t vmemmap, ch_off, compound_head;

	/* compound_head became compound_info in 7.x */
	if (kmemdev_symbol(w->h, "vmemmap_base", &vmemmap) ||
	    kmemdev_read(w->h, vmemmap, &vmemmap, 8) ||
	    (off_of(w, "page", "compound_head", &ch_off) &&
	     off_of(w, "page", "compound_info", &ch_off)))
		return -ENOENT;
	pg->psize = size_of(w, "page");
	if (!pg->psize)
		return -ENOENT;
	pg->pfn = (w->addr - w->info.page_offset) >> PAGE_SHIFT;
	pg->page = vmemmap + pg->pfn * pg->psize;
	if (kmemdev_read(w->h, pg->page + ch_off, &compound_head, 8))
		return -EFAULT;
	/*
	 * Bit 0 marks a tail page; the rest points to its head, or, since
	 * 7.x with HugeTLB vmemmap optimization and a power-of-2 struct
	 * page, is a mask that turns the tail's address into the head's
	 * (_compound_head() in include/linux/page-flags.h).  A pointer is
	 * a struct page at or below the tail; a mask is above it.
	 */
	pg->head = pg->page;
	if (compound_head & 1)
		pg->head = compound_head - 1 <= pg->page ? compound_head - 1 :
			   pg->page & compound_head;
	if (pg->head < vmemmap || (pg->head - vmemmap) % pg->psize)
		return -EINVAL;
	pg->head_pfn = (pg->head - vmemmap) / pg->psize;
	return kmemdev_read(w->h, pg->head, &pg->flags, 8);
}

/* Fields of each kmem_cache the slab search gathers. */
enum { C_NAME, C_OBJSIZE, C_SIZE, C_COUNT };

static bool as_slab(struct whatis *w, const struct page_at *pg)
{
	struct kmem_ro_field f[C_COUNT];
	struct kwalk k = { 0 };
	uint64_t caches, list, off[C_COUNT], cache_off, cache, base, start;
	uint64_t red = 0, red_off, name_ptr;
	uint32_t objsize = 0, size = 0, i;
	char name[64] = "";
	bool found = false;

	if (kmemdev_symbol(w->h, "slab_caches", &caches) ||
	    off_of(w, "slab", "slab_cache", &cache_off) ||
	    off_of(w, "kmem_cache", "list", &list) ||
	    off_of(w, "kmem_cache", "name", &off[C_NAME]) ||
	    off_of(w, "kmem_cache", "object_size", &off[C_OBJSIZE]) ||
	    off_of(w, "kmem_cache", "size", &off[C_SIZE]) ||
	    kmemdev_read(w->h, pg->head + cache_off, &cache, 8))
		return false;
	for (i = 0; i < C_COUNT; i++)
		f[i] = (struct kmem_ro_field){ .offset = (uint32_t)off[i],
					       .len = i == C_NAME ? 8 : 4 };
	k.head = caches;
	k.link_offset = list;
	k.fields = f;
	k.nfields = C_COUNT;
	kwalk_run(w->h, &k);
	/* a slab page names one of the caches on slab_caches */
	for (i = 0; i < k.nodes && !found; i++) {
		const unsigned char *rec = k.buf + (size_t)i * k.rec_size;
		uint64_t node;

		memcpy(&node, rec, 8);
		if (node != cache)
			continue;
		memcpy(&name_ptr, rec + 8, 8);
		memcpy(&objsize, rec + 16, 4);
		memcpy(&size, rec + 20, 4);
		found = size != 0;
	}
	free(k.buf);
	if (!found)
		return false;
	if (kmemdev_read(w->h, name_ptr, name, sizeof(name) - 1))
		snprintf(name, sizeof(name), "?");
	name[sizeof(name) - 1] = '\0';
	/* SLUB's left red zone (slub_debug=Z) comes before each object */
	if (!off_of(w, "kmem_cache", "red_left_pad", &red_off) &&
	    kmemdev_read(w->h, cache + red_off, &red, 4))
		red = 0;
	red &= 0xffffffff;
	base = w->info.page_offset + (pg->head_pfn << PAGE_SHIFT);
	start = base + (w->addr - base) / size * size + red;
	if (w->j) {
		json_str(w->j, "kind", "slab");
		json_str(w->j, "cache", name);
		json_hex(w->j, "kmem_cache", cache);
		json_hex(w->j, "object", start);
		json_u64(w->j, "offset", w->addr - start);
		json_u64(w->j, "object_size", objsize);
		json_u64(w->j, "size", size);
		json_hex(w->j, "slab", pg->head);
	} else {
		printf("0x%016" PRIx64 ": slab object 0x%" PRIx64 "+0x%" PRIx64
		       " of cache %s (object_size %" PRIu32 ", size %" PRIu32
		       ")\n", w->addr, start, w->addr - start, name, objsize,
		       size);
	}
	return true;
}

/* "PG_" enumerators of enum pageflags below __NR_PAGEFLAGS, by bit. */
static void flag_names(struct whatis *w, uint64_t flags, char *buf, size_t len)
{
	const struct btf *btf;
	const struct btf_type *t;
	const struct btf_enum *e;
	uint32_t id;
	int64_t nr;
	size_t pos = 0;
	unsigned int bit, i;

	buf[0] = '\0';
	if (ktypes_find(&w->kt, "enum pageflags", &btf, &id) ||
	    ktype_enum_value(btf, "__NR_PAGEFLAGS", &nr) || nr <= 0 || nr > 64)
		return;
	t = btf__type_by_id(btf, id);
	if (!btf_is_enum(t))
		return;
	e = btf_enum(t);
	for (bit = 0; bit < (unsigned int)nr; bit++) {
		if (!(flags >> bit & 1))
			continue;
		/* the first name of a value: PG_owner_priv_1 before aliases */
		for (i = 0; i < btf_vlen(t); i++) {
			const char *n = btf__name_by_offset(btf, e[i].name_off);

			if (e[i].val != (int)bit || strncmp(n, "PG_", 3))
				continue;
			pos += (size_t)snprintf(buf + pos, pos < len ? len - pos : 0,
						"%s%s", pos ? "|" : "", n + 3);
			break;
		}
	}
	if (pos >= len && len)
		buf[len - 1] = '\0';
}

static bool as_page(struct whatis *w, const struct page_at *pg)
{
	char names[512];
	int64_t nr = 0;
	uint64_t mask;
	const struct btf *btf;
	uint32_t id;

	/* the bits above the page flags hold section, node and zone */
	if (!ktypes_find(&w->kt, "enum pageflags", &btf, &id))
		ktype_enum_value(btf, "__NR_PAGEFLAGS", &nr);
	mask = nr > 0 && nr < 64 ? (1ULL << nr) - 1 : ~0ULL;
	flag_names(w, pg->flags & mask, names, sizeof(names));
	if (w->j) {
		json_str(w->j, "kind", "page");
		json_hex(w->j, "page", pg->page);
		json_hex(w->j, "pfn", pg->pfn);
		if (pg->head != pg->page)
			json_hex(w->j, "head", pg->head);
		json_hex(w->j, "flags", pg->flags & mask);
		json_str(w->j, "flag_names", names);
	} else {
		printf("0x%016" PRIx64 ": page 0x%" PRIx64 " (pfn 0x%" PRIx64
		       ")", w->addr, pg->page, pg->pfn);
		if (pg->head != pg->page)
			printf(" of compound page 0x%" PRIx64, pg->head);
		printf(", flags 0x%" PRIx64 " %s\n", pg->flags & mask, names);
	}
	return true;
}

/* Fields of each vmap_area the vmalloc search gathers. */
enum { V_START, V_END, V_VM, V_COUNT };

static bool print_area(struct whatis *w, const unsigned char *rec)
{
	uint64_t start, end, vm, caller_off, caller = 0;
	struct kvalue kv = { .h = w->h };
	char sym[256];

	memcpy(&start, rec + 8, 8);
	memcpy(&end, rec + 16, 8);
	memcpy(&vm, rec + 24, 8);
	if (w->addr < start || w->addr >= end)
		return false;
	if (vm && !off_of(w, "vm_struct", "caller", &caller_off) &&
	    kmemdev_read(w->h, vm + caller_off, &caller, 8))
		caller = 0;
	kvalue_sym_range(&kv);
	kvalue_symbol(&kv, caller, sym, sizeof(sym));
	if (*sym) {
		/* " <name+0xoff [mod]>" to "name+0xoff [mod]" */
		sym[strlen(sym) - 1] = '\0';
		memmove(sym, sym + 2, strlen(sym + 2) + 1);
	}
	if (w->j) {
		json_str(w->j, "kind", "vmalloc");
		json_hex(w->j, "start", start);
		json_hex(w->j, "end", end);
		json_u64(w->j, "size", end - start);
		json_hex(w->j, "caller", caller);
		json_str(w->j, "caller_symbol", sym);
	} else {
		printf("0x%016" PRIx64 ": vmalloc area 0x%" PRIx64 "-0x%" PRIx64
		       " (%" PRIu64 " bytes), caller %s\n", w->addr, start, end,
		       end - start, *sym ? sym : "?");
	}
	return true;
}

/* Walk one list of busy vmap_areas (linked by vmap_area.list). */
static bool search_areas(struct whatis *w, uint64_t head,
			 const struct kmem_ro_field *f, uint64_t list)
{
	struct kwalk k = { 0 };
	bool found = false;
	uint32_t i;

	k.head = head;
	k.link_offset = list;
	k.fields = f;
	k.nfields = V_COUNT;
	kwalk_run(w->h, &k);
	for (i = 0; i < k.nodes && !found; i++)
		found = print_area(w, k.buf + (size_t)i * k.rec_size);
	free(k.buf);
	return found;
}

/*
 * The busy vmap_areas: one vmap_area_list up to 6.8 (mm/vmalloc.c), the
 * busy.head list of each of nr_vmap_nodes vmap_nodes since 6.9.
 */
static bool as_vmalloc(struct whatis *w)
{
	struct kmem_ro_field f[V_COUNT];
	uint64_t list, off[V_COUNT], head, nodes, busy, nsize;
	uint32_t nr, i;

	if (off_of(w, "vmap_area", "list", &list) ||
	    off_of(w, "vmap_area", "va_start", &off[V_START]) ||
	    off_of(w, "vmap_area", "va_end", &off[V_END]) ||
	    off_of(w, "vmap_area", "vm", &off[V_VM]))
		return false;
	for (i = 0; i < V_COUNT; i++)
		f[i] = (struct kmem_ro_field){ .offset = (uint32_t)off[i], .len = 8 };
	if (!kmemdev_symbol(w->h, "vmap_area_list", &head))
		return search_areas(w, head, f, list);
	nsize = size_of(w, "vmap_node");
	if (!nsize || off_of(w, "vmap_node", "busy.head", &busy) ||
	    kmemdev_symbol(w->h, "vmap_nodes", &nodes) ||
	    kmemdev_read(w->h, nodes, &nodes, 8) ||
	    kmemdev_symbol(w->h, "nr_vmap_nodes", &head) ||
	    kmemdev_read(w->h, head, &nr, 4))
		return false;
	for (i = 0; i < nr && i < 4096; i++)
		if (search_areas(w, nodes + i * nsize + busy, f, list))
			return true;
	return false;
}

static int whatis(struct whatis *w)
{
	struct page_at pg;

	if (as_symbol(w))
		return KMEMCTL_EXIT_OK;
	/* stacks are vmalloc'ed (VMAP_STACK) or pages: look before both */
	if (as_stack(w))
		return KMEMCTL_EXIT_OK;
	if (w->addr >= w->info.page_offset && w->addr < w->info.vmalloc_start &&
	    !page_of(w, &pg)) {
		if (as_slab(w, &pg) || as_page(w, &pg))
			return KMEMCTL_EXIT_OK;
	}
	if (w->addr >= w->info.vmalloc_start && w->addr < w->info.vmalloc_end &&
	    as_vmalloc(w))
		return KMEMCTL_EXIT_OK;
	return KMEMCTL_EXIT_ERROR;
}

int kmemctl_whatis(const struct kmemctl *ctx, int argc, char **argv)
{
	static const struct kmemctl_cli cli = {
		.verb = "whatis", .help = help, .min = 1, .max = 1, .missing = "ADDR",
	};
	struct whatis w = { .info = { .size = sizeof(w.info) } };
	struct json j;
	bool json;
	int err, rc;

	rc = kmemctl_parse(ctx, &cli, argc, argv, NULL, &json);
	if (rc != KMEMCTL_PARSED)
		return rc;
	w.expr = argv[optind];
	err = ktypes_load(&w.kt);
	if (err) {
		kmemctl_err(KMEMDEV_OP_BTF, err, "whatis %.60s: load BTF", w.expr);
		return KMEMCTL_EXIT_ERROR;
	}
	rc = mem_open_at(ctx, "whatis", w.expr, &w.h, &w.addr);
	if (rc)
		goto out;
	if (kmemdev_info(w.h, &w.info, NULL, 0) < 0) {
		kmemctl_fail("whatis 0x%" PRIx64 ": no memory layout", w.addr);
		rc = KMEMCTL_EXIT_ERROR;
		goto out;
	}
	/* the JSON object is opened only once the answer is known */
	w.j = NULL;
	if (json) {
		char *s = NULL;
		size_t n = 0;
		FILE *mem = open_memstream(&s, &n);

		if (!mem) {
			kmemctl_err(KMEMDEV_OP_ANY, -ENOMEM, "whatis");
			rc = KMEMCTL_EXIT_ERROR;
			goto out;
		}
		json_init(&j, mem);
		json_object_begin(&j, NULL);
		json_hex(&j, "addr", w.addr);
		w.j = &j;
		rc = whatis(&w);
		json_object_end(&j);
		fclose(mem);
		if (!rc)
			fputs(s, stdout);
		free(s);
	} else {
		rc = whatis(&w);
	}
	if (rc)
		kmemctl_fail("whatis 0x%" PRIx64 ": no symbol, task stack, slab "
			     "object, page or vmalloc area", w.addr);
out:
	kmemdev_close(w.h);
	ktypes_free(&w.kt);
	return rc;
}
