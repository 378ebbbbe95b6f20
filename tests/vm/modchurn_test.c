// SPDX-License-Identifier: GPL-2.0
/*
 * Module symbols while modules come and go (issue 33, bounded work): a
 * child unloads and loads kmem_ro_testobj without pause while
 * `kmemctl sym testobj_show`, `kmemctl modules --json` and a
 * /proc/kallsyms reader under the kcore preload run, each over and over,
 * as root and as a member of the device's group (uid 1000, the group as a
 * supplementary one, no capability; perf_event_paranoid=3 hides
 * /proc/kallsyms' addresses from it, so its symbols come from the
 * library's module walk, libkmemdev/modsyms.c).  Each command runs under
 * RLIMIT_AS (MEM_BOUND) and a generous hang bound (alarm(), HANG_BOUND):
 * it must exit, not be killed, and answer with
 *  - a consistent snapshot: testobj_show at the address of one of the
 *    loads the child made; the modules /proc/modules listed; testobj's
 *    kallsyms lines complete (root's names of a live testobj, in order)
 *    and its text symbols where that load put them;
 *  - or a clean error: exit status 1 and one short "kmemctl: " line
 *    (for the preload: the real file, addresses all zero).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "tooltest.h"

#define TESTOBJ		"kmem_ro_testobj"
#define TESTOBJ_TEXT	"/sys/module/" TESTOBJ "/sections/.text"
#define SHOW		"testobj_show"
#define READER		"/tests/kcore_reader"
#define PRELOAD		"/tests/libkmemdev-kcore.so"
#define KSYMS_OUT	"/tmp/modchurn_kallsyms.out"
#define MEMBER_UID	1000
/*
 * Rounds of the three commands per user while the child churns.  Each
 * round repeats the same checks at another moment of the churn: whether
 * an answer finds testobj loaded is chance (the summary line counts
 * both kinds), so fewer rounds see fewer of one kind on a kernel but
 * skip no check.  Three per user; five took 40% longer (22-51 s a kernel).
 */
#define ROUNDS		3
/* Address space of each command: the walk's budget is 256 MiB. */
#define MEM_BOUND	(1ULL << 30)
/* Seconds a command may take: far above any TCG run (a hang bound). */
#define HANG_BOUND	900
#define LOADS_MAX	4096
#define REF_MAX		256

/* What the churning child did, shared with the test. */
struct churn {
	atomic_int stop;
	atomic_int loads;
	uint64_t text[LOADS_MAX];	/* testobj's .text of each load */
	int failed;			/* an unload or load that failed */
};

static struct churn *ch;

/* testobj's lines in root's /proc/kallsyms: names, and text offsets from SHOW. */
static struct {
	char name[REF_MAX][128];
	int64_t off[REF_MAX];		/* from SHOW; INT64_MIN: not text */
	int n;
	uint64_t show_off;		/* SHOW - .text */
	uint64_t text0;			/* .text of the load before the churn */
} ref;

static struct proc_module known[64];
static int nknown;

static uint64_t read_text_base(void)
{
	unsigned long long a = 0;
	FILE *f = fopen(TESTOBJ_TEXT, "re");

	if (!f)
		return 0;
	if (fscanf(f, "%llx", &a) != 1)
		a = 0;
	fclose(f);
	return a;
}

static bool is_text(char t)
{
	return t == 't' || t == 'T';
}

/* "ADDR T NAME\t[MOD]": 0, or -1 if the line is not one. */
static int split_line(char *line, uint64_t *addr, char *type, char **name, char **mod)
{
	char *tab;

	if (strlen(line) < 20 || line[16] != ' ' || line[18] != ' ')
		return -1;
	*addr = strtoull(line, NULL, 16);
	*type = line[17];
	*name = line + 19;
	tab = strchr(*name, '\t');
	*mod = NULL;
	if (tab) {
		*tab = '\0';
		*mod = tab + 1;
	}
	return 0;
}

/* A whole file that has no size (procfs), NUL-terminated (free()). */
static char *read_all(const char *path)
{
	size_t len = 0, cap = 1 << 20;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	ck_assert_msg(fd >= 0 && buf, "%s", path);
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 65536) {
			cap *= 2;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
	}
	ck_assert_int_eq(n, 0);
	close(fd);
	buf[len] = '\0';
	return buf;
}

