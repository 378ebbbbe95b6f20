/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel types by name from BTF (/sys/kernel/btf/vmlinux, then the
 * modules' /sys/kernel/btf/MODULE), and places inside them by member path:
 * "TYPE.member.sub[3].x".  Only BTF is read: no device is needed.
 */
#ifndef KMEMCTL_KTYPE_H
#define KMEMCTL_KTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bpf/btf.h>

struct kmemdev;

struct ktypes {
	struct btf *vmlinux;
	struct kmemdev *owner;	/* the handle vmlinux belongs to, ours */
	bool borrowed;		/* vmlinux is a caller's handle's */
	struct btf **mods;	/* split BTF of each module, loaded on demand */
	char **mod_names;
	size_t nmods;
	bool mods_loaded;
};

/* A place in an object: what is there, and where, in bits from its start. */
struct kplace {
	const struct btf *btf;
	uint32_t type;		/* type id as declared (typedefs kept) */
	uint64_t bit_off;
	uint32_t bit_size;	/* bitfield width; 0 if not a bitfield */
};

/*
 * Load vmlinux BTF: libkmemdev's (kmemdev_btf(): one device read instead
 * of one per page of /sys/kernel/btf/vmlinux) when a handle opens, else
 * libbpf's.  0, -ENODATA (none), or libbpf's error.
 */
int ktypes_load(struct ktypes *kt);
/* The same from the caller's open handle: ktypes_free() before closing it. */
int ktypes_load_with(struct ktypes *kt, struct kmemdev *h);
void ktypes_free(struct ktypes *kt);

/*
 * Find a type by name: "task_struct", "struct task_struct", "union x",
 * "enum y", a typedef or a base type ("unsigned int").  Without a
 * keyword, struct wins over union, typedef, enum and base types.  Looks
 * in vmlinux, then in each module's BTF.  0 or -ENOENT.
 */
int ktypes_find(struct ktypes *kt, const char *name, const struct btf **btf,
		uint32_t *id);

/*
 * Split "TYPE.path" at the first '.', '->' or '[' into a type name (copied into
 * @type, at most @len bytes) and the path (NULL if none).  -ENAMETOOLONG.
 */
int ktype_split(const char *spec, char *type, size_t len, const char **path);

/*
 * Follow @path ("a.b[3].c", or "" for the object itself) from type @id.
 * Members of anonymous structs and unions are found as C finds them;
 * "->" separates components as "." does.
 * 0, or -ENOENT (no such member: @bad names the component), -EINVAL (a
 * member of something not a struct or union, an index into a non-array,
 * malformed path), -ERANGE (index past the array), -ENOTDIR (the path
 * goes on through a pointer: see ktype_path_step()).
 */
int ktype_path(const struct btf *btf, uint32_t id, const char *path,
	       struct kplace *out, char *bad, size_t badlen);

/*
 * ktype_path() up to the first pointer the path goes through ("signal"
 * of "signal.rlim[7]", "->" or "[N]" after a pointer): @out is then the
 * pointer's place and *@rest the path after it ("rlim[7]", or "[N]..."
 * for an index into what it points to); *@rest is NULL when the path
 * ends here.  Errors as ktype_path()'s, never -ENOTDIR.
 */
int ktype_path_step(const struct btf *btf, uint32_t id, const char *path,
		    struct kplace *out, const char **rest, char *bad,
		    size_t badlen);

/* Skip typedefs and qualifiers (const, volatile, restrict, type tags). */
uint32_t ktype_skip(const struct btf *btf, uint32_t id);

/* Skip qualifiers only: typedefs stay. */
uint32_t ktype_skip_quals(const struct btf *btf, uint32_t id);

/* Size in bytes of the type, 0 if it has none (void, function). */
uint64_t ktype_size(const struct btf *btf, uint32_t id);

/* The type as C writes it ("struct list_head *", "char[16]"); @buf. */
const char *ktype_name(const struct btf *btf, uint32_t id, char *buf,
		       size_t len);

/*
 * A declaration as C writes it: "char comm[16]", "struct list_head *next",
 * "void (*fn)(int)"; @name may be NULL for an anonymous member.  @buf.
 */
const char *ktype_decl(const struct btf *btf, uint32_t id, const char *name,
		       char *buf, size_t len);

/* Is it a char array (printed as a string)?  Element type "char" only. */
bool ktype_is_char_array(const struct btf *btf, uint32_t id);

/* Name of an enum value, NULL if none has that value. */
const char *ktype_enum_name(const struct btf *btf, uint32_t id, uint64_t v);

/* Value of an enumerator by name, in any enum: 0 or -ENOENT. */
int ktype_enum_value(const struct btf *btf, const char *name, int64_t *v);

#endif /* KMEMCTL_KTYPE_H */
