// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl list on lists that are not a plain ring of TYPE.MEMBER: a head
 * member (task_struct.children, linked through sibling) refused with the
 * right form, which then matches /proc's parents; the rings of
 * kmem_ro_testobj that loop or end in a bad pointer; hlists (--hlist):
 * testobj's, of known ids, its looping one, and the kernel's own pid
 * hash list of this process; members of the wrong type; XArrays
 * (tree --xarray): kmem_ro_testobj's, of known indices, values and
 * entries, its IDR, and the kernel's pid IDR against /proc.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "tooltest.h"

#define KIDS	3

/* The "pid": values of a JSON array of records, in order; how many. */
static int json_ids(const char *json, const char *key, long *v, int cap)
{
	char pat[64];
	const char *p = json;
	int n = 0;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	while ((p = strstr(p, pat)) && n < cap) {
		p += strlen(pat);
		v[n++] = strtol(p, NULL, 10);
	}
	return n;
}

/* The processes whose PPid is @ppid in /proc/PID/status. */
static int proc_children(int ppid, long *pids, int cap)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) && n < cap) {
		char path[300], line[256];
		FILE *f;
		int pp = -1;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "PPid: %d", &pp) == 1)
				break;
		fclose(f);
		if (pp == ppid)
			pids[n++] = atol(e->d_name);
	}
	closedir(d);
	return n;
}

static bool has(const long *v, int n, long x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* Every TID under /proc/PID/task of every process; how many. */
static int proc_tids_all(long *v, int cap)
{
	DIR *d = opendir("/proc"), *t;
	struct dirent *e, *te;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) && n < cap) {
		char path[300];

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", e->d_name);
		t = opendir(path);
		if (!t)
			continue;
		while ((te = readdir(t)) && n < cap)
			if (isdigit((unsigned char)te->d_name[0]))
				v[n++] = atol(te->d_name);
		closedir(t);
	}
	closedir(d);
	return n;
}

