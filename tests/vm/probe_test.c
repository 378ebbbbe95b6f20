// SPDX-License-Identifier: GPL-2.0
/*
 * Probes: exact hit counts through both backends, a per-entry errno for
 * each bad spec without failing the batch, bulk add of every function
 * (added exactly where tracefs lists an fentry site, refused elsewhere),
 * every function enabled at once (the callback's own callees among them),
 * no kprobe where the optimizer would read unmapped memory,
 * nothing left behind when the owner closes or dies, storms from several
 * threads, probes of an unloaded module marked gone (and out of ftrace),
 * and the argument and privilege rules, row by row as README lists them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmtest.h"

#define HOT	"__x64_sys_getppid"
#define FTRACE_LIST	"/sys/kernel/tracing/enabled_functions"
#define KPROBE_LIST	"/sys/kernel/debug/kprobes/list"
#define OUR_CALLBACK	"kmem_ro_probe_ftrace"
#define CALLS	1000

START_TEST(exact_counts_both_backends)
{
	uint64_t addr = vt_kallsyms(HOT), ids[2];
	struct kmem_ro_probe_spec s[2];
	int fd = vt_open_dev();

	ck_assert_uint_ne(addr, 0);
	vt_probe_spec(&s[0], HOT, addr, 0, 0);				/* ftrace, disabled */
	vt_probe_spec(&s[1], HOT, addr, vt_after_fentry(addr), 0);		/* kprobe, disabled */
	ck_assert_int_eq(vt_probe_add(fd, s, 2, NULL), 0);
	ck_assert_int_gt(s[0].result, 0);
	ck_assert_int_gt(s[1].result, 0);
	ids[0] = s[0].result;
	ids[1] = s[1].result;
	vt_call_getppid(CALLS);
	ck_assert_uint_eq(vt_probe_hits(fd, ids[0]), 0);			/* added disabled */
	ck_assert_uint_eq(vt_probe_hits(fd, ids[1]), 0);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, ids, 2, NULL, NULL), 0);
	vt_call_getppid(CALLS);
	ck_assert_uint_eq(vt_probe_hits(fd, ids[0]), CALLS);
	ck_assert_uint_eq(vt_probe_hits(fd, ids[1]), CALLS);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DISABLE, KMEM_RO_PROBE_ALL, NULL, 0, NULL, NULL), 0);
	vt_call_getppid(CALLS);
	ck_assert_uint_eq(vt_probe_hits(fd, ids[0]), CALLS);
	ck_assert_uint_eq(vt_probe_hits(fd, ids[1]), CALLS);
	/* reset */
	{
		uint64_t counts[2];

		ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, KMEM_RO_PROBE_RESET, ids, 2,
					  counts, NULL), 0);
		ck_assert_uint_eq(counts[0], CALLS);
		ck_assert_uint_eq(vt_probe_hits(fd, ids[0]), 0);
	}
	/* an id named twice is acted on once, and counts at each position */
	{
		uint64_t twice[3] = { ids[0], ids[1], ids[0] };
		unsigned int done;

		ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, twice, 3, NULL, &done), 0);
		ck_assert_uint_eq(done, 3);
		ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, 0, twice, 3, NULL, &done), 0);
		ck_assert_uint_eq(done, 3);
		ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, 0, twice, 1, NULL, NULL), -ENOENT);
	}
	close(fd);
}
END_TEST

START_TEST(per_entry_errors)
{
	uint64_t hot = vt_kallsyms(HOT), noinstr = vt_kallsyms("do_syscall_64");
	struct kmem_ro_probe_spec s[7];
	unsigned int added;
	int fd = vt_open_dev();

	vt_probe_spec(&s[0], HOT, hot, 0, KMEM_RO_PROBE_ENABLED);	/* good */
	vt_probe_spec(&s[1], HOT, hot + 2, 0, 0);			/* not a function start */
	vt_probe_spec(&s[2], "do_syscall_64", noinstr, 0, 0);		/* noinstr: not traceable */
	vt_probe_spec(&s[3], HOT, hot, 0, 0);				/* duplicate */
	vt_probe_spec(&s[4], HOT, hot, 1 << 20, 0);			/* past the function */
	vt_probe_spec(&s[5], HOT, hot, 1, 0);				/* inside an instruction */
	vt_probe_spec(&s[6], "do_syscall_64", noinstr, 1, 0);		/* kprobe blacklist */
	ck_assert_int_eq(vt_probe_add(fd, s, 7, &added), 0);
	ck_assert_uint_eq(added, 1);
	ck_assert_int_gt(s[0].result, 0);
	ck_assert_int_eq(s[1].result, -ENOENT);
	ck_assert_int_eq(s[2].result, -EOPNOTSUPP);
	ck_assert_int_eq(s[3].result, -EEXIST);
	ck_assert_int_eq(s[4].result, -EINVAL);
	ck_assert_int_eq(s[5].result, -EINVAL);
	ck_assert_int_eq(s[6].result, -EOPNOTSUPP);
	vt_call_getppid(10);
	ck_assert_uint_eq(vt_probe_hits(fd, s[0].result), 10);		/* the batch still works */
	close(fd);
}
END_TEST

/* READV of one byte at @addr: its result, 1 or -errno. */
static int64_t read_byte(int fd, uint64_t addr)
{
	unsigned char b;
	struct kmem_ro_iov iov = { .addr = addr, .len = 1, .buf = (uintptr_t)&b };
	struct kmem_ro_readv rv = { .size = sizeof(rv), .iov_addr = (uintptr_t)&iov,
				    .iov_count = 1 };

	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_READV, &rv), 0);
	return iov.result;
}

/*
 * The kprobe optimizer decodes a whole function as kallsyms sizes it.  The
 * last text function of a module runs, on 6.12, up to unmapped memory: a
 * kprobe inside it oopsed register_kprobe() (found by fuzz_test).  On 6.1
 * the module's rodata follows its text: nothing to refuse there, the probe
 * is added.
 */
