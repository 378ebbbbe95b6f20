// SPDX-License-Identifier: GPL-2.0
/*
 * Structs that can grow: an ioctl is known by magic, number and direction,
 * whatever size its command encodes from VER0 on, and the struct's own
 * size field decides.  Each ioctl is called with commands that encode its
 * VER0 size, the current size and the current size + 8, with a struct of
 * that size: a zero tail works exactly like the plain command, a non-zero
 * tail is E2BIG.  A caller built against the frozen first-published header
 * keeps working.  Built for x86-64 and, as ioctl_abi_test32, for i386
 * (compat_ptr_ioctl).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vmtest.h"
#include "ioctl_abi_v0.h"

#define IOC_SIZE_BITS	((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT)

static struct kmem_ro_field walk_field;
static struct kmem_ro_iov readv_iov;
static uint64_t out[512];
static char page[4096] __attribute__((aligned(4096)));

/* A valid argument for @cmd, in @arg (zeroed, 4 KiB); its size field unset. */
static void valid_arg(unsigned long cmd, void *arg)
{
	memset(arg, 0, 4096);
	switch (cmd) {
	case KMEM_RO_IOC_READV: {
		struct kmem_ro_readv *rv = arg;

		readv_iov = (struct kmem_ro_iov){ .addr = vt_kallsyms("linux_banner"),
						  .len = 16, .buf = (uintptr_t)out };
		rv->iov_addr = (uintptr_t)&readv_iov;
		rv->iov_count = 1;
		break;
	}
	case KMEM_RO_IOC_WALK: {
		struct kmem_ro_walk *w = arg;

		walk_field = (struct kmem_ro_field){ vt_testobj("id_offset"), 4 };
		w->head = vt_testobj("good_head");
		w->link_offset = vt_testobj("link_offset");
		w->fields_addr = (uintptr_t)&walk_field;
		w->fields_count = 1;
		w->buf_addr = (uintptr_t)out;
		w->buf_size = sizeof(out);
		break;
	}
	case KMEM_RO_IOC_PAGEMAP: {
		struct kmem_ro_pagemap *pm = arg;

		page[0] = 1;
		pm->start = (uintptr_t)page;
		pm->end = (uintptr_t)page + sizeof(page);
		pm->buf_addr = (uintptr_t)out;
		pm->buf_size = sizeof(out);
		break;
	}
	case KMEM_RO_IOC_PROBE_STATS:
		((struct kmem_ro_probe_ids *)arg)->counts_addr = (uintptr_t)out;
		((struct kmem_ro_probe_ids *)arg)->counts_cap = 16;
		/* fall through */
	case KMEM_RO_IOC_PROBE_ENABLE:
	case KMEM_RO_IOC_PROBE_DISABLE:
	case KMEM_RO_IOC_PROBE_DEL:
		((struct kmem_ro_probe_ids *)arg)->flags = KMEM_RO_PROBE_ALL;
		break;
	case KMEM_RO_IOC_EVENTS_SNAPSHOT:
		((struct kmem_ro_events_snapshot *)arg)->flags = KMEM_RO_EVENTS_SNAPSHOT_STOP;
		break;
	}
}

static const struct {
	unsigned long cmd;
	unsigned int ver0_size, size;
	const char *name;
} ioctls[] = {
#define IOCTL(cmd, ver0, type) { cmd, ver0, sizeof(type), #cmd }
	IOCTL(KMEM_RO_IOC_INFO, KMEM_RO_INFO_SIZE_VER0, struct kmem_ro_info),
	IOCTL(KMEM_RO_IOC_READV, KMEM_RO_READV_SIZE_VER0, struct kmem_ro_readv),
	IOCTL(KMEM_RO_IOC_WALK, KMEM_RO_WALK_SIZE_VER0, struct kmem_ro_walk),
	IOCTL(KMEM_RO_IOC_PAGEMAP, KMEM_RO_PAGEMAP_SIZE_VER0, struct kmem_ro_pagemap),
	IOCTL(KMEM_RO_IOC_PROBE_ADD, KMEM_RO_PROBE_ADD_SIZE_VER0, struct kmem_ro_probe_add),
	IOCTL(KMEM_RO_IOC_PROBE_ENABLE, KMEM_RO_PROBE_IDS_SIZE_VER0, struct kmem_ro_probe_ids),
	IOCTL(KMEM_RO_IOC_PROBE_DISABLE, KMEM_RO_PROBE_IDS_SIZE_VER0, struct kmem_ro_probe_ids),
	IOCTL(KMEM_RO_IOC_PROBE_DEL, KMEM_RO_PROBE_IDS_SIZE_VER0, struct kmem_ro_probe_ids),
	IOCTL(KMEM_RO_IOC_PROBE_STATS, KMEM_RO_PROBE_IDS_SIZE_VER0, struct kmem_ro_probe_ids),
	IOCTL(KMEM_RO_IOC_PROBE_LIST, KMEM_RO_PROBE_LIST_SIZE_VER0, struct kmem_ro_probe_list),
	IOCTL(KMEM_RO_IOC_PROBE_FILTER, KMEM_RO_PROBE_FILTER_SIZE_VER0, struct kmem_ro_probe_filter),
	IOCTL(KMEM_RO_IOC_EVENTS_SNAPSHOT, KMEM_RO_EVENTS_SNAPSHOT_SIZE_VER0,
	      struct kmem_ro_events_snapshot),
#undef IOCTL
};
#define NIOCTLS	(sizeof(ioctls) / sizeof(ioctls[0]))