/* The reported bug: children walked as a link printed garbage, exit 0. */
START_TEST(children_is_a_head)
{
	long want[16], got[16];
	int nw, ng, i;

	ck_assert_int_eq(kmemctl("list task_struct.children --node init_task --fields pid,comm"), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_msg(strstr(err, "list task_struct.sibling ADDR.children"), "%s", err);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(kmemctl("list task_struct.children init_task"), 1);
	ck_assert_msg(one_short_line(err), "%s", err);

	/* swapper's children: init and kthreadd, as /proc's PPid 0 says */
	nw = proc_children(0, want, 16);
	ck_assert_int_eq(nw, 2);
	ck_assert_msg(kmemctl("list task_struct.sibling init_task.children --fields pid,comm --json")
		      == 0, "%s", err);
	ck_assert_msg(json_valid(out, false), "%s", out);
	ng = json_ids(out, "pid", got, 16);
	ck_assert_int_eq(ng, nw);
	for (i = 0; i < ng; i++)
		ck_assert_msg(has(want, nw, got[i]), "pid %ld is no child of swapper", got[i]);
	ck_assert_msg(strstr(out, "\"pid\":1,\"comm\":\"init\""), "%s", out);
}
END_TEST

/* Our own children, in the order they were forked (list_add_tail). */
START_TEST(own_children_in_fork_order)
{
	uint64_t me = task_of(getpid());
	pid_t kid[KIDS];
	long got[16];
	int i, n;

	for (i = 0; i < KIDS; i++) {
		kid[i] = fork();
		ck_assert_int_ge(kid[i], 0);
		if (!kid[i]) {
			pause();
			_exit(0);
		}
	}
	ck_assert_msg(kmemctl("list task_struct.sibling %#" PRIx64 "->children -f pid --json", me)
		      == 0, "%s", err);
	n = json_ids(out, "pid", got, 16);
	/* the text form: a header and one line a child */
	ck_assert_msg(kmemctl("list task_struct.sibling %#" PRIx64 ".children -f pid", me) == 0,
		      "%s", err);
	/* kmemctl is our child too, the last forked */
	ck_assert_int_eq(vt_count_lines(out), KIDS + 2);
	for (i = 0; i < KIDS; i++) {
		kill(kid[i], SIGKILL);
		waitpid(kid[i], NULL, 0);
	}
	ck_assert_int_eq(n, KIDS + 1);
	for (i = 0; i < KIDS; i++)
		ck_assert_int_eq(got[i], kid[i]);
	ck_assert_int_gt(got[KIDS], kid[KIDS - 1]);
	/* the head's member must be a list_head */
	ck_assert_int_eq(kmemctl("list task_struct.sibling %#" PRIx64 ".pid", me), 1);
	ck_assert_msg(one_short_line(err) && strstr(err, "not a struct list_head"), "%s", err);
}
END_TEST

/*
 * kmem_ro_testobj's own types are in its BTF only where the kernel's
 * headers let pahole make it: 6.1's Debian headers have no vmlinux
 * ("Skipping BTF generation"), so the suites below run on 6.12 and 7.3.
 */
static bool testobj_btf(const char *test)
{
	if (!access("/sys/kernel/btf/kmem_ro_testobj", R_OK))
		return true;
	printf("@@SKIP %s: kmem_ro_testobj has no BTF on this kernel\n", test);
	return false;
}

/* head -> a -> b -> c -> b: the nodes before the loop, then the error. */
START_TEST(ring_that_loops_or_breaks)
{
	uint64_t loop = vt_testobj("loop_head"), corrupt = vt_testobj("corrupt_head");
	long id[16];

	if (!testobj_btf(__func__))
		return;

	ck_assert_int_eq(kmemctl("list kmem_ro_tnode.link %#" PRIx64 " -f id --json", loop), 1);
	ck_assert_msg(json_valid(out, false), "%s", out);
	ck_assert_int_ge(json_ids(out, "id", id, 16), 3);
	ck_assert_int_eq(id[0], 0);
	ck_assert_int_eq(id[1], 1);
	ck_assert_int_eq(id[2], 2);
	ck_assert_msg(vt_count_lines(err) == 1 && strstr(err, "loops without coming back"), "%s",
		      err);

	ck_assert_int_eq(kmemctl("list kmem_ro_tnode.link %#" PRIx64 " -f id --json", corrupt), 1);
	ck_assert_msg(json_valid(out, false), "%s", out);
	ck_assert_int_eq(json_ids(out, "id", id, 16), 2);
	ck_assert_msg(vt_count_lines(err) == 1 && strstr(err, "after 2 nodes"), "%s", err);
}
END_TEST

/* hgood_head: NODES nodes added at the head, so ids NODES-1 down to 0. */
static void check_hlist(uid_t uid, gid_t gid)
{
	static long id[2048];
	uint64_t head = vt_testobj("hgood_head"), first;
	long nodes = (long)vt_testobj("nodes");
	char a[64], *argv[] = { "kmemctl", "list", "--hlist", "kmem_ro_tnode.hlink", a, "-f", "id,name",
				"--json", NULL, NULL };
	char name[32], want[32];
	int n, i;

	snprintf(a, sizeof(a), "%#" PRIx64, head);
	out[0] = err[0] = '\0';
	ck_assert_msg(vt_exec(uid, gid, argv, out, sizeof(out), err, sizeof(err)) == 0, "%s", err);
	ck_assert(json_valid(out, false));
	n = json_ids(out, "id", id, 2048);
	ck_assert_int_eq(n, nodes);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(id[i], nodes - 1 - i);
	ck_assert_int_eq(json_str_of(out, "name", name, sizeof(name)), 0);
	snprintf(want, sizeof(want), "node-%ld", nodes - 1);
	ck_assert_str_eq(name, want);

	/* --node: from a node on, that node first */
	first = json_hex_of(strstr(out, "\"id\":500,") - 30, "addr");
	ck_assert_uint_ne(first, 0);
	argv[4] = "--node";
	argv[5] = a;
	argv[6] = "-f";
	argv[7] = "id";
	argv[8] = "--json";
	snprintf(a, sizeof(a), "%#" PRIx64, first);
	ck_assert_msg(vt_exec(uid, gid, argv, out, sizeof(out), err, sizeof(err)) == 0, "%s", err);
	n = json_ids(out, "id", id, 2048);
	ck_assert_int_eq(n, 501);
	ck_assert_int_eq(id[0], 500);
	ck_assert_int_eq(id[500], 0);
}

START_TEST(hlist_of_known_ids)
{
	if (!testobj_btf(__func__))
		return;
	check_hlist(0, 0);
}
END_TEST

START_TEST(hlist_loop_and_types)
{
	uint64_t loop = vt_testobj("hloop_head"), good = vt_testobj("hgood_head");
	long id[16];

	if (!testobj_btf(__func__))
		return;

	ck_assert_int_eq(kmemctl("list --hlist kmem_ro_tnode.hlink %#" PRIx64 " -f id --json", loop), 1);
	ck_assert_msg(json_valid(out, false), "%s", out);
	ck_assert_int_ge(json_ids(out, "id", id, 16), 3);
	ck_assert_int_eq(id[0], 0);
	ck_assert_int_eq(id[1], 1);
	ck_assert_int_eq(id[2], 2);
	ck_assert_msg(vt_count_lines(err) == 1 && strstr(err, "no NULL ends it"), "%s", err);

	ck_assert_int_eq(kmemctl("list --hlist kmem_ro_tnode.link %#" PRIx64, good), 1);
	ck_assert_msg(one_short_line(err) && strstr(err, "not a struct hlist_node"), "%s", err);
	ck_assert_int_eq(kmemctl("list kmem_ro_tnode.hlink %#" PRIx64, good), 1);
	ck_assert_msg(one_short_line(err) && strstr(err, "(--hlist)"), "%s", err);
	ck_assert_int_eq(kmemctl("list kmem_ro_tnode.id %#" PRIx64, good), 1);
	ck_assert_msg(one_short_line(err) && strstr(err, "a u32, not a struct list_head"), "%s",
		      err);
	/* the link is in the node: no pointer on the way */
	ck_assert_int_eq(kmemctl("list task_struct.signal.thread_head init_task"), 1);
	ck_assert_msg(one_short_line(err) && strstr(err, "not through a pointer"), "%s", err);
}
END_TEST

/* The kernel's own hlist: struct pid's tasks[PIDTYPE_PID] holds our task. */
START_TEST(pid_hash_hlist_holds_our_task)
{
	uint64_t me = task_of(getpid()), pid;
	uint32_t thread_pid, tasks;
	struct kmemdev *h;

	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "thread_pid", &thread_pid, NULL), 0);
	ck_assert_int_eq(kmemdev_btf_member(h, "pid", "tasks", &tasks, NULL), 0);
	ck_assert_int_eq(kmemdev_read(h, me + thread_pid, &pid, 8), 0);
	kmemdev_close(h);
	ck_assert_msg(kmemctl("list --hlist task_struct.pid_links[0] %#" PRIx64 "+%u -f pid,tgid --json",
			      pid, tasks) == 0, "%s", err);
	ck_assert_msg(json_valid(out, false), "%s", out);
	ck_assert_uint_eq(json_hex_of(out, "addr"), me);
	ck_assert_int_eq(vt_json_num(out, "pid"), getpid());
	ck_assert_ptr_null(strstr(strstr(out, "\"addr\"") + 1, "\"addr\""));
}
END_TEST

