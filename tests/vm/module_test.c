// SPDX-License-Identifier: GPL-2.0
/*
 * Module lifetime: an open fd pins the module, and 50 unload/load cycles in
 * a row leave a working device every time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>

#include "vmtest.h"

#define CYCLES 50

static int unload(void)
{
	return vt_module_unload("kmem_ro");
}

static int load(void)
{
	return vt_module_load(VMTEST_MODULE_PATH, "");
}

START_TEST(open_fd_pins_module)
{
	int fd = vt_open_dev();

	ck_assert_int_eq(unload(), -EWOULDBLOCK);
	close(fd);
	ck_assert_int_eq(unload(), 0);
	ck_assert_int_eq(load(), 0);
}
END_TEST

START_TEST(load_unload_cycles)
{
	struct kmem_ro_info info;

	for (int i = 0; i < CYCLES; i++) {
		int fd;

		ck_assert_msg(unload() == 0, "unload %d", i);
		ck_assert_msg(access(KMEM_RO_DEVICE, F_OK) == -1, "node left behind");
		ck_assert_msg(load() == 0, "load %d", i);
		ck_assert_int_eq(vt_wait_node(), 0);
		fd = vt_open_dev();
		ck_assert_int_eq(vt_info(fd, &info, NULL, 0), 0);
		ck_assert_uint_eq(info.abi_version, KMEM_RO_ABI_VERSION);
		close(fd);
	}
}
END_TEST

START_TEST(double_load_is_eexist)
{
	ck_assert_int_eq(load(), -EEXIST);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("module");
	TCase *tc = tcase_create("lifetime");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, open_fd_pins_module);
	tcase_add_test(tc, load_unload_cycles);
	tcase_add_test(tc, double_load_is_eexist);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
