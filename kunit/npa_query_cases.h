/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fields of struct npa_query that userspace may not set, and the
 * values each is tried with: one table for the KUnit suite
 * (kunit/npa_drv_test.c) and the e2e matrix (tools/tests/npa_matrix.c).
 * Each must fail with -EINVAL.  Include <linux/npa.h> and offsetof()
 * first.
 */
#ifndef __NPA_QUERY_CASES_H__
#define __NPA_QUERY_CASES_H__

/**
 * struct npa_query_case - one field of struct npa_query set to a value
 * @field: its name.
 * @value: the value, in words.
 * @off: offsetof() it.
 * @len: its size: 4 or 8.
 * @val: the value.
 */
struct npa_query_case {
	const char *field;
	const char *value;
	unsigned long off, len;
	unsigned long long val;
};

static const struct npa_query_case npa_query_bad_cases[] = {
	{ "flags", "1", offsetof(struct npa_query, flags), 4, 1 },
	{ "flags", "bit 31", offsetof(struct npa_query, flags), 4, 0x80000000 },
	{ "flags", "U32_MAX", offsetof(struct npa_query, flags), 4, 0xffffffff },
	{ "reserved[0]", "1", offsetof(struct npa_query, reserved[0]), 8, 1 },
	{ "reserved[1]", "bit 63", offsetof(struct npa_query, reserved[1]), 8,
	  1ULL << 63 },
	{ "reserved[2]", "U64_MAX", offsetof(struct npa_query, reserved[2]), 8,
	  ~0ULL },
	{ "reserved[3]", "1", offsetof(struct npa_query, reserved[3]), 8, 1 },
};

#endif /* __NPA_QUERY_CASES_H__ */