/* ---- tree: the vmap areas, against /proc/vmallocinfo ---- */

#define MAX_AREAS	8192

struct area {
	uint64_t start, end;
};

/* /proc/vmallocinfo's ranges, real addresses (root, kptr_restrict 1). */
static int vmallocinfo(struct area *a, int cap)
{
	char line[512];
	FILE *f;
	int n = 0;

	vt_write_file("/proc/sys/kernel/kptr_restrict", "1");
	f = fopen("/proc/vmallocinfo", "re");
	ck_assert_ptr_nonnull(f);
	while (n < cap && fgets(line, sizeof(line), f)) {
		unsigned long long s, e;

		/* lazily freed areas wait in purge lists, in no busy tree */
		if (sscanf(line, "0x%llx-0x%llx", &s, &e) == 2 && !strstr(line, "unpurged")) {
			a[n].start = s;
			a[n].end = e;
			n++;
		}
	}
	fclose(f);
	vt_write_file("/proc/sys/kernel/kptr_restrict", "0");
	return n;
}

/*
 * The roots of the busy vmap_area trees: vmap_area_root up to 6.8, the
 * busy.root of each of nr_vmap_nodes vmap_nodes since (mm/vmalloc.c).
 */
static int vmap_roots(uint64_t *root, int cap)
{
	uint64_t nodes, size;
	uint32_t busy, nr;
	struct kmemdev *h;
	struct btf *btf;
	int i, id;

	root[0] = vt_kallsyms("vmap_area_root");
	if (root[0])
		return 1;
	ck_assert_int_eq(vt_kcore_read(vt_kallsyms("vmap_nodes"), &nodes, 8), 0);
	ck_assert_int_eq(vt_kcore_read(vt_kallsyms("nr_vmap_nodes"), &nr, 4), 0);
	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	ck_assert_int_eq(kmemdev_btf_member(h, "vmap_node", "busy", &busy, NULL), 0);
	kmemdev_close(h);
	btf = btf__load_vmlinux_btf();
	ck_assert_ptr_nonnull(btf);
	id = btf__find_by_name_kind(btf, "vmap_node", BTF_KIND_STRUCT);
	ck_assert_int_gt(id, 0);
	size = (uint64_t)btf__resolve_size(btf, id);
	btf__free(btf);
	ck_assert_int_le(nr, cap);
	for (i = 0; i < (int)nr; i++)
		root[i] = nodes + i * size + busy;	/* rb_list: root first */
	return (int)nr;
}