static void reference(void)
{
	char *text = read_all("/proc/kallsyms"), *line, *save = NULL;
	uint64_t show = 0, base = read_text_base();

	ck_assert_uint_ne(base, 0);
	ref.text0 = base;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t addr;
		char type, *name, *mod;

		/*
		 * Its module_get_kallsym() lines, one run; ftrace lists freed
		 * init functions under it later (docs/symbols.md).
		 */
		if (split_line(line, &addr, &type, &name, &mod) || !mod ||
		    strcmp(mod, "[" TESTOBJ "]")) {
			if (ref.n)
				break;
			continue;
		}
		ck_assert_int_lt(ref.n, REF_MAX);
		snprintf(ref.name[ref.n], sizeof(ref.name[0]), "%s", name);
		ref.off[ref.n] = is_text(type) ? (int64_t)addr : INT64_MIN;
		if (!strcmp(name, SHOW))
			show = addr;
		ref.n++;
	}
	free(text);
	ck_assert_int_gt(ref.n, 10);
	ck_assert_uint_ne(show, 0);
	for (int i = 0; i < ref.n; i++)
		if (ref.off[i] != INT64_MIN)
			ref.off[i] -= (int64_t)show;
	ref.show_off = show - base;
	nknown = proc_modules(known, 64);
	ck_assert_int_ge(nknown, 2);
}

/* Unload and load testobj until told to stop; it ends loaded. */
static void churn_main(void)
{
	while (!atomic_load(&ch->stop)) {
		int err, tries = 0, n;

		do {
			err = vt_module_unload(TESTOBJ);
			if (err == -EWOULDBLOCK)
				usleep(1000);
		} while (err == -EWOULDBLOCK && ++tries < 5000);
		if (err)
			ch->failed = err;
		err = vt_module_load(VMTEST_TESTOBJ_PATH, "");
		if (err) {
			ch->failed = err;
			break;
		}
		n = atomic_load(&ch->loads);
		if (n < LOADS_MAX) {
			ch->text[n] = read_text_base();
			atomic_store(&ch->loads, n + 1);
		}
		/*
		 * Every other load stays up to 0.2 s (loading takes about as
		 * long under TCG): readers find it too, not only its absence.
		 */
		if (n % 2)
			usleep((unsigned int)(n * 7919 % 200000));
	}
	_exit(ch->failed ? 1 : 0);
}

/* Whether @show is testobj_show in one of the loads. */
static bool a_load_had(uint64_t show)
{
	int n = atomic_load(&ch->loads);

	if (show - ref.show_off == ref.text0 || show - ref.show_off == read_text_base())
		return true;
	for (int i = 0; i < n; i++)
		if (ch->text[i] + ref.show_off == show)
			return true;
	return false;
}

static bool is_known(const char *name)
{
	if (!strcmp(name, TESTOBJ))
		return true;
	for (int i = 0; i < nknown; i++)
		if (!strcmp(known[i].name, name))
			return true;
	return false;
}

struct tally {
	int ok, clean_err, testobj;	/* testobj_show found */
};

static struct tally t_sym, t_modules, t_kallsyms;
static const char *current_user = "root";
/* Each command's answers, checked once the churn stopped. */
static uint64_t sym_seen[64];
static int nsym_seen;

/*
 * @argv as @uid (uid 1000: the member, with MONITOR_GID) under the bounds,
 * stdout and stderr into out and err; LD_PRELOAD=PRELOAD if @preload.
 * Returns the wait status.
 */
