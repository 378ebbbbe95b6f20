// SPDX-License-Identifier: GPL-2.0
/* kmemctl info: what the driver reports about itself and the kernel. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "kmemctl.h"

struct bitname {
	uint64_t bit;
	const char *name;
};

static const struct bitname feature_names[] = {
	{ KMEM_RO_FEAT_INFO, "info" },
	{ KMEM_RO_FEAT_MMAP_TEXT, "mmap-text" },
	{ KMEM_RO_FEAT_MMAP_RAM, "mmap-ram" },
	{ KMEM_RO_FEAT_MMAP_HUGE, "mmap-huge" },
	{ KMEM_RO_FEAT_READV, "readv" },
	{ KMEM_RO_FEAT_WALK, "walk" },
	{ KMEM_RO_FEAT_PAGEMAP, "pagemap" },
	{ KMEM_RO_FEAT_PROBES, "probes" },
	{ KMEM_RO_FEAT_EVENTS, "events" },
	{ KMEM_RO_FEAT_VMCOREINFO, "vmcoreinfo" },
	{ KMEM_RO_FEAT_PROBE_FILTER, "probe-filter" },
	{ KMEM_RO_FEAT_MMAP_REFUSED, "mmap-refused" },
};

static const struct bitname ioctl_names[] = {
	{ 1ULL << _IOC_NR(KMEM_RO_IOC_INFO), "INFO" },
	{ 1ULL << _IOC_NR(KMEM_RO_IOC_READV), "READV" },
	{ 1ULL << _IOC_NR(KMEM_RO_IOC_WALK), "WALK" },
	{ 1ULL << _IOC_NR(KMEM_RO_IOC_PAGEMAP), "PAGEMAP" },
	{ 1ULL << _IOC_NR(KMEM_RO_IOC_PROBE_ADD), "PROBE_ADD" },
	{ 1ULL << _IOC_NR(KMEM_RO_IOC_PROBE_ENABLE), "PROBE_ENABLE" },
	{ 1ULL << _IOC_NR(KMEM_RO_IOC_PROBE_DISABLE), "PROBE_DISABLE" },
	{ 1ULL << _IOC_NR(KMEM_RO_IOC_PROBE_DEL), "PROBE_DEL" },
	{ 1ULL << _IOC_NR(KMEM_RO_IOC_PROBE_STATS), "PROBE_STATS" },
	{ 1ULL << _IOC_NR(KMEM_RO_IOC_PROBE_LIST), "PROBE_LIST" },
	{ 1ULL << _IOC_NR(KMEM_RO_IOC_PROBE_FILTER), "PROBE_FILTER" },
	{ 1ULL << _IOC_NR(KMEM_RO_IOC_EVENTS_SNAPSHOT), "EVENTS_SNAPSHOT" },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char *bit_name(const struct bitname *names, size_t n,
			    uint64_t bit)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (names[i].bit == bit)
			return names[i].name;
	return NULL;
}

/* "0x0000000000000003 (info, bit1)": unknown bits stay visible. */
static void print_mask(const char *label, uint64_t mask,
		       const struct bitname *names, size_t n)
{
	const char *sep = "";
	int b;

	printf("%-13s 0x%016" PRIx64 " (", label, mask);
	for (b = 0; b < 64; b++) {
		const char *name;

		if (!(mask & (1ULL << b)))
			continue;
		name = bit_name(names, n, 1ULL << b);
		if (name)
			printf("%s%s", sep, name);
		else
			printf("%sbit%d", sep, b);
		sep = ", ";
	}
	printf("%s)\n", *sep ? "" : "none");
}

static void json_mask_names(struct json *j, const char *key, uint64_t mask,
			    const struct bitname *names, size_t n)
{
	char buf[16];
	int b;

	json_array_begin(j, key);
	for (b = 0; b < 64; b++) {
		const char *name;

		if (!(mask & (1ULL << b)))
			continue;
		name = bit_name(names, n, 1ULL << b);
		if (!name) {
			snprintf(buf, sizeof(buf), "bit%d", b);
			name = buf;
		}
		json_str(j, NULL, name);
	}
	json_array_end(j);
}

/* Largest binary unit that fits: "4 KiB", "1.5 GiB", "32 TiB". */
static const char *human_size(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = {
		"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB",
	};
	unsigned int u = 0;

	while (u + 1 < ARRAY_SIZE(units) && bytes >> (10 * (u + 1)))
		u++;
	if (!u || !(bytes & ((1ULL << (10 * u)) - 1)))
		snprintf(buf, len, "%" PRIu64 " %s", bytes >> (10 * u),
			 units[u]);
	else
		snprintf(buf, len, "%.1f %s",
			 (double)bytes / (double)(1ULL << (10 * u)), units[u]);
	return buf;
}

static uint64_t span(uint64_t start, uint64_t end)
{
	return end > start ? end - start : 0;
}

static void print_range(const char *label, uint64_t start, uint64_t end)
{
	char sz[32];

	printf("%-13s 0x%016" PRIx64 "-0x%016" PRIx64 " (%s)\n", label, start,
	       end, human_size(sz, sizeof(sz), span(start, end)));
}