START_TEST(tree_of_vmap_areas)
{
	static struct area before[MAX_AREAS], after[MAX_AREAS], tree[MAX_AREAS];
	uint64_t root[256], vbuf = vt_testobj("vbuf");
	int nb, na, nt = 0, nroots, r, i, k;
	bool vbuf_seen = false;

	nroots = vmap_roots(root, 256);
	nb = vmallocinfo(before, MAX_AREAS);
	for (r = 0; r < nroots; r++) {
		const char *p;
		uint64_t last = 0;

		ck_assert_msg(kmemctl("tree vmap_area.rb_node %#" PRIx64 " -f va_start,va_end --json",
				      root[r]) == 0, "%s", err);
		ck_assert_msg(json_valid(out, false), "%.300s", out);
		for (p = strstr(out, "\"va_start\":"); p && nt < MAX_AREAS;
		     p = strstr(p + 1, "\"va_start\":")) {
			tree[nt].start = strtoull(p + 11, NULL, 10);
			tree[nt].end = strtoull(strstr(p, "\"va_end\":") + 9, NULL, 10);
			/* in order: each tree sorted by address */
			ck_assert_msg(tree[nt].start > last, "%#" PRIx64 " after %#" PRIx64,
				      tree[nt].start, last);
			last = tree[nt].start;
			vbuf_seen |= tree[nt].start == vbuf;
			nt++;
		}
	}
	na = vmallocinfo(after, MAX_AREAS);
	ck_assert_msg(vbuf_seen, "testobj's vbuf %#" PRIx64 " not in the tree", vbuf);
	ck_assert_int_ge(nt, 10);
	/* what /proc showed before and after is in the tree, range and all */
	for (i = 0; i < nb; i++) {
		bool stayed = false, found = false;

		for (k = 0; k < na && !stayed; k++)
			stayed = after[k].start == before[i].start && after[k].end == before[i].end;
		for (k = 0; k < nt && !found && stayed; k++)
			found = tree[k].start == before[i].start && tree[k].end == before[i].end;
		ck_assert_msg(!stayed || found, "%#" PRIx64 "-%#" PRIx64 " not in the tree",
			      before[i].start, before[i].end);
	}
	/* --node and --hlist are no tree's; the link must be an rb_node */
	ck_assert_int_eq(kmemctl("tree vmap_area.rb_node --node %#" PRIx64, root[0]), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("tree vmap_area.list %#" PRIx64, root[0]), 1);
	ck_assert_msg(one_short_line(err) && strstr(err, "not a struct rb_node"), "%s", err);
	ck_assert_int_eq(kmemctl("tree vmap_area.rb_node"), 2);
	ck_assert_msg(one_short_line(err) && strstr(err, "missing ROOT"), "%s", err);
}
END_TEST

