// SPDX-License-Identifier: GPL-2.0
/* Per-CPU variables through __per_cpu_offset: see percpu.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kmemctl.h"
#include "mem.h"
#include "percpu.h"

/* A symbol the per-CPU code needs; "kmemctl: <what>: no symbol NAME" else. */
static int need_symbol(struct kmemdev *h, const char *what, const char *name,
		       uint64_t *addr)
{
	int err = kmemdev_symbol(h, name, addr);

	if (err)
		kmemctl_err(KMEMDEV_OP_SYMBOL, err, "%s: per-CPU symbol %s",
			    what, name);
	return err;
}

bool percpu_is_var(struct kmemdev *h, uint64_t addr)
{
	uint64_t start, end;

	return !kmemdev_symbol(h, "__per_cpu_start", &start) &&
	       !kmemdev_symbol(h, "__per_cpu_end", &end) &&
	       addr >= start && addr < end;
}

int percpu_load(struct kmemdev *h, const char *what, struct percpu *pc)
{
	uint64_t nr_addr, off_addr, mask_addr;
	uint32_t nr;
	size_t words;
	int err;

	memset(pc, 0, sizeof(*pc));
	err = need_symbol(h, what, "__per_cpu_start", &pc->start);
	if (!err)
		err = need_symbol(h, what, "__per_cpu_end", &pc->end);
	if (!err)
		err = need_symbol(h, what, "nr_cpu_ids", &nr_addr);
	if (!err)
		err = need_symbol(h, what, "__per_cpu_offset", &off_addr);
	if (!err)
		err = need_symbol(h, what, "__cpu_possible_mask", &mask_addr);
	if (err)
		return err;
	err = mem_read(h, what, nr_addr, &nr, sizeof(nr));
	if (err)
		return err;
	/* NR_CPUS is at most 8192 on x86-64 (MAXSMP) */
	if (!nr || nr > 8192) {
		kmemctl_fail("%s: nr_cpu_ids is %u", what, nr);
		return -EINVAL;
	}
	words = (nr + 63) / 64;
	pc->nr_cpu_ids = nr;
	pc->offset = calloc(nr, sizeof(*pc->offset));
	pc->possible = calloc(words, sizeof(*pc->possible));
	if (!pc->offset || !pc->possible) {
		kmemctl_err(KMEMDEV_OP_ANY, -ENOMEM, "%s", what);
		return -ENOMEM;
	}
	err = mem_read(h, what, off_addr, pc->offset, nr * sizeof(*pc->offset));
	if (!err)
		err = mem_read(h, what, mask_addr, pc->possible,
			       words * sizeof(*pc->possible));
	return err;
}

void percpu_free(struct percpu *pc)
{
	free(pc->offset);
	free(pc->possible);
	memset(pc, 0, sizeof(*pc));
}

bool percpu_possible(const struct percpu *pc, uint64_t cpu)
{
	return cpu < pc->nr_cpu_ids &&
	       (pc->possible[cpu / 64] >> (cpu % 64)) & 1;
}

uint32_t percpu_last(const struct percpu *pc)
{
	uint32_t cpu = pc->nr_cpu_ids;

	while (cpu > 0 && !percpu_possible(pc, cpu - 1))
		cpu--;
	return cpu ? cpu - 1 : 0;
}

uint64_t percpu_addr(const struct percpu *pc, uint64_t addr, uint32_t cpu)
{
	return addr + pc->offset[cpu];
}