static int run_bounded(uid_t uid, bool preload, char *const argv[])
{
	static const gid_t groups[] = { MONITOR_GID };
	FILE *fout = tmpfile(), *ferr = tmpfile();
	int status;
	pid_t pid;
	size_t n;

	ck_assert(fout && ferr);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rlimit as = { MEM_BOUND, MEM_BOUND };

		if (setrlimit(RLIMIT_AS, &as))
			_exit(101);
		alarm(HANG_BOUND);	/* kept across execve() */
		if (uid && (setgroups(1, groups) || setgid(uid) || setuid(uid)))
			_exit(100);
		if (preload)
			setenv("LD_PRELOAD", PRELOAD, 1);
		dup2(fileno(fout), STDOUT_FILENO);
		dup2(fileno(ferr), STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	rewind(fout);
	n = fread(out, 1, sizeof(out) - 1, fout);
	out[n] = '\0';
	rewind(ferr);
	n = fread(err, 1, sizeof(err) - 1, ferr);
	err[n] = '\0';
	fclose(fout);
	fclose(ferr);
	ck_assert_msg(WIFEXITED(status), "%s as uid %d: killed by signal %d "
		      "(SIGALRM: over %d s; SIGSEGV/SIGABRT: out of %llu MiB?)",
		      argv[1] ? argv[1] : argv[0], (int)uid,
		      WIFSIGNALED(status) ? WTERMSIG(status) : -1, HANG_BOUND,
		      MEM_BOUND >> 20);
	return WEXITSTATUS(status);
}

/* A clean error: status 1, one short kmemctl line. */
static void clean_error(const char *what, int rc, struct tally *t)
{
	ck_assert_msg(rc == 1 && one_short_line(err), "%s: exit %d: %s", what, rc, err);
	printf("modchurn: %s as %s: %s", what, current_user, err);
	t->clean_err++;
}

static void sym_round(uid_t uid)
{
	char *argv[] = { "kmemctl", "sym", SHOW, NULL };
	unsigned long long addr;
	char type, mod[64];
	int rc = run_bounded(uid, false, argv);

	if (rc) {
		clean_error("sym", rc, &t_sym);
		return;
	}
	ck_assert_msg(sscanf(out, "0x%llx %c " SHOW " [%63[^]]]", &addr, &type, mod) == 3 &&
		      !strcmp(mod, TESTOBJ) && is_text(type), "sym: %s", out);
	if (nsym_seen < 64)
		sym_seen[nsym_seen++] = addr;
	t_sym.ok++;
	t_sym.testobj++;
}

static void modules_round(uid_t uid)
{
	char *argv[] = { "kmemctl", "modules", "--json", NULL };
	char name[64];
	const char *p;
	int rc = run_bounded(uid, false, argv), n = 0;

	if (rc) {
		clean_error("modules", rc, &t_modules);
		return;
	}
	ck_assert_msg(json_valid(out, false), "modules: %s", out);
	for (p = strstr(out, "{\"name\":"); p; p = strstr(p + 1, "{\"name\":")) {
		ck_assert_int_eq(json_str_of(p, "name", name, sizeof(name)), 0);
		ck_assert_msg(is_known(name), "modules: a module no one loaded: %s", name);
		n++;
	}
	ck_assert_int_ge(n, nknown - 1);	/* all but testobj, maybe */
	t_modules.ok++;
}

/*
 * testobj's lines of a served /proc/kallsyms: none (it was unloaded), or
 * root's names of the live module in order (a module still in its init
 * lists its init symbols too: root's are a subsequence), each text
 * symbol at its offset from SHOW, SHOW where a load put it.
 */
static void check_testobj_lines(char **names, uint64_t *addrs, char *types, int n)
{
	uint64_t show = 0;
	int k = 0;

	if (!n)
		return;
	t_kallsyms.testobj++;
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], SHOW))
			show = addrs[i];
	ck_assert_msg(show, "kallsyms: testobj listed without " SHOW);
	for (int i = 0; i < n && k < ref.n; i++) {
		if (strcmp(names[i], ref.name[k]))
			continue;
		if (ref.off[k] != INT64_MIN)
			ck_assert_msg(is_text(types[i]) &&
				      addrs[i] - show == (uint64_t)ref.off[k],
				      "kallsyms: %s at %#jx, " SHOW " at %#jx", names[i],
				      (uintmax_t)addrs[i], (uintmax_t)show);
		k++;
	}
	ck_assert_msg(k == ref.n, "kallsyms: testobj's lines torn: %d of root's %d", k, ref.n);
	if (nsym_seen < 64)
		sym_seen[nsym_seen++] = show;
}

