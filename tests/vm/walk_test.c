// SPDX-License-Identifier: GPL-2.0
/*
 * KMEM_RO_IOC_WALK over the lists of kmem_ro_testobj.ko: a good list comes
 * back whole and in order, limits stop it resumably, loops and corrupt
 * pointers end it with a status, and bad arguments get their errnos.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vmtest.h"

struct rec {			/* NODE_ADDR, id, name */
	uint64_t node;
	uint32_t id;
	char name[12];
} __attribute__((packed));

static struct kmem_ro_field fields[2];

static void walk_init(struct kmem_ro_walk *w, const char *head, void *buf, size_t size)
{
	fields[0] = (struct kmem_ro_field){ vt_testobj("id_offset"), 4 };
	fields[1] = (struct kmem_ro_field){ vt_testobj("name_offset"), 12 };
	*w = (struct kmem_ro_walk){
		.size = sizeof(*w), .flags = KMEM_RO_WALK_NODE_ADDR,
		.head = vt_testobj(head), .link_offset = vt_testobj("link_offset"),
		.fields_addr = (uintptr_t)fields, .fields_count = 2,
		.buf_addr = (uintptr_t)buf, .buf_size = size,
	};
}

static void assert_records(const struct rec *r, unsigned int n, unsigned int first_id)
{
	char name[16];

	for (unsigned int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "node-%u", first_id + i);
		ck_assert_uint_eq(r[i].id, first_id + i);
		ck_assert_str_eq(r[i].name, name);
		ck_assert_uint_ge(r[i].node, 0xff00000000000000ULL);
	}
}

START_TEST(good_list_whole_and_in_order)
{
	static struct rec r[1100];
	struct kmem_ro_walk w;
	int fd = vt_open_dev();

	walk_init(&w, "good_head", r, sizeof(r));
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_WALK, &w), 0);
	ck_assert_uint_eq(w.status, KMEM_RO_WALK_DONE);
	ck_assert_uint_eq(w.nodes, vt_testobj("nodes"));
	assert_records(r, w.nodes, 0);
	close(fd);
}
END_TEST

START_TEST(max_nodes_then_resume)
{
	static struct rec r[1100];
	struct kmem_ro_walk w;
	unsigned int first;
	int fd = vt_open_dev();

	walk_init(&w, "good_head", r, sizeof(r));
	w.max_nodes = 10;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_WALK, &w), 0);
	ck_assert_uint_eq(w.status, KMEM_RO_WALK_MAX_REACHED);
	ck_assert_uint_eq(w.nodes, 10);
	assert_records(r, 10, 0);
	first = w.nodes;
	w.start = w.next;
	w.max_nodes = 0;
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_WALK, &w), 0);
	ck_assert_uint_eq(w.status, KMEM_RO_WALK_DONE);
	ck_assert_uint_eq(first + w.nodes, vt_testobj("nodes"));
	assert_records(r, w.nodes, first);
	close(fd);
}
END_TEST

START_TEST(small_buffer_is_buf_full)
{
	static struct rec r[7];
	struct kmem_ro_walk w;
	int fd = vt_open_dev();

	walk_init(&w, "good_head", r, sizeof(r) + sizeof(r[0]) - 1);
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_WALK, &w), 0);
	ck_assert_uint_eq(w.status, KMEM_RO_WALK_BUF_FULL);
	ck_assert_uint_eq(w.nodes, 7);
	assert_records(r, 7, 0);
	close(fd);
}
END_TEST

START_TEST(loop_is_detected)
{
	static struct rec r[100];
	struct kmem_ro_walk w;
	int fd = vt_open_dev();

	walk_init(&w, "loop_head", r, sizeof(r));
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_WALK, &w), 0);
	ck_assert_uint_eq(w.status, KMEM_RO_WALK_LOOP);
	ck_assert_uint_ge(w.nodes, 3);
	ck_assert_uint_le(w.nodes, 8);
	ck_assert_uint_eq(r[0].id, 0);
	ck_assert_uint_eq(r[1].id, 1);
	ck_assert_uint_eq(r[2].id, 2);
	close(fd);
}
END_TEST

START_TEST(corrupt_pointer_is_fault)
{
	static struct rec r[100];
	struct kmem_ro_walk w;
	int fd = vt_open_dev();

	walk_init(&w, "corrupt_head", r, sizeof(r));
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_WALK, &w), 0);
	ck_assert_uint_eq(w.status, KMEM_RO_WALK_FAULT);
	ck_assert_uint_eq(w.nodes, 2);
	ck_assert_int_eq(w.fault_errno, -EINVAL);	/* non-canonical: never touched */
	ck_assert_uint_eq(w.fault_addr, 0xdead000000000100ULL - w.link_offset + fields[0].offset);
	close(fd);
}
END_TEST