START_TEST(kprobe_in_function_running_into_unmapped)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	uint64_t addr, last = 0, next = ~0ULL, page;
	char line[512], *name, *mod, lastname[256] = "", type;
	struct kmem_ro_probe_spec s;
	int fd = vt_open_dev();

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (vt_ksym_split(line, &addr, &type, &name, &mod) && mod &&
		    !strcmp(mod, "kmem_ro_testobj") && (type == 't' || type == 'T') &&
		    addr > last) {
			last = addr;
			snprintf(lastname, sizeof(lastname), "%s", name);
		}
	rewind(f);
	while (fgets(line, sizeof(line), f))	/* any symbol after it bounds it */
		if (vt_ksym_split(line, &addr, &type, &name, &mod) && addr > last && addr < next)
			next = addr;
	fclose(f);
	ck_assert_uint_ne(last, 0);
	for (page = (last | 4095) + 1; page < next && read_byte(fd, page) == 1; page += 4096)
		;
	/*
	 * Module text has its own allocation since 6.4 (struct module_memory);
	 * since 6.14 x86 carves it from 2 MiB pages of execmem's ROX cache,
	 * mapped to their end and filled with int3 (execmem_fill_trapping_insns()).
	 */
	if (vt_kernel_at_least(6, 4) && !vt_kernel_at_least(6, 14)) {
		ck_assert_msg(page < next, "%s: no unmapped page after it", lastname);
		vt_probe_spec(&s, lastname, last, vt_after_fentry(last), 0);
		ck_assert_int_eq(vt_probe_add(fd, &s, 1, NULL), 0);
		ck_assert_int_eq(s.result, -EOPNOTSUPP);
	} else {
		/*
		 * All of it decodes: inside the first instruction kprobes
		 * says so (-EINVAL), at its end the kprobe goes in.  (It is
		 * testobj_exit(): __exit is notrace, no fentry site.)
		 */
		ck_assert_msg(page >= next, "%s: unmapped page at %#llx", lastname,
			      (unsigned long long)page);
		for (uint32_t off = 1; off < 16; off++) {
			vt_probe_spec(&s, lastname, last, off, 0);
			ck_assert_int_eq(vt_probe_add(fd, &s, 1, NULL), 0);
			if (s.result != -EINVAL)
				break;
		}
		ck_assert_msg(s.result > 0, "%s+%u: %lld", lastname, s.offset, (long long)s.result);
	}
	close(fd);
}
END_TEST

#define ALL_TEXT	(1 << 18)

/*
 * Entry probes on the first @max vmlinux text symbols, in kallsyms order;
 * with @stride > 1 only every @stride-th, and always HOT and
 * __rcu_read_lock.
 */
static unsigned int every_function(struct kmem_ro_probe_spec *s, uint32_t flags,
				   unsigned int max, unsigned int stride)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	uint64_t addr;
	char line[512], *name, type, *mod;
	unsigned int n = 0, seen = 0;

	ck_assert_ptr_nonnull(f);
	while (n < max && fgets(line, sizeof(line), f))
		if (vt_ksym_split(line, &addr, &type, &name, &mod) && !mod &&
		    strchr("tTW", type) && strlen(name) < KMEM_RO_PROBE_NAME_LEN &&
		    (seen++ % stride == 0 || !strcmp(name, HOT) || !strcmp(name, "__rcu_read_lock")))
			vt_probe_spec(&s[n++], name, addr, 0, flags);
	fclose(f);
	ck_assert_uint_gt(n, 10000 / stride);
	return n;
}

/* ---- what ftrace can trace, as tracefs lists it ---- */

struct name_count {
	char *name;
	unsigned int afs;	/* lines in available_filter_functions */
	unsigned int tried;	/* addresses probed whose kernel name this is */
	unsigned int added;	/* of those, probes the driver added */
};

static struct name_count *names;
static size_t nnames;
static unsigned int invalid_sites;

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct name_count *)a)->name, ((const struct name_count *)b)->name);
}

static struct name_count *name_find(const char *name)
{
	struct name_count key = { .name = (char *)name };

	return bsearch(&key, names, nnames, sizeof(*names), name_cmp);
}

/*
 * Every vmlinux symbol name of /proc/kallsyms and available_filter_functions,
 * sorted, with the number of vmlinux lines tracefs has for each.
 */
static void load_names(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256], *sym, *mod, type;
	size_t cap = 1 << 20, w = 0;
	uint64_t addr;

	names = calloc(cap, sizeof(*names));
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		ck_assert_msg(vt_ksym_split(line, &addr, &type, &sym, &mod), "kallsyms: %s", line);
		if (mod)
			continue;
		ck_assert_uint_lt(nnames, cap);
		names[nnames++].name = strdup(sym);
	}
	fclose(f);
	qsort(names, nnames, sizeof(*names), name_cmp);
	for (size_t r = 0; r < nnames; r++)	/* unique */
		if (!w || strcmp(names[w - 1].name, names[r].name))
			names[w++] = names[r];
	nnames = w;
	f = fopen("/sys/kernel/tracing/available_filter_functions", "re");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		struct name_count *nc;

		if (strchr(line, '['))		/* a module's */
			continue;
		ck_assert_int_eq(sscanf(line, "%255s", name), 1);
		/* a site kallsyms puts past a function's start: never traced */
		if (!strncmp(name, "__ftrace_invalid_address___", 27)) {
			invalid_sites++;
			continue;
		}
		nc = name_find(name);
		ck_assert_msg(nc, "tracefs lists %s, kallsyms does not", name);
		nc->afs++;
	}
	fclose(f);
}

/*
 * The kernel's name for each address (sprint_symbol(), as the driver and
 * tracefs both print it): the first symbol at that address in kallsyms
 * order, whatever its type.  @canon[i] for each of the @n specs.
 */
static void kernel_names(const struct kmem_ro_probe_spec *s, unsigned int n,
			 struct name_count **canon)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	uint64_t addr, prev = 0;
	char line[512], *name, *mod, type;
	unsigned int i = 0;
	struct name_count *first = NULL;

	ck_assert_ptr_nonnull(f);
	while (i < n && fgets(line, sizeof(line), f)) {
		ck_assert_msg(vt_ksym_split(line, &addr, &type, &name, &mod), "kallsyms: %s", line);
		if (mod)
			continue;
		if (addr != prev || !first)
			first = name_find(name);
		prev = addr;
		/* the specs are kallsyms' text lines, in the same order */
		while (i < n && s[i].addr == addr && !strcmp(s[i].name, name))
			canon[i++] = first;
	}
	fclose(f);
	ck_assert_uint_eq(i, n);
}