/* @cmd re-encoded with @size; the struct's size field set to match. */
static int call_sized(int fd, unsigned long cmd, unsigned int size, void *arg)
{
	*(uint64_t *)arg = size;
	return vt_ioctl(fd, (cmd & ~IOC_SIZE_BITS) | ((unsigned long)size << _IOC_SIZESHIFT), arg);
}

START_TEST(every_encoded_size_from_ver0)
{
	static char arg[4096] __attribute__((aligned(8)));
	int fd = vt_open_dev();

	for (unsigned int i = 0; i < NIOCTLS; i++) {
		unsigned int sizes[] = { ioctls[i].ver0_size, ioctls[i].size, ioctls[i].size + 8 };
		int plain;

		valid_arg(ioctls[i].cmd, arg);
		*(uint64_t *)arg = ioctls[i].size;
		plain = vt_ioctl(fd, ioctls[i].cmd, arg);
		/* PROBE_ADD of nothing and SNAPSHOT stop when none run: their own errnos */
		if (ioctls[i].cmd != KMEM_RO_IOC_PROBE_ADD &&
		    ioctls[i].cmd != KMEM_RO_IOC_EVENTS_SNAPSHOT)
			ck_assert_msg(plain == 0, "%s: %s", ioctls[i].name, strerror(-plain));
		for (unsigned int s = 0; s < 3; s++) {
			int err;

			valid_arg(ioctls[i].cmd, arg);
			err = call_sized(fd, ioctls[i].cmd, sizes[s], arg);
			ck_assert_msg(err == plain, "%s encoded with size %u: %s, plain: %s",
				      ioctls[i].name, sizes[s], strerror(-err), strerror(-plain));
		}
		valid_arg(ioctls[i].cmd, arg);
		arg[ioctls[i].size + 7] = 1;	/* a field this driver does not know */
		ck_assert_msg(call_sized(fd, ioctls[i].cmd, ioctls[i].size + 8, arg) == -E2BIG,
			      "%s: non-zero tail", ioctls[i].name);
	}
	close(fd);
}
END_TEST

/* Below VER0, another direction or another magic: not ours. */
START_TEST(other_encodings_are_enotty)
{
	static char arg[4096] __attribute__((aligned(8)));
	int fd = vt_open_dev();

	for (unsigned int i = 0; i < NIOCTLS; i++) {
		unsigned long cmd = ioctls[i].cmd;

		valid_arg(cmd, arg);
		ck_assert_int_eq(call_sized(fd, cmd, ioctls[i].ver0_size - 8, arg), -ENOTTY);
		ck_assert_int_eq(vt_ioctl(fd, _IOC(_IOC_READ, _IOC_TYPE(cmd), _IOC_NR(cmd),
						    _IOC_SIZE(cmd)), arg), -ENOTTY);
		ck_assert_int_eq(vt_ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, 0xB7, _IOC_NR(cmd),
						    _IOC_SIZE(cmd)), arg), -ENOTTY);
	}
	close(fd);
}
END_TEST

START_TEST(frozen_ver0_header_works)
{
	uint64_t page_offset;
	int64_t result;
	uint32_t count = 7;
	char buf[16], kc[16];
	int fd = vt_open_dev();

	ck_assert_int_eq(v0_info(fd, &page_offset), 0);
	ck_assert_uint_ne(page_offset, 0);
	ck_assert_int_eq(v0_readv(fd, vt_kallsyms("linux_banner"), buf, sizeof(buf), &result), 0);
	ck_assert_int_eq(result, sizeof(buf));
	ck_assert_int_eq(vt_kcore_read(vt_kallsyms("linux_banner"), kc, sizeof(kc)), 0);
	ck_assert_int_eq(memcmp(buf, kc, sizeof(buf)), 0);
	ck_assert_int_eq(v0_probe_list(fd, &count), 0);
	ck_assert_uint_eq(count, 0);
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ioctl_abi");
	TCase *tc = tcase_create("ioctl_abi");

	tcase_add_test(tc, every_encoded_size_from_ver0);
	tcase_add_test(tc, other_encodings_are_enotty);
	tcase_add_test(tc, frozen_ver0_header_works);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
