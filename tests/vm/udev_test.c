// SPDX-License-Identifier: GPL-2.0
/*
 * The installed udev rule and sysusers.d entry, applied by Debian's own
 * systemd-sysusers and systemd-udevd (group "udev": the guest's / is a
 * Debian root with `make install` laid over it): /dev/kmem_ro ends up
 * root:kmem_ro 0440, a member of kmem_ro may open it and ask for the
 * layout, nobody else may, and no one may open it for writing.
 *
 * The tests run in order and build on each other, as a boot would:
 * sysusers makes the group, udevd starts, kmem_ro is reloaded so that
 * udevd sees its "add" event.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "vmtest.h"

#define GROUP		"kmem_ro"
#define RULE		"/usr/lib/udev/rules.d/60-kmem_ro.rules"
#define SYSUSERS_CONF	"/usr/lib/sysusers.d/kmem_ro.conf"
#define UDEVD		"/lib/systemd/systemd-udevd"
#define MEMBER		"kmon"		/* made with useradd --groups kmem_ro */
#define OUTSIDER	"kother"	/* made with useradd, no extra group */
#define SYS_GID_MAX	999		/* Debian's login.defs */

/* A user's credentials as login would set them, from the files. */
struct user {
	uid_t uid;
	gid_t gid;
	gid_t groups[32];
	int ngroups;
};

/* Run a command as root; fails the test, with its stderr, unless it exits 0. */
static void run(char *const argv[])
{
	static char out[4096], err[4096];
	int rc = vt_exec(0, 0, argv, out, sizeof(out), err, sizeof(err));

	ck_assert_msg(rc == 0, "%s %s: exit %d: %s", argv[0], argv[1] ?: "", rc, err);
}

#define RUN(...) run((char *[]){ __VA_ARGS__, NULL })

/* gid of @name in /etc/group (no NSS in a static binary); -1 if absent */
static long group_gid(const char *name)
{
	FILE *f = fopen("/etc/group", "re");
	struct group *g;
	long gid = -1;

	ck_assert_ptr_nonnull(f);
	while (gid < 0 && (g = fgetgrent(f)))
		if (!strcmp(g->gr_name, name))
			gid = g->gr_gid;
	fclose(f);
	return gid;
}

/*
 * @name's uid, gid and groups from /etc/passwd and /etc/group, as
 * initgroups() finds them; -1 if there is no such user.
 */
static int lookup_user(const char *name, struct user *u)
{
	FILE *f = fopen("/etc/passwd", "re");
	struct passwd *p;
	struct group *g;
	int found = -1;

	ck_assert_ptr_nonnull(f);
	while (found && (p = fgetpwent(f))) {
		if (!strcmp(p->pw_name, name)) {
			u->uid = p->pw_uid;
			u->gid = p->pw_gid;
			found = 0;
		}
	}
	fclose(f);
	if (found)
		return -1;
	u->ngroups = 0;
	u->groups[u->ngroups++] = u->gid;
	f = fopen("/etc/group", "re");
	ck_assert_ptr_nonnull(f);
	while ((g = fgetgrent(f)))
		for (char **m = g->gr_mem; *m; m++)
			if (!strcmp(*m, name) && u->ngroups < 32)
				u->groups[u->ngroups++] = g->gr_gid;
	fclose(f);
	return 0;
}

static bool in_groups(const struct user *u, gid_t gid)
{
	for (int i = 0; i < u->ngroups; i++)
		if (u->groups[i] == gid)
			return true;
	return false;
}

static gid_t kmem_ro_gid(void)
{
	long gid = group_gid(GROUP);

	ck_assert_msg(gid > 0, "no group " GROUP " in /etc/group");
	return gid;
}

/*
 * udev works asynchronously even after settle: give it up to 5 s to hand
 * the node to @gid, then return what the node looks like.
 */
static void node_stat(gid_t gid, struct stat *st)
{
	for (int i = 0; i < 50; i++) {
		ck_assert_int_eq(stat(KMEM_RO_DEVICE, st), 0);
		if (st->st_gid == gid && (st->st_mode & 07777) == 0440)
			return;
		usleep(100 * 1000);
	}
}

static void assert_node_is_udevs(void)
{
	gid_t gid = kmem_ro_gid();
	struct stat st;

	node_stat(gid, &st);
	ck_assert(S_ISCHR(st.st_mode));
	ck_assert_int_eq(major(st.st_rdev), 10);	/* MISC_MAJOR */
	ck_assert_int_eq(st.st_uid, 0);
	ck_assert_int_eq(st.st_gid, gid);
	ck_assert_int_eq(st.st_mode & 07777, 0440);
}

/* child: 0 if the device opens read-only and answers INFO, else an errno */
static int open_and_info(void *unused)
{
	struct kmem_ro_info info;
	int fd = open(KMEM_RO_DEVICE, O_RDONLY | O_CLOEXEC), err;

	(void)unused;
	if (fd < 0)
		return errno;
	err = vt_info(fd, &info, NULL, 0);
	close(fd);
	if (err)
		return -err;
	return info.abi_version == KMEM_RO_ABI_VERSION ? 0 : 255;
}

static int open_device(void *flags)
{
	return vt_open_errno(KMEM_RO_DEVICE, *(int *)flags);
}

/* proves a child could reach /dev at all, so EACCES is about our node */
static int open_dev_null(void *unused)
{
	(void)unused;
	return vt_open_errno("/dev/null", O_RDONLY);
}