/* ADD @n specs, KMEM_RO_PROBE_MAX_BATCH a call; *@added in all. */
static void add_all(int fd, struct kmem_ro_probe_spec *s, unsigned int n, unsigned int *added)
{
	*added = 0;
	for (unsigned int done = 0, step, got; done < n; done += step) {
		step = n - done < KMEM_RO_PROBE_MAX_BATCH ? n - done : KMEM_RO_PROBE_MAX_BATCH;
		ck_assert_int_eq(vt_probe_add(fd, s + done, step, &got), 0);
		*added += got;
	}
}

/*
 * An entry probe goes where ftrace can trace: ftrace_set_filter_ips()
 * takes a function's start when an fentry site lies inside it (see
 * ftrace_location()), and available_filter_functions prints each site by
 * the kernel's name for it.  So, over the @n specs every_function() made,
 * just added: a second symbol at an address gets -EEXIST if the first was
 * added, else what the first got; for every kernel name, the probes added
 * equal the lines tracefs has for it; every other address gets
 * -EOPNOTSUPP.  Returns the number tracefs says can be added.
 */
static unsigned int traceable_functions(const struct kmem_ro_probe_spec *s, unsigned int n)
{
	struct name_count **canon = calloc(ALL_TEXT, sizeof(*canon));
	unsigned int firsts = 0, eexist = 0, refused = 0, added = 0, afs_total = 0, bad = 0;
	unsigned int first = 0;

	load_names();
	kernel_names(s, n, canon);
	for (unsigned int i = 0; i < n; i++) {
		/* kallsyms lists vmlinux by address: aliases are neighbours */
		ck_assert_uint_ge(s[i].addr, i ? s[i - 1].addr : 0);
		if (i && s[i].addr == s[i - 1].addr) {
			int64_t want = s[first].result > 0 ? -EEXIST : s[first].result;

			eexist += want == -EEXIST;
			if (s[i].result != want && bad++ < 10)
				fprintf(stderr, "probe: alias %s: %lld, want %lld\n", s[i].name,
					(long long)s[i].result, (long long)want);
			continue;
		}
		first = i;
		firsts++;
		canon[i]->tried++;
		if (s[i].result > 0) {
			canon[i]->added++;
			added++;
		} else if (s[i].result == -EOPNOTSUPP) {
			refused++;
		} else if (bad++ < 10) {
			fprintf(stderr, "probe: %s: %lld\n", s[i].name, (long long)s[i].result);
		}
	}
	for (size_t k = 0; k < nnames; k++) {
		afs_total += names[k].afs;
		if (names[k].added == names[k].afs || bad++ >= 40)
			continue;
		fprintf(stderr, "probe: %s: %u added of %u tried, tracefs lists %u\n",
			names[k].name, names[k].added, names[k].tried, names[k].afs);
		for (unsigned int i = 0; i < n; i++)
			if (canon[i] == &names[k] && (!i || s[i].addr != s[i - 1].addr))
				fprintf(stderr, "probe:   %#llx: %lld\n", (unsigned long long)s[i].addr,
					(long long)s[i].result);
	}
	printf("probe: %u addresses: %u added (tracefs: %u, and %u invalid sites), "
	       "%u -EOPNOTSUPP; %u aliases -EEXIST\n",
	       firsts, added, afs_total, invalid_sites, refused, eexist);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(added + refused, firsts);
	for (size_t k = 0; k < nnames; k++)
		free(names[k].name);
	free(names);
	names = NULL;
	nnames = invalid_sites = 0;
	free(canon);
	return afs_total;
}

/*
 * Added, not enabled: on a debug kernel, whose enable_every_function()
 * enables one function in eight, the only pass over all of them.
 */
START_TEST(bulk_add_every_function)
{
	struct kmem_ro_probe_spec *s = calloc(ALL_TEXT, sizeof(*s));
	struct kmem_ro_probe_list l = { .size = sizeof(l) };
	unsigned int n, added;
	time_t t0;
	int fd = vt_open_dev();

	n = every_function(s, 0, ALL_TEXT, 1);
	ck_assert_uint_lt(n, ALL_TEXT);
	t0 = time(NULL);
	add_all(fd, s, n, &added);
	printf("probe: %u of %u vmlinux text symbols probe-able, added in %lds\n",
	       added, n, (long)(time(NULL) - t0));
	ck_assert_uint_eq(added, traceable_functions(s, n));
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), 0);
	ck_assert_uint_eq(l.count, added);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, KMEM_RO_PROBE_ALL, NULL, 0, NULL, NULL), 0);
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), 0);
	ck_assert_uint_eq(l.count, 0);
	free(s);
	close(fd);
}
END_TEST

START_TEST(owner_death_removes_everything)
{
	uint64_t addr = vt_kallsyms(HOT);
	int pipefd[2], status;
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(pipefd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		struct kmem_ro_probe_spec s[2];
		int fd = open(KMEM_RO_DEVICE, O_RDONLY);

		vt_probe_spec(&s[0], HOT, addr, 0, KMEM_RO_PROBE_ENABLED);
		vt_probe_spec(&s[1], HOT, addr, vt_after_fentry(addr), KMEM_RO_PROBE_ENABLED);
		close(pipefd[0]);
		if (fd < 0 || vt_probe_add(fd, s, 2, NULL) || s[0].result <= 0 || s[1].result <= 0) {
			fprintf(stderr, "probe: child: fd %d results %lld %lld\n", fd,
				(long long)s[0].result, (long long)s[1].result);
			_exit(1);
		}
		write(pipefd[1], "x", 1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);	/* a child that dies early ends the read */
	ck_assert_int_eq(read(pipefd[0], &c, 1), 1);
	/* kallsyms may name an alias (__do_sys_getppid): look for what is ours */
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, OUR_CALLBACK), 1);
	ck_assert_int_eq(vt_file_has(KPROBE_LIST, "getppid+0x"), 1);
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, OUR_CALLBACK), 0);
	ck_assert_int_eq(vt_file_has(KPROBE_LIST, "getppid+0x"), 0);
}
END_TEST

/* One probe of this file, as LIST shows it. */
static void probe_info(int fd, uint64_t id, struct kmem_ro_probe_info *out)
{
	struct kmem_ro_probe_info info[8];
	struct kmem_ro_probe_list l = { .size = sizeof(l), .buf_addr = (uintptr_t)info, .cap = 8 };

	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), 0);
	for (unsigned int i = 0; i < l.count && i < 8; i++)
		if (info[i].id == id) {
			*out = info[i];
			return;
		}
	ck_abort_msg("probe %llu not listed", (unsigned long long)id);
}

