// SPDX-License-Identifier: GPL-2.0
/* kmemctl pagemap: parsing and counting, no kernel needed. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "pagemap_util.h"

int pm_parse_pid(const char *s, pid_t *pid)
{
	uint64_t v = 0;

	if (!s || !pid)
		return -EINVAL;
	if (!strcmp(s, "self")) {
		*pid = 0;
		return 0;
	}
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > INT_MAX)
			return -EINVAL;
	}
	*pid = (pid_t)v;
	return 0;
}

/* [0x]HEX up to @stop (or the end); *s moves past it. */
static int parse_hex(const char **s, char stop, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;
	int digits = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; *p && *p != stop; p++) {
		unsigned int d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned int)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			d = (unsigned int)(*p - 'a' + 10);
		else if (*p >= 'A' && *p <= 'F')
			d = (unsigned int)(*p - 'A' + 10);
		else
			return -EINVAL;
		if (v >> 60)
			return -ERANGE;
		v = v << 4 | d;
		digits++;
	}
	if (!digits)
		return -EINVAL;
	*s = p;
	*out = v;
	return 0;
}

int pm_parse_range(const char *s, uint64_t page_size, uint64_t *start,
		   uint64_t *end)
{
	uint64_t a, b, mask = page_size - 1;
	int err;

	if (!s || !start || !end || !page_size || (page_size & mask))
		return -EINVAL;
	err = parse_hex(&s, '-', &a);
	if (err)
		return err;
	if (*s++ != '-')
		return -EINVAL;
	err = parse_hex(&s, '\0', &b);
	if (err)
		return err;
	if (a >= b)
		return -EINVAL;
	if (b > UINT64_MAX - mask)
		return -ERANGE;
	*start = a & ~mask;
	*end = (b + mask) & ~mask;
	return 0;
}

int pm_parse_maps_line(char *line, struct pm_vma *v)
{
	unsigned long long start, end, offset;
	char perms[5], *nl;
	int pos = -1;

	if (!line || !v)
		return -EINVAL;
	nl = strchr(line, '\n');
	if (nl)
		*nl = '\0';
	/* dev is "MM:mm", inode decimal; the path starts after the blanks */
	if (sscanf(line, "%llx-%llx %4s %llx %*x:%*x %*u %n", &start, &end,
		   perms, &offset, &pos) != 4 || pos < 0 || start >= end ||
	    strlen(perms) != 4)
		return -EINVAL;
	v->start = start;
	v->end = end;
	memcpy(v->perms, perms, sizeof(v->perms));
	v->offset = offset;
	v->path = line + pos;
	return 0;
}

void pm_summary_add(struct pm_summary *s, const struct kmem_ro_pagemap_run *r,
		    size_t n, uint64_t pmd_pages)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t f = r[i].flags, pages = r[i].pages;
		bool present = f & KMEM_RO_PM_PRESENT;

		s->runs++;
		s->pages += pages;
		if (present)
			s->present += pages;
		if (f & KMEM_RO_PM_SWAP)
			s->swapped += pages;
		if (f & KMEM_RO_PM_FILE)
			s->file += pages;
		else if (present)
			s->anon += pages;
		if (f & KMEM_RO_PM_EXCLUSIVE)
			s->exclusive += pages;
		if (f & KMEM_RO_PM_SOFT_DIRTY)
			s->soft_dirty += pages;
		if (f & KMEM_RO_PM_UFFD_WP)
			s->uffd_wp += pages;
		if (present && !r[i].frame)
			s->hidden += pages;
		if (present && r[i].frame && pmd_pages &&
		    pages >= pmd_pages && r[i].frame % pmd_pages == 0)
			s->pmd_runs++;
	}
}
