// SPDX-License-Identifier: GPL-2.0
/*
 * What an address holds and what it is: kmemctl read --words against
 * /proc/kcore's bytes and /proc/kallsyms' names; kmemctl whatis against
 * the kernel's own view: /proc/kallsyms for symbols, /proc/slabinfo for
 * an object kmem_ro_testobj allocates in a cache of its own, this task's
 * stack pointer, /proc/self/pagemap and /proc/kpageflags for a page of
 * ours, /proc/vmallocinfo for testobj's vmalloc buffer and for the stack
 * of a thread of ours (THREAD_SIZE: its area less the guard page).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "tooltest.h"

/* The "value": strings of a words array, in order; how many. */
static int json_words(const char *json, uint64_t *v, int cap)
{
	const char *p = json;
	int n = 0;

	while ((p = strstr(p, "\"value\":\"0x")) && n < cap) {
		p += 11;
		v[n++] = strtoull(p, NULL, 16);
	}
	return n;
}

START_TEST(words_match_kcore)
{
	static const int bits[] = { 8, 16, 32, 64 };
	uint64_t banner = vt_kallsyms("linux_banner"), v[64];
	unsigned char raw[32];
	unsigned int b, i, k;

	ck_assert_uint_ne(banner, 0);
	ck_assert_int_eq(vt_kcore_read(banner, raw, sizeof(raw)), 0);
	for (b = 0; b < 4; b++) {
		unsigned int bytes = bits[b] / 8;

		ck_assert_msg(kmemctl("read linux_banner 32 --words %d --json", bits[b]) == 0, "%s",
			      err);
		ck_assert_msg(json_valid(out, false), "%s", out);
		ck_assert_int_eq(vt_json_num(out, "word_bits"), bits[b]);
		ck_assert_int_eq(json_words(out, v, 64), 32 / bytes);
		for (i = 0; i < 32 / bytes; i++) {
			uint64_t want = 0;

			for (k = 0; k < bytes; k++)
				want |= (uint64_t)raw[i * bytes + k] << (8 * k);
			ck_assert_uint_eq(v[i], want);
		}
	}
	/* text: "ADDR:  4c 69 ..." then the bytes as text */
	ck_assert_msg(kmemctl("read linux_banner 16 --words 8") == 0, "%s", err);
	ck_assert_msg(strstr(out, ":  4c 69 6e 75 78 20") && strstr(out, "|Linux version "), "%s",
		      out);
}
END_TEST

/* init_task.stack points at init_stack: named beside the value. */
START_TEST(words_name_pointers)
{
	uint64_t init = vt_kallsyms("init_task"), stack, v[4];
	uint32_t off;
	struct kmemdev *h;
	char name[128], want[160];

	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "stack", &off, NULL), 0);
	kmemdev_close(h);
	ck_assert_int_eq(vt_kcore_read(init + off, &stack, 8), 0);
	ck_assert_msg(kmemctl("read init_task+%u 8 --words 64 --json", off) == 0, "%s", err);
	ck_assert_int_eq(json_words(out, v, 4), 1);
	ck_assert_uint_eq(v[0], stack);
	ck_assert_int_eq(json_str_of(out, "symbol", name, sizeof(name)), 0);
	ck_assert_msg(!strchr(name, '+'), "%s", name);
	ck_assert_msg(kallsyms_has(stack, name), "%s is not at %#" PRIx64, name, stack);
	ck_assert_msg(kmemctl("read init_task+%u 16 --words 64", off) == 0, "%s", err);
	snprintf(want, sizeof(want), "%016" PRIx64 " <%s>", stack, name);
	ck_assert_msg(strstr(out, want), "no '%s' in %s", want, out);

	ck_assert_int_eq(kmemctl("read linux_banner 16 --words 12"), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("read linux_banner 12 --words 64"), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("read linux_banner 16 --words 64 --raw"), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
}
END_TEST

