/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host build shim: the part of the KUnit API that kunit/npa_plan_test.c
 * uses, so that the host self-test (tools/npactl/tests/plan_selftest.c)
 * runs that suite unchanged instead of a copy of it. A failed ASSERT ends
 * its case (longjmp), a failed EXPECT marks it failed; kunit_host_run()
 * prints one TAP line per case and parameter and frees what the case
 * allocated with kunit_kcalloc().
 */
#ifndef _NPA_TOOLS_KUNIT_TEST_H
#define _NPA_TOOLS_KUNIT_TEST_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/types.h>

#define KUNIT_PARAM_DESC_SIZE	128
#define KUNIT_HOST_MAX_ALLOCS	64

struct kunit {
	const void *param_value;
	bool failed;
	jmp_buf abort;
	void *allocs[KUNIT_HOST_MAX_ALLOCS];
	unsigned int nallocs;
};

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
	const void *(*generate_params)(const void *prev, char *desc);
};

struct kunit_suite {
	const char *name;
	struct kunit_case *test_cases;
};

#define KUNIT_CASE(fn)		{ .run_case = fn, .name = #fn }
#define KUNIT_CASE_PARAM(fn, gen) \
	{ .run_case = fn, .name = #fn, .generate_params = gen }

#define KUNIT_ARRAY_PARAM(name, array, get_desc)			\
	static const void *name##_gen_params(const void *prev, char *desc) \
	{								\
		typeof((array)[0]) *__next = prev ?			\
			((typeof(__next))prev) + 1 : (array);		\
									\
		if (__next - (array) >= (long)ARRAY_SIZE(array))	\
			return NULL;					\
		get_desc(__next, desc);					\
		return __next;						\
	}

/* The suite of the file that includes this one, for kunit_host_run(). */
#define kunit_test_suite(suite)						\
	static struct kunit_suite *const kunit_host_suite = &(suite)

static inline char *strscpy_host(char *dst, const char *src, size_t size)
{
	snprintf(dst, size, "%s", src);
	return dst;
}

#define strscpy(dst, src, size)	strscpy_host(dst, src, size)

static inline void *kunit_kcalloc(struct kunit *test, size_t n, size_t size,
				  gfp_t gfp)
{
	void *p;

	if (test->nallocs == KUNIT_HOST_MAX_ALLOCS)
		return NULL;
	p = kcalloc(n, size, gfp);
	if (p)
		test->allocs[test->nallocs++] = p;
	return p;
}

#define kunit_kzalloc(test, size, gfp)	kunit_kcalloc(test, 1, size, gfp)
#define kunit_info(test, fmt, ...)	\
	((void)(test), printf("# " fmt, ##__VA_ARGS__))

static inline void kunit_host_fail(struct kunit *test, bool assert,
				   const char *file, int line, const char *what,
				   long long a, long long b)
{
	printf("# %s:%d: %s failed (%lld, %lld)\n", file, line, what, a, b);
	test->failed = true;
	if (assert)
		longjmp(test->abort, 1);
}

/* Each operand is evaluated once, as in KUnit. */
#define KUNIT_HOST_CMP(test, assert, a, op, b, ...)			\
	do {								\
		typeof(a) __a = (a);					\
		typeof(b) __b = (b);					\
									\
		if (!(__a op __b))					\
			kunit_host_fail(test, assert, __FILE__, __LINE__, \
					#a " " #op " " #b,		\
					(long long)__a, (long long)__b); \
	} while (0)

#define KUNIT_EXPECT_EQ(t, a, b)	KUNIT_HOST_CMP(t, false, a, ==, b)
#define KUNIT_EXPECT_LE(t, a, b)	KUNIT_HOST_CMP(t, false, a, <=, b)
#define KUNIT_EXPECT_GE(t, a, b)	KUNIT_HOST_CMP(t, false, a, >=, b)
#define KUNIT_ASSERT_EQ(t, a, b)	KUNIT_HOST_CMP(t, true, a, ==, b)
#define KUNIT_ASSERT_GE(t, a, b)	KUNIT_HOST_CMP(t, true, a, >=, b)
#define KUNIT_EXPECT_EQ_MSG(t, a, b, ...)	KUNIT_EXPECT_EQ(t, a, b)
#define KUNIT_EXPECT_LE_MSG(t, a, b, ...)	KUNIT_EXPECT_LE(t, a, b)
#define KUNIT_ASSERT_EQ_MSG(t, a, b, ...)	KUNIT_ASSERT_EQ(t, a, b)
#define KUNIT_ASSERT_GE_MSG(t, a, b, ...)	KUNIT_ASSERT_GE(t, a, b)
#define KUNIT_ASSERT_NOT_ERR_OR_NULL(t, p)				\
	KUNIT_HOST_CMP(t, true, (p) != NULL, ==, true)

static inline void kunit_host_case(const struct kunit_suite *s,
				   const struct kunit_case *c,
				   const void *param, const char *desc,
				   int *failures)
{
	/* In memory, not in a register that longjmp() would not restore. */
	struct kunit *test = calloc(1, sizeof(*test));
	unsigned int i;

	if (!test) {
		printf("not ok - %s.%s: out of memory\n", s->name, c->name);
		++*failures;
		return;
	}
	test->param_value = param;
	if (!setjmp(test->abort))
		c->run_case(test);
	for (i = 0; i < test->nallocs; i++)
		kfree(test->allocs[i]);
	printf("%s - %s.%s%s%s\n", test->failed ? "not ok" : "ok", s->name,
	       c->name, param ? ": " : "", param ? desc : "");
	*failures += test->failed;
	free(test);
}

/* Run every case of @s (each parameter of a parameterised one). */
static inline int kunit_host_run(const struct kunit_suite *s)
{
	const struct kunit_case *c;
	int failures = 0;

	for (c = s->test_cases; c->run_case; c++) {
		char desc[KUNIT_PARAM_DESC_SIZE];
		const void *param = NULL;

		if (!c->generate_params) {
			kunit_host_case(s, c, NULL, "", &failures);
			continue;
		}
		while ((param = c->generate_params(param, desc)))
			kunit_host_case(s, c, param, desc, &failures);
	}
	return failures;
}

#endif