/*
 * A link into page 0: EINVAL there, never the bytes of the page the node
 * before it was read from (a page memo that took address 0 for "none").
 */
START_TEST(low_pointer_is_fault)
{
	static struct rec r[100];
	struct kmem_ro_walk w;
	int fd = vt_open_dev();

	walk_init(&w, "low_head", r, sizeof(r));
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_WALK, &w), 0);
	ck_assert_uint_eq(w.status, KMEM_RO_WALK_FAULT);
	ck_assert_uint_eq(w.nodes, 1);
	ck_assert_int_eq(w.fault_errno, -EINVAL);
	ck_assert_uint_eq(w.fault_addr, 0x100 - w.link_offset + fields[0].offset);
	close(fd);
}
END_TEST

/*
 * A field that starts in RAM and runs into a page that is not RAM: the
 * fault is that page's own errno (ENXIO), at its first byte -- not EFAULT
 * for a short read.
 */
START_TEST(field_fault_has_the_page_errno)
{
	struct kmem_ro_range ram[64];
	struct kmem_ro_info info;
	struct kmem_ro_field field = { .offset = 0, .len = 16 };
	struct kmem_ro_walk w;
	uint64_t last = 0, buf[4];
	int fd = vt_open_dev(), n = vt_iomem_ram(ram, 64);

	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
	/* the last whole page of a RAM range whose next page is not RAM */
	for (int i = 0; i < n && !last; i++) {
		uint64_t end = ram[i].end & ~4095ULL;

		if (i + 1 == n || ram[i + 1].start > end)
			last = end - 4096;
	}
	ck_assert_uint_ne(last, 0);
	w = (struct kmem_ro_walk){
		.size = sizeof(w), .head = info.text_start,
		.start = info.page_offset + last + 4096 - 8,
		.fields_addr = (uintptr_t)&field, .fields_count = 1,
		.buf_addr = (uintptr_t)buf, .buf_size = sizeof(buf),
	};
	ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_WALK, &w), 0);
	ck_assert_uint_eq(w.status, KMEM_RO_WALK_FAULT);
	ck_assert_int_eq(w.fault_errno, -ENXIO);
	ck_assert_uint_eq(w.fault_addr, info.page_offset + last + 4096);
	close(fd);
}
END_TEST

START_TEST(bad_arguments)
{
	static struct kmem_ro_field many[KMEM_RO_WALK_MAX_FIELDS + 1];
	static struct rec r[4];
	struct kmem_ro_walk w;
	void *ro;
	int fd = vt_open_dev();

#define EXPECT(errno_, stmt) do {					\
		walk_init(&w, "good_head", r, sizeof(r));		\
		stmt;							\
		ck_assert_int_eq(vt_ioctl(fd, KMEM_RO_IOC_WALK, &w), errno_); \
	} while (0)

	EXPECT(-EINVAL, w.flags = 2);
	EXPECT(-EINVAL, w.reserved0 = 1);
	EXPECT(-EINVAL, w.reserved[0] = 1);
	EXPECT(-EINVAL, w.head = 0x400000);
	EXPECT(-EINVAL, w.start = 0x1000);
	EXPECT(-EINVAL, w.fields_count = 0);
	EXPECT(-EINVAL, w.fields_addr = 0);
	EXPECT(-EINVAL, w.buf_addr = 0);
	EXPECT(-EINVAL, w.buf_size = sizeof(r[0]) - 1);
	EXPECT(-EINVAL, fields[1].len = 0);
	EXPECT(-E2BIG, fields[1].len = KMEM_RO_WALK_MAX_RECORD);
	EXPECT(-E2BIG, w.fields_addr = (uintptr_t)many; w.fields_count = KMEM_RO_WALK_MAX_FIELDS + 1);
	EXPECT(-EFAULT, w.fields_addr = 0x10);
	EXPECT(-EINVAL, w.size = KMEM_RO_WALK_SIZE_VER0 - 8);
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	EXPECT(-EFAULT, w.buf_addr = (uintptr_t)ro; w.buf_size = 4096);
	munmap(ro, 4096);
#undef EXPECT
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("walk");
	TCase *tc = tcase_create("lists");

	tcase_add_test(tc, good_list_whole_and_in_order);
	tcase_add_test(tc, max_nodes_then_resume);
	tcase_add_test(tc, small_buffer_is_buf_full);
	tcase_add_test(tc, loop_is_detected);
	tcase_add_test(tc, corrupt_pointer_is_fault);
	tcase_add_test(tc, low_pointer_is_fault);
	tcase_add_test(tc, field_fault_has_the_page_errno);
	suite_add_tcase(s, tc);

	tc = tcase_create("bad_input");
	tcase_add_test(tc, bad_arguments);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