START_TEST(whatis_symbols)
{
	uint64_t show = kallsyms_in("testobj_show", "kmem_ro_testobj");
	char s[128];

	ck_assert_msg(kmemctl("whatis init_task+8 --json") == 0, "%s", err);
	ck_assert_msg(json_valid(out, false), "%s", out);
	ck_assert_int_eq(json_str_of(out, "kind", s, sizeof(s)), 0);
	ck_assert_str_eq(s, "symbol");
	ck_assert_int_eq(json_str_of(out, "symbol", s, sizeof(s)), 0);
	ck_assert_str_eq(s, "init_task");
	ck_assert_int_eq(vt_json_num(out, "offset"), 8);
	ck_assert_uint_eq(json_hex_of(out, "symbol_addr"), vt_kallsyms("init_task"));

	ck_assert_uint_ne(show, 0);
	ck_assert_msg(kmemctl("whatis %#" PRIx64, show + 3) == 0, "%s", err);
	ck_assert_msg(strstr(out, ": symbol testobj_show+0x3 [kmem_ro_testobj]\n"), "%s", out);
}
END_TEST

/* The objsize column of /proc/slabinfo for @cache (the slot size, s->size). */
static long slabinfo_size(const char *cache)
{
	FILE *f = fopen("/proc/slabinfo", "re");
	char line[512], name[128];
	long active, num, size = -1, v;

	ck_assert_ptr_nonnull(f);
	while (size < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %ld %ld %ld", name, &active, &num, &v) == 4 &&
		    !strcmp(name, cache))
			size = v;
	fclose(f);
	return size;
}

START_TEST(whatis_slab_object)
{
	uint64_t obj = vt_testobj("slab_obj");
	long want = slabinfo_size("kmem_ro_test_cache");
	char s[128];

	ck_assert_int_gt(want, 0);
	ck_assert_msg(kmemctl("whatis %#" PRIx64 " --json", obj + 17) == 0, "%s", err);
	ck_assert_msg(json_valid(out, false), "%s", out);
	ck_assert_int_eq(json_str_of(out, "kind", s, sizeof(s)), 0);
	ck_assert_str_eq(s, "slab");
	ck_assert_int_eq(json_str_of(out, "cache", s, sizeof(s)), 0);
	ck_assert_str_eq(s, "kmem_ro_test_cache");
	ck_assert_uint_eq(json_hex_of(out, "object"), obj);
	ck_assert_int_eq(vt_json_num(out, "offset"), 17);
	ck_assert_int_eq(vt_json_num(out, "object_size"), (long long)vt_testobj("slab_size"));
	ck_assert_int_eq(vt_json_num(out, "size"), want);
	ck_assert_msg(kmemctl("whatis %#" PRIx64, obj) == 0, "%s", err);
	ck_assert_msg(strstr(out, "+0x0 of cache kmem_ro_test_cache"), "%s", out);
}
END_TEST

/* Our own kernel stack (task_struct.stack), while kmemctl runs. */
START_TEST(whatis_own_stack)
{
	uint64_t me = task_of(getpid()), stack;
	uint32_t off;
	struct kmemdev *h;
	char s[64];

	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "stack", &off, NULL), 0);
	ck_assert_int_eq(kmemdev_read(h, me + off, &stack, 8), 0);
	kmemdev_close(h);
	ck_assert_msg(kmemctl("whatis %#" PRIx64 " --json", stack + 1000) == 0, "%s", err);
	ck_assert_int_eq(json_str_of(out, "kind", s, sizeof(s)), 0);
	ck_assert_str_eq(s, "stack");
	ck_assert_int_eq(vt_json_num(out, "pid"), getpid());
	ck_assert_uint_eq(json_hex_of(out, "task"), me);
	ck_assert_int_eq(vt_json_num(out, "offset"), 1000);
}
END_TEST

/* A thread of ours that sleeps until the test ends; its TID. */
static pid_t sleeper_tid;