static void print_human(const char *device, const struct kmem_ro_info *in,
			const struct kmem_ro_range *ram, unsigned int nr)
{
	uint64_t total = 0;
	unsigned int i;
	char sz[32];

	for (i = 0; i < nr; i++)
		total += span(ram[i].start, ram[i].end);

	printf("%-13s %s\n", "device:", device);
	printf("%-13s %" PRIu32 "\n", "abi version:", in->abi_version);
	printf("%-13s 0x%02X\n", "ioctl magic:", KMEM_RO_IOC_MAGIC);
	print_mask("features:", in->features, feature_names,
		   ARRAY_SIZE(feature_names));
	print_mask("ioctls:", in->ioctls, ioctl_names, ARRAY_SIZE(ioctl_names));
	printf("%-13s %" PRIu32 " (%s)\n", "page size:", in->page_size,
	       human_size(sz, sizeof(sz), in->page_size));
	printf("%-13s %" PRIu64 " (%s)\n", "pmd size:", (uint64_t)in->pmd_size,
	       human_size(sz, sizeof(sz), in->pmd_size));
	printf("%-13s 0x%016" PRIx64 "\n", "direct map:",
	       (uint64_t)in->page_offset);
	printf("%-13s 0x%016" PRIx64 "\n", "phys base:",
	       (uint64_t)in->phys_base);
	printf("%-13s 0x%016" PRIx64 "\n", "kernel map:",
	       (uint64_t)in->kernel_map);
	print_range("kernel text:", in->text_start, in->text_end);
	print_range("vmalloc:", in->vmalloc_start, in->vmalloc_end);
	print_range("modules:", in->modules_start, in->modules_end);
	if (in->features & KMEM_RO_FEAT_VMCOREINFO)
		printf("%-13s 0x%016" PRIx64 " (physical, %" PRIu32 " bytes)\n",
		       "vmcoreinfo:", (uint64_t)in->vmcoreinfo_addr,
		       in->vmcoreinfo_size);
	printf("%-13s %u range%s, %s total\n", "System RAM:", nr,
	       nr == 1 ? "" : "s", human_size(sz, sizeof(sz), total));
	for (i = 0; i < nr; i++)
		print_range("", ram[i].start, ram[i].end);
}

static void print_json(const char *device, const struct kmem_ro_info *in,
		       const struct kmem_ro_range *ram, unsigned int nr)
{
	uint64_t total = 0;
	struct json j;
	char magic[8];
	unsigned int i;

	for (i = 0; i < nr; i++)
		total += span(ram[i].start, ram[i].end);

	json_init(&j, stdout);
	json_object_begin(&j, NULL);
	json_str(&j, "device", device);
	json_u64(&j, "abi_version", in->abi_version);
	snprintf(magic, sizeof(magic), "0x%02x", KMEM_RO_IOC_MAGIC);
	json_str(&j, "ioctl_magic", magic);
	json_hex(&j, "features", in->features);
	json_mask_names(&j, "feature_names", in->features, feature_names,
			ARRAY_SIZE(feature_names));
	json_hex(&j, "ioctls", in->ioctls);
	json_mask_names(&j, "ioctl_names", in->ioctls, ioctl_names,
			ARRAY_SIZE(ioctl_names));
	json_u64(&j, "page_size", in->page_size);
	json_u64(&j, "pmd_size", in->pmd_size);
	json_hex(&j, "page_offset", in->page_offset);
	json_hex(&j, "phys_base", in->phys_base);
	json_hex(&j, "kernel_map", in->kernel_map);
	json_hex(&j, "text_start", in->text_start);
	json_hex(&j, "text_end", in->text_end);
	json_u64(&j, "text_size", span(in->text_start, in->text_end));
	json_hex(&j, "vmalloc_start", in->vmalloc_start);
	json_hex(&j, "vmalloc_end", in->vmalloc_end);
	json_u64(&j, "vmalloc_size", span(in->vmalloc_start, in->vmalloc_end));
	json_hex(&j, "modules_start", in->modules_start);
	json_hex(&j, "modules_end", in->modules_end);
	json_u64(&j, "modules_size", span(in->modules_start, in->modules_end));
	json_hex(&j, "vmcoreinfo_addr", in->vmcoreinfo_addr);
	json_u64(&j, "vmcoreinfo_size", in->vmcoreinfo_size);
	json_u64(&j, "ram_count", nr);
	json_u64(&j, "ram_total", total);
	json_array_begin(&j, "ram");
	for (i = 0; i < nr; i++) {
		json_object_begin(&j, NULL);
		json_hex(&j, "start", ram[i].start);
		json_hex(&j, "end", ram[i].end);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
}

static void help(void)
{
	printf("Usage: kmemctl [--device PATH] info [--json]\n"
	       "Print the driver's ABI version, features and "
	       "the kernel memory layout.\n"
	       "  -j, --json  one JSON object; addresses and "
	       "masks as \"0x...\" strings, sizes as integers\n");
}

int kmemctl_info(const struct kmemctl *ctx, int argc, char **argv)
{
	static const struct kmemctl_cli cli = {
		.verb = "info", .help = help, .in_order = true,
	};
	struct kmem_ro_range *ram = NULL;
	KMEMDEV_ARG(kmem_ro_info, info);
	struct kmemdev *h;
	unsigned int nr;
	bool json;
	int err;

	err = kmemctl_parse(ctx, &cli, argc, argv, NULL, &json);
	if (err != KMEMCTL_PARSED)
		return err;

	h = kmemctl_open(ctx);
	if (!h)
		return KMEMCTL_EXIT_ERROR;
	err = kmemdev_info_alloc(h, &info, &ram, &nr);
	kmemdev_close(h);
	if (err) {
		kmemctl_err(KMEMDEV_OP_INFO, err, "query %s", ctx->device);
		return KMEMCTL_EXIT_ERROR;
	}
	if (json)
		print_json(ctx->device, &info, ram, nr);
	else
		print_human(ctx->device, &info, ram, nr);
	free(ram);
	return KMEMCTL_EXIT_OK;
}
