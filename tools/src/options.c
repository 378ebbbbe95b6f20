// SPDX-License-Identifier: GPL-2.0
/*
 * kmemctl's one option parser, for every verb: the verb's own options
 * from its table, beside the -j/--json and -h/--help all verbs take;
 * numbers in options; operands; and the one-line usage errors of them all.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "kmemctl.h"
#include "parse.h"

/* The most options one verb has of its own (probe has 9). */
#define OWN_MAX 10
/* getopt_long()'s value of a long-only option: past every letter. */
#define LONG_ONLY_VAL 256

static const struct option shared[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
};

/* What getopt_long() returns for option @n of the verb's own: its letter. */
static int opt_val(const struct kmemctl_opt *o, size_t n)
{
	return o->letter ? o->letter : LONG_ONLY_VAL + (int)n;
}

/* getopt_long()'s tables for @cli: the verb's own options, then shared[]. */
static void getopt_tables(const struct kmemctl_cli *cli, struct option *longopts,
			  char *shortopts)
{
	const struct kmemctl_opt *o;
	size_t n = 0;
	char *s = shortopts;

	if (cli->in_order)
		*s++ = '+';
	*s++ = ':';
	for (o = cli->opts; o && o->name; o++, n++) {
		if (n == OWN_MAX)
			abort();	/* a verb grew: raise OWN_MAX */
		longopts[n] = (struct option){
			o->name, o->kind == KMEMCTL_OPT_FLAG ? no_argument :
			required_argument, NULL, opt_val(o, n) };
		if (!o->letter)
			continue;
		*s++ = o->letter;
		if (o->kind != KMEMCTL_OPT_FLAG)
			*s++ = ':';
	}
	memcpy(longopts + n, shared, sizeof(shared));
	strcpy(s, "jh");
}

/* Store the value of option @o, given as @arg, into the verb's @opts. */
static int store(const struct kmemctl_cli *cli, const struct kmemctl_opt *o,
		 const char *arg, void *opts)
{
	void *field = (char *)opts + o->off;
	uint64_t v;

	switch (o->kind) {
	case KMEMCTL_OPT_FLAG:
		*(bool *)field = true;
		return 0;
	case KMEMCTL_OPT_STR:
		if (o->max && strlen(arg) > o->max)
			return kmemctl_bad_value(cli->verb, o->name, arg,
						 o->range);
		*(const char **)field = arg;
		return 0;
	case KMEMCTL_OPT_U64:
		if (parse_u64(arg, o->min, o->max, &v) || (o->valid && !o->valid(v)))
			return kmemctl_bad_value(cli->verb, o->name, arg,
						 o->range);
		*(uint64_t *)field = v;
		return 0;
	}
	abort();
}

int kmemctl_parse(const struct kmemctl *ctx, const struct kmemctl_cli *cli,
		  int argc, char **argv, void *opts, bool *json)
{
	struct option longopts[OWN_MAX + 3] = { { 0 } };
	char shortopts[3 * OWN_MAX + 8];
	const struct kmemctl_opt *o;
	size_t n;
	int c, rc;

	getopt_tables(cli, longopts, shortopts);
	*json = ctx->json;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == 'j') {
			*json = true;
			continue;
		}
		if (c == 'h') {
			cli->help();
			return KMEMCTL_EXIT_OK;
		}
		for (o = cli->opts, n = 0; o && o->name && opt_val(o, n) != c;
		     o++, n++)
			;
		if (!o || !o->name)	/* getopt's '?' or ':' */
			return kmemctl_bad_option(c, argv);
		rc = store(cli, o, optarg, opts);
		if (rc)
			return rc;
	}
	if (cli->max >= 0 &&
	    kmemctl_operands(cli->verb, argc, argv, cli->min, cli->max, cli->missing))
		return KMEMCTL_EXIT_USAGE;
	return KMEMCTL_PARSED;
}

int kmemctl_bad_value(const char *verb, const char *name, const char *arg,
		      const char *range)
{
	return kmemctl_usage_err("%s: bad --%s '%.40s': %s", verb, name, arg,
				 range);
}

int kmemctl_operands(const char *verb, int argc, char **argv, int min, int max,
		     const char *missing)
{
	if (argc - optind < min)
		return kmemctl_usage_err("%s: missing %s", verb, missing);
	if (argc - optind > max)
		return kmemctl_usage_err("%s: unexpected argument '%s'", verb,
					 argv[optind + max]);
	return 0;
}

int kmemctl_addr_len(const char *verb, int argc, char **argv, uint64_t max,
		     const char *range, uint64_t *len)
{
	int err;

	if (kmemctl_operands(verb, argc, argv, 2, 2,
			     argc == optind ? "ADDR and LEN" : "LEN"))
		return KMEMCTL_EXIT_USAGE;
	err = parse_size(argv[optind + 1], 1, max, len);
	if (err)
		return kmemctl_usage_err("%s: bad LEN '%.40s': %s", verb,
					 argv[optind + 1], err == -ERANGE ? range :
					 "decimal or 0x hex, K/M/G/T suffix");
	return 0;
}

int kmemctl_bad_option(int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		return kmemctl_usage_err("option '%s' requires an argument",
					 arg);
	if (optopt && strncmp(arg, "--", 2))
		return kmemctl_usage_err("invalid option '-%c'", optopt);
	return kmemctl_usage_err("unrecognized option '%s'", arg);
}