static void *sleeper(void *arg)
{
	(void)arg;
	__atomic_store_n(&sleeper_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	for (;;)
		pause();
	return NULL;
}

static pid_t start_sleeper(void)
{
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, sleeper, NULL), 0);
	while (!__atomic_load_n(&sleeper_tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	return sleeper_tid;
}

/*
 * The task_struct of thread @tid of this process and its stack: the
 * library's WALK over our signal->thread_head (linked by thread_node).
 */
static uint64_t thread_task(pid_t tid, uint64_t *stack)
{
	KMEMDEV_ARG(kmem_ro_walk, w, .flags = KMEM_RO_WALK_NODE_ADDR);
	uint32_t sig_off, head_off, node_off, pid_off, stack_off, nodes, i;
	uint64_t me = task_of(getpid()), signal, found = 0;
	struct kmem_ro_field f;
	struct kmemdev *h;
	void *buf = NULL;
	size_t cap = 0;

	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "signal", &sig_off, NULL), 0);
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "thread_node", &node_off, NULL), 0);
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "pid", &pid_off, NULL), 0);
	ck_assert_int_eq(kmemdev_btf_member(h, "task_struct", "stack", &stack_off, NULL), 0);
	ck_assert_int_eq(kmemdev_btf_member(h, "signal_struct", "thread_head", &head_off, NULL), 0);
	ck_assert_int_eq(kmemdev_read(h, me + sig_off, &signal, 8), 0);
	w.head = signal + head_off;
	w.link_offset = node_off;
	f = (struct kmem_ro_field){ .offset = pid_off, .len = 4 };
	w.fields_addr = (uintptr_t)&f;
	w.fields_count = 1;
	ck_assert_int_eq(kmemdev_walk_all(h, &w, &buf, &cap, &nodes), 0);
	for (i = 0; i < nodes && !found; i++) {
		int32_t p;

		memcpy(&p, (char *)buf + i * 12 + 8, 4);
		if (p == tid)
			memcpy(&found, (char *)buf + i * 12, 8);
	}
	ck_assert_uint_ne(found, 0);
	ck_assert_int_eq(kmemdev_read(h, found + stack_off, stack, 8), 0);
	free(buf);
	kmemdev_close(h);
	return found;
}

/*
 * The /proc/vmallocinfo area that starts at @start, as root sees it with
 * kptr_restrict 1: its size (0 if none), end and caller (256 bytes).
 */
static long vmallocinfo_area(uint64_t start, uint64_t *end, char *caller)
{
	char line[512];
	long size = 0;
	FILE *f;

	vt_write_file("/proc/sys/kernel/kptr_restrict", "1");
	f = fopen("/proc/vmallocinfo", "re");
	ck_assert_ptr_nonnull(f);
	while (!size && fgets(line, sizeof(line), f)) {
		unsigned long long a, b;
		long n;

		if (sscanf(line, "0x%llx-0x%llx %ld %255s", &a, &b, &n, caller) == 4 &&
		    a == start) {
			size = n;
			*end = b;
		}
	}
	fclose(f);
	vt_write_file("/proc/sys/kernel/kptr_restrict", "0");
	return size;
}

/*
 * A thread that leads no process: its stack is found too, by its TID;
 * THREAD_SIZE is its vmalloc area's size less the guard page (VMAP_STACK:
 * __vmalloc_node_range() adds one), up to its last byte and no further.
 */
static void check_thread_stack(bool as_member)
{
	uint64_t stack, task = thread_task(start_sleeper(), &stack), end;
	char s[64], caller[256];
	long area = vmallocinfo_area(stack, &end, caller), size = area - 4096;

	ck_assert_msg(area > 4096, "no vmalloc area at the stack %#" PRIx64, stack);
	if (as_member)
		ck_assert_msg(kmemctl_member("whatis %#" PRIx64 " --json", stack + 100) == 0,
			      "%s", err);
	else
		ck_assert_msg(kmemctl("whatis %#" PRIx64 " --json", stack + 100) == 0, "%s", err);
	ck_assert_msg(json_valid(out, false), "%s", out);
	ck_assert_int_eq(json_str_of(out, "kind", s, sizeof(s)), 0);
	ck_assert_str_eq(s, "stack");
	ck_assert_int_eq(vt_json_num(out, "pid"), getpid());
	ck_assert_int_eq(vt_json_num(out, "tid"), sleeper_tid);
	ck_assert_uint_eq(json_hex_of(out, "task"), task);
	ck_assert_int_eq(vt_json_num(out, "offset"), 100);
	ck_assert_int_eq(vt_json_num(out, "stack_size"), size);
	if (as_member)
		return;

	ck_assert_msg(kmemctl("whatis %#" PRIx64 " --json", stack + size - 1) == 0, "%s", err);
	ck_assert_uint_eq(json_hex_of(out, "task"), task);
	ck_assert_int_eq(vt_json_num(out, "offset"), size - 1);
	/* the guard page: the vmalloc area, no task's stack */
	ck_assert_msg(kmemctl("whatis %#" PRIx64 " --json", stack + size) == 0, "%s", err);
	ck_assert_int_eq(json_str_of(out, "kind", s, sizeof(s)), 0);
	ck_assert_str_eq(s, "vmalloc");
	ck_assert_uint_eq(json_hex_of(out, "start"), stack);
	ck_assert_msg(kmemctl("whatis %#" PRIx64, stack + 8) == 0, "%s", err);
	snprintf(s, sizeof(s), "tid %d \"", sleeper_tid);
	ck_assert_msg(strstr(out, s) && strstr(out, "0x8 of "), "%s", out);
	printf("%s", out);	/* for the record: the guest log */
}