/* ---- tree --xarray ---- */

#define MAX_XA	8192

struct xa_row {
	uint64_t index, entry, value;
	bool is_value;
	long field;	/* the first --fields value, if a number */
};

/* The rows of tree --xarray --json: {"index":N,"entry":"0x.."|"value":N,...}. */
static int xa_rows(const char *json, struct xa_row *r, int cap, const char *field)
{
	const char *p = json;
	char pat[64];
	int n = 0;

	snprintf(pat, sizeof(pat), "\"%s\":", field ? field : "");
	while ((p = strstr(p, "{\"index\":")) && n < cap) {
		const char *end = strchr(p, '}'), *v;

		ck_assert_ptr_nonnull(end);
		memset(&r[n], 0, sizeof(r[n]));
		r[n].index = strtoull(p + 9, NULL, 10);
		v = strstr(p, "\"value\":");
		r[n].is_value = v && v < end;
		if (r[n].is_value)
			r[n].value = strtoull(v + 8, NULL, 10);
		else
			r[n].entry = json_hex_of(p, "entry");
		v = field ? strstr(p, pat) : NULL;
		r[n].field = v && v < end ? strtol(v + strlen(pat), NULL, 10) : -1;
		n++;
		p = end;
	}
	return n;
}

/* The id of the kmem_ro_tnode at @node, read by the library (no BTF). */
static long tnode_id(struct kmemdev *h, uint64_t node)
{
	uint32_t id;

	ck_assert_int_eq(kmemdev_read(h, node + vt_testobj("id_offset"), &id, 4), 0);
	return id;
}

/* testobj's XArray: XA_NODES pointers, XA_VALUES values, one far index. */
static void check_xarray(const char *json)
{
	static struct xa_row r[MAX_XA];
	long nodes = (long)vt_testobj("xa_nodes"), stride = (long)vt_testobj("xa_stride");
	long values = (long)vt_testobj("xa_values"), vbase = (long)vt_testobj("xa_value_base");
	uint64_t far = vt_testobj("xa_far");
	struct kmemdev *h;
	int n, i;

	ck_assert_msg(json_valid(json, false), "%.300s", json);
	n = xa_rows(json, r, MAX_XA, NULL);
	ck_assert_int_eq(n, nodes + values + 1);
	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	for (i = 0; i < nodes; i++) {
		ck_assert_uint_eq(r[i].index, (uint64_t)(i * stride));
		ck_assert(!r[i].is_value);
		ck_assert_int_eq(tnode_id(h, r[i].entry), i);
	}
	for (i = 0; i < values; i++) {
		ck_assert_uint_eq(r[nodes + i].index, (uint64_t)(vbase + i));
		ck_assert(r[nodes + i].is_value);
		ck_assert_uint_eq(r[nodes + i].value, (uint64_t)(i * 3));
	}
	ck_assert_uint_eq(r[n - 1].index, far);
	ck_assert_int_eq(tnode_id(h, r[n - 1].entry), (long)vt_testobj("xa_far_id"));
	ck_assert_uint_eq(r[n - 1].entry, r[vt_testobj("xa_far_id")].entry);
	kmemdev_close(h);
}

