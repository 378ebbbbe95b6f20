// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl modules: the kernel's module list (modlist.c), as /proc/modules
 * shows it, with each memory region.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "json.h"
#include "kmemctl.h"
#include "modlist.h"

static void help(void)
{
	printf("Usage: kmemctl [--device PATH] modules [--json]\n"
	       "List the loaded modules from the kernel's module list, in its "
	       "order (newest\n"
	       "first, as /proc/modules), with one walk of the list.\n"
	       "Columns: NAME, STATE (live, coming, going, unformed: "
	       "/proc/modules' Live,\n"
	       "Loading, Unloading; it hides unformed ones), REFCNT, BASE (of "
	       "the core text,\n"
	       "/proc/modules' address), SIZE (bytes, as /proc/modules counts "
	       "them), TEXT (core\n"
	       "text bytes).\n"
	       "  -j, --json  a JSON array of {name, state, refcnt, base, size, "
	       "text_size,\n"
	       "              regions: [{type, base, size}]}\n"
	       "Memory comes from %s, or /proc/kcore when the device is "
	       "absent.\n", KMEM_RO_DEVICE);
}

static void print_text(const struct mod *m, size_t n)
{
	size_t i;

	printf("%-24s %-8s %6s %-18s %10s %10s\n", "NAME", "STATE", "REFCNT",
	       "BASE", "SIZE", "TEXT");
	for (i = 0; i < n; i++) {
		char state[16], ref[24];

		modlist_lower_suffix(state, sizeof(state), m[i].state, "MODULE_STATE_");
		if (m[i].have_refcnt)
			snprintf(ref, sizeof(ref), "%" PRId64, m[i].refcnt);
		else
			snprintf(ref, sizeof(ref), "-");
		printf("%-24s %-8s %6s 0x%016" PRIx64 " %10" PRIu64 " %10" PRIu64
		       "\n", m[i].name, state, ref, m[i].base, m[i].size,
		       m[i].text_size);
	}
}

static void print_json(const struct mod *m, size_t n)
{
	struct json j;
	size_t i;
	unsigned int r;

	json_init(&j, stdout);
	json_array_begin(&j, NULL);
	for (i = 0; i < n; i++) {
		char state[16];

		modlist_lower_suffix(state, sizeof(state), m[i].state, "MODULE_STATE_");
		json_object_begin(&j, NULL);
		json_str(&j, "name", m[i].name);
		json_str(&j, "state", state);
		if (m[i].have_refcnt)
			json_i64(&j, "refcnt", m[i].refcnt);
		else
			json_null(&j, "refcnt");
		json_hex(&j, "base", m[i].base);
		json_u64(&j, "size", m[i].size);
		json_u64(&j, "text_size", m[i].text_size);
		json_array_begin(&j, "regions");
		for (r = 0; r < m[i].nregions; r++) {
			json_object_begin(&j, NULL);
			json_str(&j, "type", m[i].r[r].type);
			json_hex(&j, "base", m[i].r[r].base);
			json_u64(&j, "size", m[i].r[r].size);
			json_object_end(&j);
		}
		json_array_end(&j);
		json_object_end(&j);
	}
	json_array_end(&j);
}

int kmemctl_modules(const struct kmemctl *ctx, int argc, char **argv)
{
	static const struct kmemctl_cli cli = { .verb = "modules", .help = help };
	struct modlist ml;
	struct mod *mods;
	bool json;
	size_t n;
	int rc;

	rc = kmemctl_parse(ctx, &cli, argc, argv, NULL, &json);
	if (rc != KMEMCTL_PARSED)
		return rc;
	if (modlist_open(&ml, ctx, "modules"))
		return KMEMCTL_EXIT_ERROR;
	if (modlist_read(&ml, &mods, &n)) {
		modlist_close(&ml);
		return KMEMCTL_EXIT_ERROR;
	}
	if (json)
		print_json(mods, n);
	else
		print_text(mods, n);
	free(mods);
	modlist_close(&ml);
	return KMEMCTL_EXIT_OK;
}
