// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the simulated NPU as an NPU backend: jobs built by hand,
 * with no model, file, buffer or carveout behind them.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/dma-fence.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "npa_ir.h"

#include "npa_sim.h"

/* A one-command job: COPY of 64 bytes from one range to another. */
struct npa_sim_fixture {
	struct npa_sim sim;
	struct npa_ir_tensor t;
	struct npa_ir_op op;
	struct npa_npu_cmd cmd;
	struct npa_npu_operand operands[2];
	struct npa_npu_range ranges[2];
	struct npa_npu_job job;
	struct completion done;
	u8 src[64], dst[64];
	bool prepared;
	bool signalling;
};

static int npa_sim_test_prepare(struct npa_npu_job *job)
{
	struct npa_sim_fixture *f = container_of(job, struct npa_sim_fixture,
						 job);

	f->prepared = true;
	return 0;
}

static void npa_sim_test_done(struct npa_npu_job *job)
{
	struct npa_sim_fixture *f = container_of(job, struct npa_sim_fixture,
						 job);

	/* True when a fence signalling section is open around us. */
	f->signalling = dma_fence_begin_signalling();
	dma_fence_end_signalling(f->signalling);
	complete(&f->done);
}

static const struct npa_npu_job_ops npa_sim_test_ops = {
	.prepare = npa_sim_test_prepare,
	.done = npa_sim_test_done,
};

static int npa_sim_res_init(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

/* Stop the NPU when the test ends, even after a failed assertion. */
static void npa_sim_res_free(struct kunit_resource *res)
{
	struct npa_sim_fixture *f = res->data;

	f->sim.npu.ops->fini(&f->sim.npu);
	f->sim.npu.ops->job_fini(&f->sim.npu, &f->job);
}

static struct npa_sim_fixture *npa_sim_fixture(struct kunit *test)
{
	struct npa_sim_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_EQ(test, npa_sim_init(&f->sim), 0);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, npa_sim_res_init,
							 npa_sim_res_free,
							 GFP_KERNEL, f));
	init_completion(&f->done);
	memset(f->src, 0x3c, sizeof(f->src));
	f->t = (struct npa_ir_tensor){ .dims = { 64 },
					 .dtype = NPA_IR_INT8 };
	f->op = (struct npa_ir_op){ .kind = NPA_IR_COPY, .num_in = 1,
				      .num_out = 1 };
	f->cmd = (struct npa_npu_cmd){ .op = &f->op, .num_in = 1, .num_out = 1 };
	f->operands[0] = (struct npa_npu_operand){ 0x20000000, 64, &f->t };
	f->operands[1] = (struct npa_npu_operand){ 0x30000000, 64, &f->t };
	/* Not sorted: the backend sorts them. */
	f->ranges[0] = (struct npa_npu_range){ 0x30000000, 64, f->dst };
	f->ranges[1] = (struct npa_npu_range){ 0x20000000, 64, f->src };
	f->job = (struct npa_npu_job){
		.ops = &npa_sim_test_ops, .cmds = &f->cmd, .num_cmds = 1,
		.operands = f->operands, .ranges = f->ranges, .num_ranges = 2,
		.timeout_ns = NPA_NPU_DEFAULT_TIMEOUT_NS,
		.fault_cmd = NPA_NPU_CMD_NONE,
	};
	INIT_LIST_HEAD(&f->job.node);
	return f;
}

static void npa_sim_test_run(struct kunit *test, struct npa_sim_fixture *f)
{
	KUNIT_ASSERT_EQ(test, f->sim.npu.ops->job_init(&f->sim.npu, &f->job), 0);
	KUNIT_ASSERT_NOT_NULL(test, f->job.priv);
	f->sim.npu.ops->queue(&f->sim.npu, &f->job);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&f->done, 10 * HZ),
			0UL);
}

static void npa_sim_test_copy(struct kunit *test)
{
	struct npa_sim_fixture *f = npa_sim_fixture(test);

	npa_sim_test_run(test, f);
	KUNIT_EXPECT_EQ(test, f->job.status, (u32)NPA_NPU_DONE);
	KUNIT_EXPECT_TRUE(test, f->prepared);
	KUNIT_EXPECT_NE(test, f->job.start_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, memcmp(f->dst, f->src, sizeof(f->dst)), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&f->sim.npu.jobs_done), 1LL);
}