/* Indices, values and entries: no BTF of testobj needed (6.1 too). */
START_TEST(xarray_of_known_entries)
{
	uint64_t xa = vt_testobj("xarray"), idr = vt_testobj("idr");
	long first = (long)vt_testobj("idr_first"), nodes = (long)vt_testobj("idr_nodes");
	static struct xa_row r[MAX_XA];
	struct kmemdev *h;
	int n;

	ck_assert_msg(kmemctl("tree --xarray %#" PRIx64 " --json", xa) == 0, "%s", err);
	check_xarray(out);
	/* text: a header, a line an entry, values as "value N" */
	ck_assert_msg(kmemctl("tree -x %#" PRIx64, xa) == 0, "%s", err);
	ck_assert_int_eq(vt_count_lines(out), vt_testobj("xa_nodes") + vt_testobj("xa_values") + 2);
	ck_assert_msg(strstr(out, "\n5001                value 3\n"), "%s", out);

	/* the IDR: ids IDR_FIRST.., node id = id - IDR_FIRST */
	ck_assert_msg(kmemctl("tree --xarray %#" PRIx64 " --json", idr) == 0, "%s", err);
	n = xa_rows(out, r, MAX_XA, NULL);
	ck_assert_int_eq(n, nodes);
	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	for (int i = 0; i < n; i++) {
		ck_assert_uint_eq(r[i].index, (uint64_t)(first + i));
		ck_assert_int_eq(tnode_id(h, r[i].entry), i);
	}
	kmemdev_close(h);
}
END_TEST