/* Each read of testobj's debugfs file runs testobj_show() once. */
static void read_testobj(int times)
{
	for (int i = 0; i < times; i++)
		vt_testobj("nodes");
}

#define GONE_OR_ON	(KMEM_RO_PROBE_GONE | KMEM_RO_PROBE_ENABLED)

START_TEST(module_unload_leaves_probes_gone)
{
	uint64_t show = vt_kallsyms("testobj_show"), hot = vt_kallsyms(HOT), ids[3], before;
	struct kmem_ro_probe_spec s[3];
	struct kmem_ro_probe_info info;
	int fd = vt_open_dev();

	ck_assert_uint_ne(show, 0);
	vt_probe_spec(&s[0], "testobj_show", show, 0, KMEM_RO_PROBE_ENABLED);
	vt_probe_spec(&s[1], "testobj_show", show, vt_after_fentry(show), KMEM_RO_PROBE_ENABLED);
	vt_probe_spec(&s[2], HOT, hot, 0, KMEM_RO_PROBE_ENABLED);
	ck_assert_int_eq(vt_probe_add(fd, s, 3, NULL), 0);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_gt(s[i].result, 0);
		ids[i] = s[i].result;
	}
	read_testobj(3);
	ck_assert_uint_eq(vt_probe_hits(fd, ids[0]), 3);
	ck_assert_uint_eq(vt_probe_hits(fd, ids[1]), 3);
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, "testobj_show"), 1);

	/* probes do not pin the module; they go with it, counts kept */
	ck_assert_int_eq(vt_module_unload("kmem_ro_testobj"), 0);
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, "testobj_show"), 0);
	for (int i = 0; i < 2; i++) {
		probe_info(fd, ids[i], &info);
		ck_assert_uint_eq(info.flags & GONE_OR_ON, KMEM_RO_PROBE_GONE);
		ck_assert_uint_eq(info.hits, 3);
	}
	probe_info(fd, ids[2], &info);
	ck_assert_uint_eq(info.flags & GONE_OR_ON, KMEM_RO_PROBE_ENABLED);

	/* bulk calls over gone probes work; ENABLE passes them by */
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, KMEM_RO_PROBE_ALL, NULL, 0,
				      NULL, NULL), 0);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DISABLE, 0, ids, 3, NULL, NULL), 0);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, ids, 3, NULL, NULL), 0);
	probe_info(fd, ids[0], &info);
	ck_assert_uint_eq(info.flags & GONE_OR_ON, KMEM_RO_PROBE_GONE);
	before = vt_probe_hits(fd, ids[2]);
	vt_call_getppid(10);
	ck_assert_uint_eq(vt_probe_hits(fd, ids[2]) - before, 10);
	vt_probe_spec(&s[0], "testobj_show", show, 0, 0);	/* nothing there now */
	ck_assert_int_eq(vt_probe_add(fd, s, 1, NULL), 0);
	ck_assert_int_eq(s[0].result, -ENOENT);

	/* the module back, maybe at the same address: gone stays gone */
	ck_assert_int_eq(vt_module_load(VMTEST_TESTOBJ_PATH, ""), 0);
	show = vt_kallsyms("testobj_show");
	read_testobj(2);
	ck_assert_uint_eq(vt_probe_hits(fd, ids[0]), 3);
	ck_assert_uint_eq(vt_probe_hits(fd, ids[1]), 3);
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, "testobj_show"), 0);
	/* and a new probe may go where a gone one was */
	vt_probe_spec(&s[0], "testobj_show", show, 0, KMEM_RO_PROBE_ENABLED);
	ck_assert_int_eq(vt_probe_add(fd, s, 1, NULL), 0);
	ck_assert_int_gt(s[0].result, 0);
	read_testobj(1);
	ck_assert_uint_eq(vt_probe_hits(fd, s[0].result), 1);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, KMEM_RO_PROBE_ALL, NULL, 0,
				      NULL, NULL), 0);
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, "testobj_show"), 0);
	ck_assert_int_eq(vt_file_has(KPROBE_LIST, "testobj_show"), 0);
	close(fd);
}
END_TEST

struct storm {
	int fd;
	uint64_t addr;
	int rounds, failures;
};

static void *storm_thread(void *arg)
{
	struct storm *st = arg;

	for (int i = 0; i < st->rounds; i++) {
		struct kmem_ro_probe_spec s[2];
		uint64_t ids[2];
		int n = 0;

		vt_probe_spec(&s[0], HOT, st->addr, 0, KMEM_RO_PROBE_ENABLED);
		vt_probe_spec(&s[1], HOT, st->addr, vt_after_fentry(st->addr), KMEM_RO_PROBE_ENABLED);
		if (vt_probe_add(st->fd, s, 2, NULL))
			st->failures++;
		for (int j = 0; j < 2; j++)
			if (s[j].result > 0)
				ids[n++] = s[j].result;
		vt_call_getppid(5);
		if (n && vt_probe_ids(st->fd, KMEM_RO_IOC_PROBE_DEL, 0, ids, n, NULL, NULL))
			st->failures++;
	}
	return NULL;
}

START_TEST(add_del_storm)
{
	struct storm st[4];
	pthread_t t[4];
	int shared = vt_open_dev();

	for (int i = 0; i < 4; i++) {
		/* two threads share an fd (EEXIST races), two have their own */
		st[i] = (struct storm){ i < 2 ? shared : vt_open_dev(), vt_kallsyms(HOT), 20, 0 };
		ck_assert_int_eq(pthread_create(&t[i], NULL, storm_thread, &st[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		ck_assert_int_eq(st[i].failures, 0);
		if (i >= 2)
			close(st[i].fd);
	}
	close(shared);
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, OUR_CALLBACK), 0);
	ck_assert_int_eq(vt_file_has(KPROBE_LIST, "getppid+0x"), 0);
}
END_TEST

/* ---- privileges and bad input ---- */

static int add_as_user(void *unused)
{
	struct kmem_ro_probe_spec s;
	struct kmem_ro_probe_list l = { .size = sizeof(l) };
	int fd = open(KMEM_RO_DEVICE, O_RDONLY);

	(void)unused;
	if (fd < 0)
		return 100;
	vt_probe_spec(&s, HOT, vt_kallsyms(HOT), 0, 0);
	if (vt_probe_add(fd, &s, 1, NULL) != -EPERM)
		return 101;
	return vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l) ? 102 : 0;	/* reading is fine */
}

