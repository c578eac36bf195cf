// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the npa driver core and its ioctl dispatch.
 */

#include <kunit/test.h>
#include <asm/ioctls.h>
#include <linux/fs.h>
#include <linux/npa.h>

#include "npa_drv.h"
#include "npa_query_cases.h"
#include "npa_ioctl.h"

static void npa_drv_test_create_destroy(struct kunit *test)
{
	struct npa_device *ndev;

	/* The module's own device holds npa0; a second one gets its own node. */
	ndev = npa_device_create(NULL, 7, 0, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ndev));
	KUNIT_EXPECT_STREQ(test, ndev->misc.name, "npa7");
	KUNIT_EXPECT_NE(test, ndev->misc.minor, MISC_DYNAMIC_MINOR);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, ndev->misc.this_device);
	KUNIT_EXPECT_EQ(test, atomic_read(&ndev->open_files), 0);
	npa_device_destroy(ndev);
}

static void npa_drv_test_query(struct kunit *test)
{
	struct npa_file nfile = { };
	struct npa_query q = { };

	KUNIT_ASSERT_EQ(test, npa_ioctl_dispatch(&nfile, NPA_IOCTL_QUERY, &q), 0);
	KUNIT_EXPECT_EQ(test, q.version_major, NPA_VERSION_MAJOR);
	KUNIT_EXPECT_EQ(test, q.version_minor, NPA_VERSION_MINOR);
	KUNIT_EXPECT_EQ(test, q.version_patch, NPA_VERSION_PATCH);
	KUNIT_EXPECT_TRUE(test, q.caps & NPA_CAP_PLAN);
	KUNIT_EXPECT_EQ(test, q.caps & ~NPA_CAPS_ALL, 0ULL);
}

static void npa_drv_query_case_desc(const struct npa_query_case *c,
				    char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s = %s", c->field, c->value);
}

KUNIT_ARRAY_PARAM(npa_drv_query_case, npa_query_bad_cases,
		  npa_drv_query_case_desc);

/* Refused, and nothing filled in before the refusal. */
static void npa_drv_test_query_invalid(struct kunit *test)
{
	const struct npa_query_case *c = test->param_value;
	struct npa_file nfile = { };
	struct npa_query q = { };
	u32 v32 = c->val;

	if (c->len == sizeof(v32))
		memcpy((u8 *)&q + c->off, &v32, sizeof(v32));
	else
		memcpy((u8 *)&q + c->off, &c->val, sizeof(c->val));
	KUNIT_EXPECT_EQ(test, npa_ioctl_dispatch(&nfile, NPA_IOCTL_QUERY, &q),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, q.version_major, 0U);
}

struct npa_drv_bad_cmd {
	unsigned int cmd;
	const char *desc;
};

static const struct npa_drv_bad_cmd npa_drv_bad_cmds[] = {
	{ _IOWR(NPA_IOCTL_BASE, 0x7f, struct npa_query), "unknown nr" },
	{ _IOWR('N', 0x00, struct npa_query), "foreign type" },
	{ _IOR(NPA_IOCTL_BASE, 0x00, struct npa_query), "wrong direction" },
	{ _IO(NPA_IOCTL_BASE, 0x00), "no direction" },
	{ TCGETS, "tty ioctl" },
};

static void npa_drv_bad_cmd_desc(const struct npa_drv_bad_cmd *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(npa_drv_bad_cmd, npa_drv_bad_cmds, npa_drv_bad_cmd_desc);

static void npa_drv_test_bad_cmd(struct kunit *test)
{
	const struct npa_drv_bad_cmd *c = test->param_value;
	struct npa_file nfile = { };
	struct npa_query q = { };

	KUNIT_EXPECT_EQ(test, npa_ioctl_dispatch(&nfile, c->cmd, &q), -ENOTTY);
}

static struct kunit_case npa_drv_test_cases[] = {
	KUNIT_CASE(npa_drv_test_create_destroy),
	KUNIT_CASE(npa_drv_test_query),
	KUNIT_CASE_PARAM(npa_drv_test_query_invalid,
			 npa_drv_query_case_gen_params),
	KUNIT_CASE_PARAM(npa_drv_test_bad_cmd, npa_drv_bad_cmd_gen_params),
	{}
};

static struct kunit_suite npa_drv_test_suite = {
	.name = "npa_drv",
	.test_cases = npa_drv_test_cases,
};

kunit_test_suite(npa_drv_test_suite);