static int run_as_user(const struct user *u, int (*fn)(void *), void *arg)
{
	return vt_run_as_groups(u->uid, u->gid, u->groups, u->ngroups, -1, fn, arg);
}

START_TEST(installed_where_udev_and_sysusers_look)
{
	ck_assert_int_eq(access(RULE, R_OK), 0);
	ck_assert_int_eq(access(SYSUSERS_CONF, R_OK), 0);
	ck_assert_int_eq(access(UDEVD, X_OK), 0);
}
END_TEST

START_TEST(sysusers_creates_a_system_group)
{
	long gid;

	ck_assert_int_eq(group_gid(GROUP), -1);		/* nothing made it before */
	RUN("systemd-sysusers");			/* every sysusers.d file, as at boot */
	gid = group_gid(GROUP);
	ck_assert_int_gt(gid, 0);
	ck_assert_int_le(gid, SYS_GID_MAX);
	RUN("systemd-sysusers");
	ck_assert_int_eq(group_gid(GROUP), gid);	/* idempotent */
}
END_TEST

START_TEST(udevd_gives_the_node_to_the_group_on_add)
{
	struct stat st;

	/* /init loaded kmem_ro before udevd ran: devtmpfs's root:root */
	ck_assert_int_eq(stat(KMEM_RO_DEVICE, &st), 0);
	ck_assert_int_eq(st.st_gid, 0);
	RUN(UDEVD, "--daemon");
	RUN("udevadm", "control", "--ping");
	ck_assert_int_eq(vt_module_unload("kmem_ro"), 0);
	ck_assert_int_eq(vt_module_load(VMTEST_MODULE_PATH, ""), 0);
	RUN("udevadm", "settle", "--timeout=120");
	assert_node_is_udevs();
}
END_TEST

/* MODE= must come from the rule too: the driver's own 0440 would hide it */
START_TEST(udevd_restores_owner_and_mode_on_change)
{
	ck_assert_int_eq(chown(KMEM_RO_DEVICE, NOBODY, 0), 0);
	ck_assert_int_eq(chmod(KMEM_RO_DEVICE, 0664), 0);
	RUN("udevadm", "trigger", "--action=change", "--subsystem-match=misc",
	    "--sysname-match=kmem_ro", "--settle");
	assert_node_is_udevs();
}
END_TEST

START_TEST(member_may_open_and_read_info)
{
	gid_t gid = kmem_ro_gid();
	struct user u;

	if (lookup_user(MEMBER, &u))
		RUN("useradd", "--no-create-home", "--groups", GROUP, MEMBER);
	ck_assert_int_eq(lookup_user(MEMBER, &u), 0);
	ck_assert_int_ne(u.uid, 0);
	ck_assert_int_ne(u.gid, gid);		/* a supplementary group only */
	ck_assert(in_groups(&u, gid));
	ck_assert_int_eq(run_as_user(&u, open_and_info, NULL), 0);
}
END_TEST

static const int write_modes[] = { O_WRONLY, O_RDWR };

START_TEST(member_may_not_open_for_writing)
{
	struct user u;

	ck_assert_int_eq(lookup_user(MEMBER, &u), 0);
	ck_assert_int_eq(run_as_user(&u, open_device, (void *)&write_modes[_i]), EACCES);
}
END_TEST

START_TEST(outsiders_get_eacces)
{
	int flags = O_RDONLY;
	struct user u;

	if (lookup_user(OUTSIDER, &u))
		RUN("useradd", "--no-create-home", OUTSIDER);
	ck_assert_int_eq(lookup_user(OUTSIDER, &u), 0);
	ck_assert_int_ne(u.uid, 0);
	ck_assert(!in_groups(&u, kmem_ro_gid()));
	ck_assert_int_eq(run_as_user(&u, open_dev_null, NULL), 0);
	ck_assert_int_eq(run_as_user(&u, open_device, &flags), EACCES);
	ck_assert_int_eq(run_as_user(&u, open_and_info, NULL), EACCES);
	ck_assert_int_eq(vt_run_as(NOBODY, NOBODY, -1, open_device, &flags), EACCES);
}
END_TEST

/* root passes the mode bits; the driver's write gate still says no */
START_TEST(root_may_read_but_not_write)
{
	ck_assert_int_eq(vt_open_errno(KMEM_RO_DEVICE, O_RDONLY), 0);
	ck_assert_int_eq(vt_open_errno(KMEM_RO_DEVICE, write_modes[_i]), EPERM);
}
END_TEST

START_TEST(udevd_exits)
{
	RUN("udevadm", "control", "--exit");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("udev");
	TCase *tc = tcase_create("udev");
	int nmodes = sizeof(write_modes) / sizeof(write_modes[0]);

	tcase_add_test(tc, installed_where_udev_and_sysusers_look);
	tcase_add_test(tc, sysusers_creates_a_system_group);
	tcase_add_test(tc, udevd_gives_the_node_to_the_group_on_add);
	tcase_add_test(tc, udevd_restores_owner_and_mode_on_change);
	tcase_add_test(tc, member_may_open_and_read_info);
	tcase_add_loop_test(tc, member_may_not_open_for_writing, 0, nmodes);
	tcase_add_test(tc, outsiders_get_eacces);
	tcase_add_loop_test(tc, root_may_read_but_not_write, 0, nmodes);
	tcase_add_test(tc, udevd_exits);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