START_TEST(whatis_thread_stack)
{
	check_thread_stack(false);
}
END_TEST

START_TEST(member_whatis_thread_stack)
{
	check_thread_stack(true);
}
END_TEST

/*
 * CPU 1's idle task is on no task list: its stack (runqueues.idle->stack,
 * read by kmemctl struct, which struct_path_tool_test checks) is found
 * and named as the kernel named the task, "swapper/1".
 */
START_TEST(whatis_idle_stack)
{
	const char *v;
	uint64_t stack;

	if (sysconf(_SC_NPROCESSORS_CONF) < 2)
		return;	/* the VM has 2 CPUs: not reached */
	ck_assert_msg(kmemctl("struct rq.idle->stack runqueues --cpu 1") == 0, "%s", err);
	v = strstr(out, "= 0x");
	ck_assert_msg(v, "%s", out);
	stack = strtoull(v + 2, NULL, 16);
	ck_assert_msg(kmemctl("whatis %#" PRIx64, stack + 0x100) == 0, "%s", err);
	ck_assert_msg(strstr(out, ": stack of pid 0 tid 0 \"swapper/1\""), "%s", out);
	ck_assert_msg(strstr(out, "0x100 of "), "%s", out);
}
END_TEST

/* An anonymous page of ours: its PFN from pagemap, flags from kpageflags. */
START_TEST(whatis_own_page)
{
	KMEMDEV_ARG(kmem_ro_info, info);
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				-1, 0);
	uint64_t ent, pfn, kflags;
	struct kmemdev *h;
	char s[512];
	FILE *f;

	ck_assert_ptr_ne(p, MAP_FAILED);
	p[0] = 1;
	ck_assert_int_eq(mlock(p, 4096), 0);
	f = fopen("/proc/self/pagemap", "re");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(pread(fileno(f), &ent, 8, (uintptr_t)p / 4096 * 8), 8);
	fclose(f);
	ck_assert_msg(ent >> 63, "not present");
	pfn = ent & ((1ULL << 55) - 1);
	ck_assert_uint_ne(pfn, 0);
	f = fopen("/proc/kpageflags", "re");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(pread(fileno(f), &kflags, 8, pfn * 8), 8);
	fclose(f);
	ck_assert_int_eq(kmemdev_open(&h, NULL), 0);
	ck_assert_int_ge(kmemdev_info(h, &info, NULL, 0), 0);
	kmemdev_close(h);

	ck_assert_msg(kmemctl("whatis %#" PRIx64 " --json", (uint64_t)info.page_offset + pfn * 4096 + 5) == 0,
		      "%s", err);
	ck_assert_msg(json_valid(out, false), "%s", out);
	ck_assert_int_eq(json_str_of(out, "kind", s, sizeof(s)), 0);
	ck_assert_str_eq(s, "page");
	ck_assert_uint_eq(json_hex_of(out, "pfn"), pfn);
	ck_assert_int_eq(json_str_of(out, "flag_names", s, sizeof(s)), 0);
	/* KPF_SWAPBACKED (14) and KPF_SLAB (7) as the kernel reports them */
	ck_assert_msg(kflags >> 14 & 1, "kpageflags %#" PRIx64, kflags);
	ck_assert_msg(strstr(s, "swapbacked"), "%s", s);
	ck_assert_msg(!(kflags >> 7 & 1) && !strstr(s, "slab"), "%s", s);
	munmap(p, 4096);
}
END_TEST