static void kallsyms_round(uid_t uid)
{
	char *argv[] = { READER, "--cat", "open", "/proc/kallsyms", KSYMS_OUT, NULL };
	static char *names[REF_MAX * 2];
	static uint64_t addrs[REF_MAX * 2];
	static char types[REF_MAX * 2];
	char *text, *line, *save = NULL;
	int rc, n = 0, lines = 0, zeros = 0;
	bool served;

	unlink(KSYMS_OUT);
	ck_assert_int_eq(close(open(KSYMS_OUT, O_CREAT | O_WRONLY | O_CLOEXEC, 0666)), 0);
	ck_assert_int_eq(chmod(KSYMS_OUT, 0666), 0);
	rc = run_bounded(uid, true, argv);
	ck_assert_msg(rc == 0, "kallsyms: exit %d: %s", rc, err);
	text = vt_slurp(KSYMS_OUT, NULL);
	line = strtok_r(text, "\n", &save);
	ck_assert_ptr_nonnull(line);
	served = !strcmp(line, "# other");
	ck_assert_msg(served || !strcmp(line, "# procfs"), "%s", line);
	for (line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t addr;
		char type, *name, *mod;

		ck_assert_msg(!split_line(line, &addr, &type, &name, &mod), "kallsyms: %s", line);
		lines++;
		zeros += !addr;
		if (mod && !strcmp(mod, "[" TESTOBJ "]")) {
			ck_assert_int_lt(n, REF_MAX * 2);
			names[n] = name;
			addrs[n] = addr;
			types[n] = type;
			n++;
		}
	}
	ck_assert_int_gt(lines, 10000);
	if (uid && !served) {
		/* the walk failed: the member keeps the real file, all zeros */
		ck_assert_int_eq(zeros, lines);
		printf("modchurn: kallsyms: the real file (zeros)\n");
		t_kallsyms.clean_err++;
	} else {
		ck_assert_msg(!uid || served, "kallsyms: not served to the member");
		ck_assert_msg(uid || !served, "kallsyms: root's file replaced");
		/* root's is the kernel's own file (read in chunks, not ours to judge) */
		if (served)
			check_testobj_lines(names, addrs, types, n);
		t_kallsyms.ok++;
	}
	free(text);
}

static void setup(void)
{
	vt_write_file("/proc/sys/kernel/perf_event_paranoid", "3");
	vt_write_file("/proc/sys/kernel/kptr_restrict", "0");
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, MONITOR_GID), 0);
	ck_assert_int_eq(chmod(KMEM_RO_DEVICE, 0440), 0);
}

static void teardown(void)
{
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, 0, 0), 0);
}

START_TEST(readers_under_module_churn)
{
	static const uid_t users[] = { 0, MEMBER_UID };
	pid_t churner;
	int status, loads;

	if (vt_module_refcnt(TESTOBJ) < 0)
		ck_assert_int_eq(vt_module_load(VMTEST_TESTOBJ_PATH, ""), 0);
	reference();
	ch = mmap(NULL, sizeof(*ch), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(ch, MAP_FAILED);
	memset(ch, 0, sizeof(*ch));
	churner = fork();
	ck_assert_int_ge(churner, 0);
	if (churner == 0)
		churn_main();

	for (int r = 0; r < ROUNDS; r++) {
		for (size_t u = 0; u < sizeof(users) / sizeof(users[0]); u++) {
			current_user = users[u] ? "the member" : "root";
			sym_round(users[u]);
			modules_round(users[u]);
			kallsyms_round(users[u]);
		}
	}
	atomic_store(&ch->stop, 1);
	ck_assert_int_eq(waitpid(churner, &status, 0), churner);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status),
		      "churn: an unload or load failed: %d", ch->failed);
	loads = atomic_load(&ch->loads);
	printf("modchurn: %d loads; answers, clean errors: sym %d (testobj's) %d; "
	       "modules %d %d; kallsyms %d (served with testobj: %d) %d\n", loads,
	       t_sym.ok, t_sym.clean_err, t_modules.ok, t_modules.clean_err,
	       t_kallsyms.ok, t_kallsyms.testobj, t_kallsyms.clean_err);
	ck_assert_int_ge(loads, 2);
	for (int i = 0; i < nsym_seen; i++)
		ck_assert_msg(a_load_had(sym_seen[i]), SHOW " at %#jx: in no load",
			      (uintmax_t)sym_seen[i]);
	/* the churn ends loaded; the module's refcount is back to 0 */
	ck_assert_int_eq(vt_module_refcnt(TESTOBJ), 0);
	munmap(ch, sizeof(*ch));
}
END_TEST

static Suite *modchurn_suite(void)
{
	Suite *s = suite_create("modchurn");
	TCase *tc = tcase_create("churn");

	tcase_add_checked_fixture(tc, setup, teardown);
	/* scaled by the harness; the commands' own bound is HANG_BOUND */
	tcase_set_timeout(tc, 3 * HANG_BOUND);
	tcase_add_test(tc, readers_under_module_churn);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(modchurn_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