START_TEST(unprivileged_add_is_eperm)
{
	ck_assert_int_eq(vt_run_as_monitor(add_as_user, NULL), 0);
}
END_TEST

START_TEST(bad_input)
{
	struct kmem_ro_probe_spec s;
	struct kmem_ro_probe_add a;
	uint64_t ids[1] = { 12345 }, counts[1];
	unsigned int done;
	int fd = vt_open_dev();

	vt_probe_spec(&s, HOT, vt_kallsyms(HOT), 0, 0);
#define ADD(errno_, stmt) do {							\
		a = (struct kmem_ro_probe_add){ .size = sizeof(a),		\
			.specs_addr = (uintptr_t)&s, .count = 1 };		\
		stmt;								\
		ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_ADD, &a), errno_); \
	} while (0)
	ADD(-EINVAL, a.flags = 1);
	ADD(-EINVAL, a.reserved[0] = 1);
	ADD(-EINVAL, a.count = 0);
	ADD(-EINVAL, a.specs_addr = 0);
	ADD(-E2BIG, a.count = KMEM_RO_PROBE_MAX_BATCH + 1);
	ADD(-EFAULT, a.specs_addr = 0x10);
	ADD(-EINVAL, a.size = KMEM_RO_PROBE_ADD_SIZE_VER0 - 8);
#undef ADD
	vt_probe_spec(&s, HOT, vt_kallsyms(HOT), 0, 4);			/* unknown spec flag */
	ck_assert_int_eq(vt_probe_add(fd, &s, 1, NULL), 0);
	ck_assert_int_eq(s.result, -EINVAL);
	memset(s.name, 'x', sizeof(s.name));			/* no NUL */
	ck_assert_int_eq(vt_probe_add(fd, &s, 1, NULL), 0);
	ck_assert_int_eq(s.result, -EINVAL);

	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, ids, 1, NULL, &done), -ENOENT);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, KMEM_RO_PROBE_ALL, ids, 1, NULL, NULL), -EINVAL);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, NULL, 0, NULL, NULL), -EINVAL);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, KMEM_RO_PROBE_RESET, ids, 1, NULL, NULL), -EINVAL);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, 0, ids, 1, NULL, NULL), -EINVAL);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, 0, ids, 1, counts, NULL), -EINVAL);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, 0, ids, KMEM_RO_PROBE_MAX_BATCH + 1, NULL, NULL), -E2BIG);

	/* LIST, with one probe to show */
	{
		struct kmem_ro_probe_info info[2];
		struct kmem_ro_probe_list l;

		vt_probe_spec(&s, HOT, vt_kallsyms(HOT), 0, 0);
		ck_assert_int_eq(vt_probe_add(fd, &s, 1, NULL), 0);
		ck_assert_int_gt(s.result, 0);
#define LIST(errno_, stmt) do {							\
		l = (struct kmem_ro_probe_list){ .size = sizeof(l),		\
			.buf_addr = (uintptr_t)info, .cap = 2 };		\
		stmt;								\
		ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), errno_); \
	} while (0)
		LIST(0, (void)0);
		ck_assert_uint_eq(l.count, 1);
		ck_assert_uint_eq(info[0].id, s.result);
		ck_assert_uint_eq(info[0].owner, getpid());
		LIST(-EINVAL, l.flags = 2);
		LIST(-EINVAL, l.reserved[1] = 1);
		LIST(-EINVAL, l.cap = 0);
		LIST(-EINVAL, l.buf_addr = 0);
		LIST(-EFAULT, l.buf_addr = 0x10);
		LIST(-EINVAL, l.size = KMEM_RO_PROBE_LIST_SIZE_VER0 - 8);
#undef LIST
	}
	close(fd);
}
END_TEST

/* ---- the rows of README's tables, one by one ---- */

#define PAGE	4096UL

/* Two pages, the second unmapped: returns the first. */
static char *page_then_hole(void)
{
	char *p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(munmap(p + PAGE, PAGE), 0);
	return p;
}

/* How many probes LIST shows for @fd; the first in *@first if any. */
static unsigned int list_count(int fd, struct kmem_ro_probe_info *first)
{
	struct kmem_ro_probe_info info[4];
	struct kmem_ro_probe_list l = { .size = sizeof(l), .buf_addr = (uintptr_t)info, .cap = 4 };

	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), 0);
	if (first && l.count)
		*first = info[0];
	return l.count;
}

/* PROBE_ADD, the call: its memory, and a batch of nothing. */
START_TEST(add_call_rules)
{
	static struct kmem_ro_probe_spec nulls[KMEM_RO_PROBE_MAX_BATCH];
	struct kmem_ro_probe_spec *spec, *ro;
	struct kmem_ro_probe_add *ro_arg;
	struct kmem_ro_probe_info info;
	uint64_t hot = vt_kallsyms(HOT);
	unsigned int added = 7;
	char *p = page_then_hole();
	int fd = vt_open_dev();

	/* 65536 specs at address 0: the call succeeds, each says -ENOENT */
	for (unsigned int i = 0; i < KMEM_RO_PROBE_MAX_BATCH; i++)
		vt_probe_spec(&nulls[i], "", 0, 0, 0);
	ck_assert_int_eq(vt_probe_add(fd, nulls, KMEM_RO_PROBE_MAX_BATCH, &added), 0);
	ck_assert_uint_eq(added, 0);
	for (unsigned int i = 0; i < KMEM_RO_PROBE_MAX_BATCH; i++)
		ck_assert_int_eq(nulls[i].result, -ENOENT);

	/* specs running into an unmapped page: nothing added */
	spec = (struct kmem_ro_probe_spec *)(p + PAGE) - 1;
	vt_probe_spec(spec, HOT, hot, 0, 0);
	ck_assert_int_eq(vt_probe_add(fd, spec, 2, NULL), -EFAULT);
	ck_assert_uint_eq(list_count(fd, NULL), 0);

	/* read-only specs: added, the result cannot be written: removed again */
	ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(ro, MAP_FAILED);
	vt_probe_spec(ro, HOT, hot, 0, 0);
	ck_assert_int_eq(mprotect(ro, PAGE, PROT_READ), 0);
	ck_assert_int_eq(vt_probe_add(fd, ro, 1, NULL), -EFAULT);
	ck_assert_uint_eq(list_count(fd, &info), 0);

	/* a read-only argument: added, @added cannot be written: removed again */
	vt_probe_spec(spec, HOT, hot, vt_after_fentry(hot), 0);
	ro_arg = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(ro_arg, MAP_FAILED);
	*ro_arg = (struct kmem_ro_probe_add){ .size = sizeof(*ro_arg), .specs_addr = (uintptr_t)spec,
					      .count = 1 };
	ck_assert_int_eq(mprotect(ro_arg, PAGE, PROT_READ), 0);
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_ADD, ro_arg), -EFAULT);
	ck_assert_int_gt(spec->result, 0);
	ck_assert_uint_eq(list_count(fd, NULL), 0);
	munmap(ro_arg, PAGE);
	munmap(ro, PAGE);
	munmap(p, PAGE);
	close(fd);
}
END_TEST