/* testobj's vbuf as /proc/vmallocinfo shows it to root with kptr_restrict 1. */
START_TEST(whatis_vmalloc_area)
{
	uint64_t vbuf = vt_testobj("vbuf"), start = vbuf, end = 0, caller;
	char want_caller[256] = "", s[256];

	ck_assert_msg(vmallocinfo_area(vbuf, &end, want_caller), "vbuf %#" PRIx64
		      " not in /proc/vmallocinfo", vbuf);


	ck_assert_msg(kmemctl("whatis %#" PRIx64 " --json", vbuf + 5000) == 0, "%s", err);
	ck_assert_msg(json_valid(out, false), "%s", out);
	ck_assert_int_eq(json_str_of(out, "kind", s, sizeof(s)), 0);
	ck_assert_str_eq(s, "vmalloc");
	ck_assert_uint_eq(json_hex_of(out, "start"), start);
	ck_assert_uint_eq(json_hex_of(out, "end"), end);
	caller = json_hex_of(out, "caller");
	ck_assert_uint_ne(caller, 0);
	ck_assert_int_eq(json_str_of(out, "caller_symbol", s, sizeof(s)), 0);
	/* %pS: "testobj_init+0x9c/0x1f0 [kmem_ro_testobj]", or the bare
	 * address once the module's init symbols are gone */
	if (!strncmp(want_caller, "0x", 2)) {
		ck_assert_uint_eq(strtoull(want_caller, NULL, 16), caller);
	} else {
		want_caller[strcspn(want_caller, "/")] = '\0';
		ck_assert_msg(!strncmp(s, want_caller, strlen(want_caller)), "%s vs %s", s,
			      want_caller);
	}
}
END_TEST

START_TEST(whatis_errors)
{
	ck_assert_int_eq(kmemctl("whatis 0x1000"), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_msg(strstr(err, "whatis 0x1000: no symbol"), "%s", err);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(kmemctl("whatis 0x1000 --json"), 1);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(kmemctl("whatis"), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("whatis 1000"), 2);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("whatis no_such_symbol_xyz"), 1);
	ck_assert_msg(one_short_line(err), "%s", err);
	ck_assert_int_eq(kmemctl("whatis init_task init_task"), 2);
}
END_TEST

/* ---- a member of the device's group, no capabilities ---- */

static int member_run(char **argv)
{
	out[0] = err[0] = '\0';
	return vt_exec(NOBODY, MONITOR_GID, argv, out, sizeof(out), err, sizeof(err));
}

/* By address, read --words needs no symbols. */
START_TEST(member_words_by_address)
{
	uint64_t vbuf = vt_testobj("vbuf"), v[4];
	char a[64], *argv[] = { "kmemctl", "read", a, "4", "--words", "8", "--json", NULL };

	snprintf(a, sizeof(a), "%#" PRIx64, vbuf + 1);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	ck_assert_msg(member_run(argv) == 0, "%s", err);
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
	/* testobj's vbuf: byte i is (i * 7) & 0xff */
	ck_assert_int_eq(json_words(out, v, 4), 4);
	ck_assert_uint_eq(v[0], 7);
	ck_assert_uint_eq(v[3], 28);
}
END_TEST

/* whatis needs symbols (slab_caches, vmemmap_base): the device's. */
START_TEST(member_whatis_slab)
{
	uint64_t obj = vt_testobj("slab_obj");
	char s[128];

	ck_assert_msg(kmemctl_member("whatis %#" PRIx64 " --json", obj + 3) == 0, "%s", err);
	ck_assert_int_eq(json_str_of(out, "cache", s, sizeof(s)), 0);
	ck_assert_str_eq(s, "kmem_ro_test_cache");
	ck_assert_uint_eq(json_hex_of(out, "object"), obj);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("addr_tool");
	TCase *tc = tcase_create("words");

	tcase_add_test(tc, words_match_kcore);
	tcase_add_test(tc, words_name_pointers);
	suite_add_tcase(s, tc);

	tc = tcase_create("whatis");
	tcase_add_test(tc, whatis_symbols);
	tcase_add_test(tc, whatis_slab_object);
	tcase_add_test(tc, whatis_own_stack);
	tcase_add_test(tc, whatis_thread_stack);
	tcase_add_test(tc, whatis_idle_stack);
	tcase_add_test(tc, whatis_own_page);
	tcase_add_test(tc, whatis_vmalloc_area);
	tcase_add_test(tc, whatis_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("member");
	tcase_add_test(tc, member_words_by_address);
	tcase_add_test(tc, member_whatis_slab);
	tcase_add_test(tc, member_whatis_thread_stack);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