/* With testobj's BTF: the fields of the objects the entries point to. */
START_TEST(xarray_fields_of_entries)
{
	static struct xa_row r[MAX_XA];
	uint64_t xa = vt_testobj("xarray");
	long stride = (long)vt_testobj("xa_stride");
	char name[32];
	int n;

	if (!testobj_btf(__func__))
		return;
	ck_assert_msg(kmemctl("tree --xarray %#" PRIx64 " --type kmem_ro_tnode --fields id,name "
			      "--json", xa) == 0, "%s", err);
	ck_assert_msg(json_valid(out, false), "%.300s", out);
	n = xa_rows(out, r, MAX_XA, "id");
	ck_assert_int_gt(n, 2);
	for (int i = 0; i < (int)vt_testobj("xa_nodes"); i++)
		ck_assert_int_eq(r[i].field, (long)r[i].index / stride);
	ck_assert_int_eq(json_str_of(strstr(out, "\"index\":37,"), "name", name, sizeof(name)), 0);
	ck_assert_str_eq(name, "node-1");
	ck_assert_msg(kmemctl("tree --xarray %#" PRIx64 " -t kmem_ro_tnode -f id", xa) == 0, "%s",
		      err);
	ck_assert_msg(strstr(out, "INDEX               ENTRY  id\n0 "), "%s", out);
	ck_assert_int_eq(kmemctl("tree --xarray %#" PRIx64 " -t kmem_ro_tnode -f nosuch", xa), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
}
END_TEST

/*
 * The kernel's own: init_pid_ns.idr (its first member) maps each pid
 * number to its struct pid, whose numbers[0].nr is that number.  Every
 * process and thread /proc shows before and after is in it.
 */
START_TEST(pid_idr_is_procs)
{
	static struct xa_row r[MAX_XA];
	static long before[MAX_XA], after[MAX_XA];
	int nb, na, n, i, k;

	nb = proc_tids_all(before, MAX_XA);
	ck_assert_msg(kmemctl("tree --xarray init_pid_ns --type pid --fields numbers[0].nr --json")
		      == 0, "%s", err);
	na = proc_tids_all(after, MAX_XA);
	n = xa_rows(out, r, MAX_XA, "numbers[0].nr");
	ck_assert_int_gt(n, 20);
	for (i = 0; i < n; i++) {
		ck_assert(!r[i].is_value);
		ck_assert_int_eq(r[i].field, (long)r[i].index);
		ck_assert(!i || r[i].index > r[i - 1].index);
	}
	for (i = 0; i < nb; i++) {
		bool stayed = has(after, na, before[i]), found = false;

		for (k = 0; k < n && !found && stayed; k++)
			found = (long)r[k].index == before[i];
		ck_assert_msg(!stayed || found, "pid %ld not in init_pid_ns's IDR", before[i]);
	}
	ck_assert_msg(has(before, nb, getpid()), "no pid %d in /proc", getpid());
	ck_assert_msg(kmemctl("tree --xarray init_pid_ns --type pid --fields numbers[0].nr") == 0,
		      "%s", err);
	printf("%.300s\n", out);	/* for the record: the guest log */
}
END_TEST

START_TEST(xarray_bad_inputs)
{
	uint64_t xa = vt_testobj("xarray");
	char want[64];

	ck_assert_int_eq(kmemctl("tree --xarray"), 2);
	ck_assert_msg(one_short_line(err) && strstr(err, "missing ROOT"), "%s", err);
	ck_assert_int_eq(kmemctl("tree --xarray %#" PRIx64 " --fields id", xa), 2);
	ck_assert_msg(one_short_line(err) && strstr(err, "--type"), "%s", err);
	ck_assert_int_eq(kmemctl("tree --xarray %#" PRIx64 " --type no_such_type_xyz", xa), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("tree --xarray %#" PRIx64 " %#" PRIx64, xa, xa), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("tree --xarray 0x1000"), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("tree --xarray 1000"), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	/* a head node whose shift is no multiple of XA_CHUNK_SHIFT */
	ck_assert_int_eq(kmemctl("tree --xarray %#" PRIx64 " --json", vt_testobj("xa_badshift")), 1);
	ck_assert_msg(one_short_line(err) && strstr(err, "node shift is wrong"), "%s", err);
	ck_assert_str_eq(out, "[]\n");
	/* a head node in an unmapped page */
	ck_assert_int_eq(kmemctl("tree --xarray %#" PRIx64, vt_testobj("xa_unmapped")), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	snprintf(want, sizeof(want), "node %#" PRIx64 ",", vt_testobj("vguard"));
	ck_assert_msg(strstr(err, want), "%s", err);
}
END_TEST

/* The member: root's answer, addresses from debugfs. */
START_TEST(member_xarray)
{
	uint64_t xa = vt_testobj("xarray");

	ck_assert_msg(kmemctl_member("tree --xarray %#" PRIx64 " --json", xa) == 0, "%s", err);
	check_xarray(out);
}
END_TEST

/* A member of the device's group: addresses from debugfs, no symbols. */
START_TEST(member_hlist)
{
	if (!testobj_btf(__func__))
		return;
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	check_hlist(NOBODY, MONITOR_GID);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("list_shape_tool");
	TCase *tc = tcase_create("device");

	tcase_add_test(tc, children_is_a_head);
	tcase_add_test(tc, own_children_in_fork_order);
	tcase_add_test(tc, ring_that_loops_or_breaks);
	tcase_add_test(tc, hlist_of_known_ids);
	tcase_add_test(tc, hlist_loop_and_types);
	tcase_add_test(tc, pid_hash_hlist_holds_our_task);
	tcase_add_test(tc, tree_of_vmap_areas);
	tcase_add_test(tc, member_hlist);
	tcase_add_test(tc, xarray_of_known_entries);
	tcase_add_test(tc, xarray_fields_of_entries);
	tcase_add_test(tc, pid_idr_is_procs);
	tcase_add_test(tc, xarray_bad_inputs);
	tcase_add_test(tc, member_xarray);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