/*
 * A job ends inside a fence signalling section, so that lockdep checks
 * what its owner's done callback does; without lockdep every section
 * reads as open.
 */
static void npa_sim_test_done_signalling(struct kunit *test)
{
	struct npa_sim_fixture *f = npa_sim_fixture(test);

	if (!IS_ENABLED(CONFIG_LOCKDEP))
		kunit_skip(test, "needs CONFIG_LOCKDEP");
	npa_sim_test_run(test, f);
	KUNIT_EXPECT_TRUE(test, f->signalling);
}

/* The job's cycles are its commands' estimates: the owner's, not timed. */
static void npa_sim_test_cycles(struct kunit *test)
{
	struct npa_sim_fixture *f = npa_sim_fixture(test);

	f->cmd.cycles = 123456789;
	npa_sim_test_run(test, f);
	KUNIT_EXPECT_EQ(test, f->job.status, (u32)NPA_NPU_DONE);
	KUNIT_EXPECT_EQ(test, f->job.cycles, 123456789ULL);
	KUNIT_EXPECT_EQ(test, f->job.fault_cmd, (u32)NPA_NPU_CMD_NONE);
}

/* One byte past its range: a fault at that address, nothing written. */
static void npa_sim_test_fault(struct kunit *test)
{
	struct npa_sim_fixture *f = npa_sim_fixture(test);

	f->operands[1].va = 0x30000001;
	f->cmd.cycles = 1000;
	npa_sim_test_run(test, f);
	KUNIT_EXPECT_EQ(test, f->job.status, (u32)NPA_NPU_FAULT);
	KUNIT_EXPECT_EQ(test, f->job.fault_cmd, 0U);
	/* The command never ran: it costs nothing. */
	KUNIT_EXPECT_EQ(test, f->job.cycles, 0ULL);
	KUNIT_EXPECT_EQ(test, f->job.fault_addr, 0x30000001ULL);
	KUNIT_EXPECT_EQ(test, f->dst[0], 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&f->sim.npu.jobs_failed), 1LL);
}

/* Queue the job behind the runner's back and cancel it there. */
static void npa_sim_test_cancel(struct kunit *test, struct npa_sim_fixture *f)
{
	/* Hold the runner: the job stays queued until it is cancelled. */
	spin_lock(&f->sim.lock);
	list_add_tail(&f->job.node, &f->sim.queue);
	f->job.cancel = true;
	spin_unlock(&f->sim.lock);
	f->sim.npu.ops->cancel(&f->sim.npu);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&f->done, 10 * HZ),
			0UL);
	KUNIT_EXPECT_EQ(test, f->job.status, (u32)NPA_NPU_ABORTED);
}

/* Cancelled before it runs: it ends aborted, never prepared. */
static void npa_sim_test_cancel_queued(struct kunit *test)
{
	struct npa_sim_fixture *f = npa_sim_fixture(test);

	npa_sim_test_cancel(test, f);
	KUNIT_EXPECT_FALSE(test, f->prepared);
	KUNIT_EXPECT_EQ(test, f->dst[0], 0);
}

/* Ended by the cancel, in its caller's context: still inside a section. */
static void npa_sim_test_cancel_signalling(struct kunit *test)
{
	struct npa_sim_fixture *f = npa_sim_fixture(test);

	if (!IS_ENABLED(CONFIG_LOCKDEP))
		kunit_skip(test, "needs CONFIG_LOCKDEP");
	npa_sim_test_cancel(test, f);
	KUNIT_EXPECT_TRUE(test, f->signalling);
}

static struct kunit_case npa_sim_test_cases[] = {
	KUNIT_CASE(npa_sim_test_copy),
	KUNIT_CASE(npa_sim_test_done_signalling),
	KUNIT_CASE(npa_sim_test_cycles),
	KUNIT_CASE(npa_sim_test_fault),
	KUNIT_CASE(npa_sim_test_cancel_queued),
	KUNIT_CASE(npa_sim_test_cancel_signalling),
	{}
};

static struct kunit_suite npa_sim_test_suite = {
	.name = "npa_sim",
	.test_cases = npa_sim_test_cases,
};

kunit_test_suite(npa_sim_test_suite);