/* Without CAP_PERFMON/CAP_SYS_ADMIN: EPERM after the argument checks. */
static int unprivileged_rules(void *unused)
{
	struct kmem_ro_probe_spec s;
	struct kmem_ro_probe_add a = { .size = sizeof(a), .specs_addr = (uintptr_t)&s, .count = 1 };
	struct kmem_ro_probe_add *ro;
	uint64_t ids[1] = { 1 }, counts[1];
	int fd = open(KMEM_RO_DEVICE, O_RDONLY);

	(void)unused;
	if (fd < 0)
		return 100;
	vt_probe_spec(&s, HOT, vt_kallsyms(HOT), 0, 0);
	a.count = 0;
	if (vt_ioctl(fd, KMEM_RO_IOC_PROBE_ADD, &a) != -EINVAL)
		return 101;
	a.count = KMEM_RO_PROBE_MAX_BATCH + 1;
	if (vt_ioctl(fd, KMEM_RO_IOC_PROBE_ADD, &a) != -E2BIG)
		return 102;
	a.count = 1;
	if (vt_ioctl(fd, KMEM_RO_IOC_PROBE_ADD, &a) != -EPERM)
		return 103;
	/* a read-only argument: EPERM comes first, nothing to write back */
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED)
		return 107;
	*ro = a;
	if (mprotect(ro, 4096, PROT_READ) || vt_ioctl(fd, KMEM_RO_IOC_PROBE_ADD, ro) != -EPERM)
		return 108;
	munmap(ro, 4096);
	if (vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, ids, 1, NULL, NULL) != -EPERM ||
	    vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DISABLE, 0, ids, 1, NULL, NULL) != -EPERM ||
	    vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, KMEM_RO_PROBE_ALL, NULL, 0, NULL, NULL) != -EPERM)
		return 104;
	if (vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, ids, 0, NULL, NULL) != -EINVAL)
		return 105;
	/* DEL and STATS need only the fd: nothing here */
	if (vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, 0, ids, 1, NULL, NULL) != -ENOENT ||
	    vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, 0, ids, 1, counts, NULL) != -ENOENT ||
	    vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, KMEM_RO_PROBE_ALL, NULL, 0, NULL, NULL) ||
	    vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, KMEM_RO_PROBE_ALL, NULL, 0, counts, NULL))
		return 106;
	close(fd);
	return 0;
}

START_TEST(unprivileged_rules_order)
{
	ck_assert_int_eq(vt_run_as_monitor(unprivileged_rules, NULL), 0);
}
END_TEST

/* Size of the function at @addr as kallsyms makes it: up to the next symbol. */
static uint64_t kallsyms_size(uint64_t func)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	uint64_t addr, next = ~0ULL;
	char line[512], *name, *mod, type;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (vt_ksym_split(line, &addr, &type, &name, &mod) && !mod && addr > func &&
		    addr < next)
			next = addr;
	fclose(f);
	ck_assert_uint_ne(next, ~0ULL);
	return next - func;
}

/*
 * The __pfx_ symbol at @addr, into @name.  6.12 lists one for each alias
 * of the function after it; 7.3 one only (__pfx___ia32_sys_getppid, not
 * __pfx___x64_sys_getppid).
 */
static uint64_t pfx_symbol(uint64_t addr, char *name, size_t len)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], *sym, *mod, type;
	uint64_t a, found = 0;

	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f))
		if (vt_ksym_split(line, &a, &type, &sym, &mod) && a == addr &&
		    !strncmp(sym, "__pfx_", 6)) {
			snprintf(name, len, "%s", sym);
			found = a;
		}
	fclose(f);
	return found;
}

/* PROBE_ADD, one spec at a time. */
START_TEST(spec_rules)
{
	static const char *const syms[] = { HOT, "init_uts_ns", "kmem_ro_info_ioctl", OUR_CALLBACK };
	uint64_t addrs[4], hot, uts, own, cb, size;
	struct kmem_ro_probe_spec s;
	int fd = vt_open_dev();

	vt_kallsyms_many(syms, addrs, 4);
	hot = addrs[0];
	uts = addrs[1];
	own = addrs[2];
	cb = addrs[3];
	size = kallsyms_size(hot);

#define SPEC(want, name, addr, off) do {					\
		vt_probe_spec(&s, name, addr, off, 0);				\
		ck_assert_int_eq(vt_probe_add(fd, &s, 1, NULL), 0);		\
		ck_assert_msg((want) > 0 ? s.result > 0 : s.result == (want),	\
			      "%s+%#x: %lld, want %lld", name, (unsigned int)(off),	\
			      (long long)s.result, (long long)(want));		\
	} while (0)
	ck_assert(hot && uts && own && cb);
	SPEC(-ENOENT, "null", 0, 0);
	SPEC(-ENOENT, "user", 0x400000, 0);
	SPEC(-ENOENT, HOT, hot + 1, 0);				/* not a start */
	SPEC(-EINVAL, HOT, hot, size);				/* at the end */
	SPEC(-EINVAL, HOT, hot, size + 1);
	SPEC(-EOPNOTSUPP, "init_uts_ns", uts, 0);		/* data */
	SPEC(-EOPNOTSUPP, "init_uts_ns", uts, 8);
	SPEC(1, "kmem_ro_info_ioctl", own, 0);			/* kmem_ro's own */
	SPEC(1, "kmem_ro_info_ioctl", own, vt_after_fentry(own));
	SPEC(-EOPNOTSUPP, OUR_CALLBACK, cb, 0);			/* notrace */
	SPEC(1, HOT, hot, 0);
	SPEC(-EEXIST, HOT, hot, 0);				/* again, next call */
	SPEC(1, HOT, hot, vt_after_fentry(hot));
	SPEC(-EEXIST, HOT, hot, vt_after_fentry(hot));
	/*
	 * __pfx_ padding before each function: since 6.2, where CALL_PADDING
	 * is on (Debian's kernels; not the tinyconfig debug kernel).
	 */
	if (vt_file_has("/proc/kallsyms", " __pfx_")) {
		char pfx_name[256];
		uint64_t pfx = pfx_symbol(hot - 16, pfx_name, sizeof(pfx_name));

		ck_assert(vt_kernel_at_least(6, 2));
		ck_assert_uint_eq(pfx, hot - 16);
		SPEC(-EOPNOTSUPP, pfx_name, pfx, 0);
	}
