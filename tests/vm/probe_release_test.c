// SPDX-License-Identifier: GPL-2.0
/*
 * Closing a file whose probe hash is still growing.
 *
 * Probes are found in a resizable hash (rhashtable) that grows in a
 * deferred worker once an ADD has filled it past 75 %.  A file closed right
 * after such an ADD used to free its probes while that worker still walked
 * their hash links: KASAN reported a slab-use-after-free in
 * rht_deferred_worker() on the 7.3 debug kernel, then the worker oopsed.
 * Each round here adds just past a growth threshold and closes at once.
 * On a KASAN kernel the report fails the run; on the others the group
 * boots with slub_debug=FZP for the kmalloc-cg caches the probes live in,
 * so that the worker's late write into a freed probe is a "Poison
 * overwritten" BUG.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmtest.h"

#define ROUNDS	4

START_TEST(close_while_the_hash_grows)
{
	/* a little past 3/4 of 2^k entries: the last ADD starts a growth */
	static const unsigned int sizes[] = { 1600, 3100, 6200, 12400 };
	enum { MAX = 65536 };	/* every text symbol: a third or more take a probe */
	struct kmem_ro_probe_spec *s = calloc(MAX, sizeof(*s));
	unsigned int n, added, want;

	ck_assert_ptr_nonnull(s);
	n = vt_text_probe_specs(s, MAX);
	for (int r = 0; r < ROUNDS; r++) {
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			int fd = vt_open_dev();
			unsigned int first = 0, got = 0;

			/* add until @sizes[i] probes exist: some specs are refused */
			while (got < sizes[i] && first < n) {
				want = sizes[i] - got;
				if (want > n - first)
					want = n - first;
				ck_assert_int_eq(vt_probe_add(fd, s + first, want, &added), 0);
				first += want;
				got += added;
			}
			ck_assert_uint_ge(got, sizes[i]);
			close(fd);
		}
	}
	printf("probe_release: %d rounds of %zu closes right after a growing ADD\n", ROUNDS,
	       sizeof(sizes) / sizeof(sizes[0]));
	free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("probe_release");
	TCase *tc = tcase_create("release");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, close_while_the_hash_grows);
	suite_add_tcase(s, tc);
	return vt_main(s);
}