#undef SPEC
	close(fd);
}
END_TEST

/* ENABLE, DISABLE, DEL and STATS: arguments, unknown ids, memory. */
START_TEST(ids_rules)
{
	struct kmem_ro_probe_spec s[2];
	struct kmem_ro_probe_info info;
	struct kmem_ro_probe_ids *ro_arg;
	uint64_t hot = vt_kallsyms(HOT), ids[3], counts[3], *ro_counts;
	unsigned int done;
	char *p = page_then_hole();
	int fd = vt_open_dev(), fresh = vt_open_dev();

	vt_probe_spec(&s[0], HOT, hot, 0, 0);
	vt_probe_spec(&s[1], HOT, hot, vt_after_fentry(hot), 0);
	ck_assert_int_eq(vt_probe_add(fd, s, 2, NULL), 0);
	ids[0] = s[0].result;
	ids[1] = s[1].result;
	ck_assert_uint_gt(ids[0], 0);
	ck_assert_uint_gt(ids[1], 0);

#define IDS(want, cmd, flags, ids_, n, counts_) \
	ck_assert_int_eq(vt_probe_ids(fd, cmd, flags, ids_, n, counts_, NULL), want)
	IDS(-EINVAL, KMEM_RO_IOC_PROBE_ENABLE, KMEM_RO_PROBE_ALL, NULL, 1, NULL);	/* ALL, count */
	IDS(-EINVAL, KMEM_RO_IOC_PROBE_ENABLE, 0, ids, 0, NULL);			/* no count */
	IDS(-EINVAL, KMEM_RO_IOC_PROBE_ENABLE, 0, NULL, 1, NULL);			/* no ids */
	IDS(-EINVAL, KMEM_RO_IOC_PROBE_DISABLE, KMEM_RO_PROBE_RESET, ids, 1, NULL);
	IDS(-EINVAL, KMEM_RO_IOC_PROBE_DEL, KMEM_RO_PROBE_RESET, ids, 1, NULL);
	IDS(-EINVAL, KMEM_RO_IOC_PROBE_DISABLE, 0, ids, 1, counts);		/* counts_addr */
	{
		struct kmem_ro_probe_ids a = { .size = sizeof(a), .ids_addr = (uintptr_t)ids,
					       .count = 1, .counts_cap = 1 };

		ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_ENABLE, &a), -EINVAL);
		a.flags = KMEM_RO_PROBE_ALL;
		a.ids_addr = 0;
		a.count = 0;
		ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_DEL, &a), -EINVAL);
	}
	IDS(-E2BIG, KMEM_RO_IOC_PROBE_ENABLE, 0, ids, KMEM_RO_PROBE_MAX_BATCH + 1, NULL);
	IDS(-EFAULT, KMEM_RO_IOC_PROBE_ENABLE, 0, (uint64_t *)(p + PAGE), 1, NULL);
	IDS(-EFAULT, KMEM_RO_IOC_PROBE_DEL, 0, (uint64_t *)(p + PAGE - 8), 2, NULL);
	/* a file that never added a probe: ENOENT before the ids are read */
	ck_assert_int_eq(vt_probe_ids(fresh, KMEM_RO_IOC_PROBE_ENABLE, 0, (uint64_t *)(p + PAGE), 1,
				      NULL, NULL), -ENOENT);

	/* unknown ids: the ones before are done, and counted; the call 0 */
	for (int k = 0; k < 3; k++) {
		static const uint64_t unknown[] = { 0, 1ULL << 31, UINT64_MAX };

		ids[2] = unknown[k];
		ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, &ids[1], 2, NULL, &done),
				 0);
		ck_assert_uint_eq(done, 1);
		ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DISABLE, 0, &ids[1], 2, NULL, &done),
				 0);
		ck_assert_uint_eq(done, 1);
		/* the first unknown: its errno */
		ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, &ids[2], 1, NULL, &done),
				 -ENOENT);
	}
	ids[2] = ids[1];
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_ENABLE, 0, &ids[1], 1, NULL, &done), 0);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, 0, &ids[1], 1, NULL, &done), 0);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_STATS, 0, ids, 2, counts, &done),
			 0);	/* deleted: stops there */
	ck_assert_uint_eq(done, 1);
	ck_assert_uint_eq(list_count(fd, &info), 1);
	ck_assert_uint_eq(info.id, ids[0]);

	/* STATS into read-only counts: EFAULT once a count is to be written */
	ro_counts = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(ro_counts, MAP_FAILED);
	IDS(-EFAULT, KMEM_RO_IOC_PROBE_STATS, 0, ids, 1, ro_counts);
	IDS(-EFAULT, KMEM_RO_IOC_PROBE_STATS, KMEM_RO_PROBE_ALL, NULL, 0, ro_counts);
	ck_assert_int_eq(vt_probe_ids(fresh, KMEM_RO_IOC_PROBE_STATS, KMEM_RO_PROBE_ALL, NULL, 0,
				      ro_counts, NULL), 0);

	/* a read-only argument: @done cannot be written, nothing is done */
	ro_arg = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(ro_arg, MAP_FAILED);
	*ro_arg = (struct kmem_ro_probe_ids){ .size = sizeof(*ro_arg), .ids_addr = (uintptr_t)ids,
					      .count = 1 };
	ck_assert_int_eq(mprotect(ro_arg, PAGE, PROT_READ), 0);
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_ENABLE, ro_arg), -EFAULT);
	ck_assert_uint_eq(list_count(fd, &info), 1);
	ck_assert_uint_eq(info.flags & KMEM_RO_PROBE_ENABLED, 0);
	vt_call_getppid(10);
	ck_assert_uint_eq(vt_probe_hits(fd, ids[0]), 0);
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_DEL, ro_arg), -EFAULT);
	ck_assert_uint_eq(list_count(fd, NULL), 1);
	ck_assert_int_eq(vt_probe_ids(fd, KMEM_RO_IOC_PROBE_DEL, 0, ids, 1, NULL, NULL), 0);
	/* nothing left: STATS of ALL writes no count, a read-only array is fine */
	IDS(0, KMEM_RO_IOC_PROBE_STATS, KMEM_RO_PROBE_ALL, NULL, 0, ro_counts);
#undef IDS
	munmap(ro_arg, PAGE);
	munmap(ro_counts, PAGE);
	munmap(p, PAGE);
	close(fresh);
	close(fd);
}
END_TEST

/* LIST: the buffer is written only when there is a probe to write. */
START_TEST(list_rules)
{
	struct kmem_ro_probe_list l = { .size = sizeof(l) };
	struct kmem_ro_probe_info *tight;
	struct kmem_ro_probe_spec s;
	char *p = page_then_hole();
	int fd = vt_open_dev();

	l.buf_addr = (uintptr_t)(p + PAGE);	/* unmapped */
	l.cap = 4;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), 0);
	ck_assert_uint_eq(l.count, 0);
	vt_probe_spec(&s, HOT, vt_kallsyms(HOT), 0, 0);
	ck_assert_int_eq(vt_probe_add(fd, &s, 1, NULL), 0);
	ck_assert_int_gt(s.result, 0);
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), -EFAULT);
	/* the largest cap, over exactly one entry before the hole */
	tight = (struct kmem_ro_probe_info *)(p + PAGE) - 1;
	l = (struct kmem_ro_probe_list){ .size = sizeof(l), .buf_addr = (uintptr_t)tight,
					 .cap = UINT32_MAX };
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), 0);
	ck_assert_uint_eq(l.count, 1);
	ck_assert_uint_eq(tight->id, s.result);
	munmap(p, PAGE);
	close(fd);
}
END_TEST

/*
 * Every function traced at once, the callback's own callees too
 * (__rcu_read_lock() on PREEMPT_RCU kernels): counts stay exact, nothing
 * recurses, closing takes it all away.
 */
START_TEST(enable_every_function)
{
	/*
	 * A debug kernel (KASAN, lockdep) with every function traced runs
	 * its handler's lockdep checks on every call: too slow to finish
	 * (docs/testing.md).  It enables one function in eight there, whose
	 * adds bulk_add_every_function() has checked already.
	 */
	unsigned int stride = getenv("VM_DEBUG_KERNEL") ? 8 : 1;
	struct kmem_ro_probe_spec *s = calloc(ALL_TEXT, sizeof(*s));
	struct kmem_ro_probe_list l = { .size = sizeof(l) };
	uint64_t hot = vt_kallsyms(HOT), hot_id = 0, rcu_id = 0;
	unsigned int n, added;
	time_t t0;
	int fd = vt_open_dev();

	n = every_function(s, KMEM_RO_PROBE_ENABLED, ALL_TEXT, stride);
	t0 = time(NULL);
	add_all(fd, s, n, &added);
	printf("probe: %u of %u vmlinux text symbols enabled in %lds\n", added, n,
	       (long)(time(NULL) - t0));
	for (unsigned int i = 0; i < n; i++) {
		if (s[i].addr == hot && s[i].result > 0)
			hot_id = s[i].result;
		if (!strcmp(s[i].name, "__rcu_read_lock") && s[i].result > 0)
			rcu_id = s[i].result;
	}
	ck_assert_uint_ne(hot_id, 0);
	/* both test kernels are PREEMPT_RCU (PREEMPT_DYNAMIC): a real function */
	ck_assert_uint_ne(rcu_id, 0);
	vt_call_getppid(CALLS);
	ck_assert_uint_eq(vt_probe_hits(fd, hot_id), CALLS);
	/* getppid() reads the pid under rcu_read_lock() */
	ck_assert_uint_ge(vt_probe_hits(fd, rcu_id), CALLS);
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, OUR_CALLBACK), 1);
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_PROBE_LIST, &l), 0);
	ck_assert_uint_eq(l.count, added);
	t0 = time(NULL);
	close(fd);
	printf("probe: closed in %lds\n", (long)(time(NULL) - t0));
	ck_assert_int_eq(vt_file_has(FTRACE_LIST, OUR_CALLBACK), 0);
	/*
	 * Each spec's result against tracefs, now that nothing is traced:
	 * with every function traced its passes over kallsyms and tracefs
	 * took several times as long.
	 */
	if (stride == 1)
		ck_assert_uint_eq(added, traceable_functions(s, n));
	free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("probe");
	TCase *tc = tcase_create("probes");

	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, exact_counts_both_backends);
	tcase_add_test(tc, per_entry_errors);
	tcase_add_test(tc, kprobe_in_function_running_into_unmapped);
	tcase_add_test(tc, owner_death_removes_everything);
	tcase_add_test(tc, add_del_storm);
	tcase_add_test(tc, module_unload_leaves_probes_gone);
	/* elsewhere enable_every_function() adds every function, and checks each */
	if (getenv("VM_DEBUG_KERNEL"))
		tcase_add_test(tc, bulk_add_every_function);
	tcase_add_test(tc, enable_every_function);
	suite_add_tcase(s, tc);

	tc = tcase_create("rules");
	tcase_add_test(tc, unprivileged_add_is_eperm);
	tcase_add_test(tc, bad_input);
	tcase_add_test(tc, add_call_rules);
	tcase_add_test(tc, unprivileged_rules_order);
	tcase_add_test(tc, spec_rules);
	tcase_add_test(tc, ids_rules);
	tcase_add_test(tc, list_rules);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
