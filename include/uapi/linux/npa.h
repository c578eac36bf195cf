/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * npa: NPU arena allocator, userspace API.
 *
 * Every ioctl takes one struct, sized by the ioctl number.  Structs only grow
 * at their end: the kernel accepts a shorter struct from older userspace
 * (missing fields read as zero) and a longer one from newer userspace as long
 * as the bytes it does not know are zero.  A struct that returns a handle or
 * fds (MODEL_CREATE, BUFFER_CREATE, JOB_SUBMIT) must reach the last of them,
 * else -EINVAL; if the result cannot be copied back (-EFAULT), nothing was
 * created.  Every argument struct has a flags word; every flag word has a
 * *_FLAGS_ALL mask of its valid bits (0 where none is defined yet).
 * Unknown flag bits, and reserved or padding fields that are not zero,
 * fail with -EINVAL.  Unknown ioctls fail with -ENOTTY.
 * Documentation/uapi.rst lists each ioctl's errnos.  MODEL_CREATE and
 * JOB_SUBMIT also say what they refused in a struct npa_error.
 */
#ifndef _UAPI_LINUX_NPA_H
#define _UAPI_LINUX_NPA_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define NPA_DEVICE_NAME		"npa0"

#define NPA_VERSION_MAJOR	3
#define NPA_VERSION_MINOR	6
#define NPA_VERSION_PATCH	0

/* Capabilities reported by NPA_IOCTL_QUERY in &npa_query.caps. */
/* The driver plans tensor arenas (always set). */
#define NPA_CAP_PLAN		(1ULL << 0)
/* Model graphs: NPA_IOCTL_MODEL_CREATE, _PLAN and _DESTROY. */
#define NPA_CAP_MODEL		(1ULL << 1)
/* Buffers and jobs on the (simulated) NPU. */
#define NPA_CAP_JOBS		(1ULL << 2)
#define NPA_CAPS_ALL		(NPA_CAP_PLAN | NPA_CAP_MODEL | NPA_CAP_JOBS)

/**
 * struct npa_query - driver version, capabilities and limits
 * @flags: in: must be zero; no flags are defined yet.
 * @version_major: out: NPA_VERSION_MAJOR of the running driver.
 * @version_minor: out: NPA_VERSION_MINOR of the running driver.
 * @version_patch: out: NPA_VERSION_PATCH of the running driver.
 * @caps: out: mask of NPA_CAP_* bits.
 * @carveout_bytes: out: size of the DMA carveout, 0 when there is none.
 * @reserved: in: must be zero; out: zero.
 * @max_tensors: out: most tensors one graph may have.
 * @max_ops: out: most operators one graph may have.
 * @max_operands: out: most operand ids one graph may have.
 * @max_scratch: out: most scratch requests one graph may have.
 * @unit_align: out: byte alignment each enum npa_unit needs of the tensors
 *	it touches.
 * @fast_window_bytes: out: size of the fast window at the start of the
 *	arena that latency-critical scratch prefers (0: none).
 * @max_tensor_bytes: out: largest tensor or scratch buffer.
 * @carveout_used_bytes: out: bytes of the carveout in use.
 * @shared_arena_bytes: out: the shared activation arena (one per queue).
 * @private_arena_bytes: out: sum of the private arenas.
 * @arena_need_private_bytes: out: what the models' arenas would take with
 *	a private arena each.
 * @jobs_done: out: jobs completed since load.
 * @jobs_failed: out: jobs that ended in a fault, timeout or abort.
 */
struct npa_query {
	__u32 flags;
	__u32 version_major;
	__u32 version_minor;
	__u32 version_patch;
	__u64 caps;
	__u64 carveout_bytes;
	__u64 reserved[4];
	__u32 max_tensors;
	__u32 max_ops;
	__u32 max_operands;
	__u32 max_scratch;
	__u32 unit_align[4];
	__u64 fast_window_bytes;
	__u64 max_tensor_bytes;
	__u64 carveout_used_bytes;
	__u64 shared_arena_bytes;
	__u64 private_arena_bytes;
	__u64 arena_need_private_bytes;
	__u64 jobs_done;
	__u64 jobs_failed;
};

#define NPA_QUERY_FLAGS_ALL	0

/* Element types of &npa_tensor_desc.dtype. */
enum npa_dtype {
	NPA_DTYPE_NONE = 0,	/* size given in bytes, no shape */
	NPA_DTYPE_INT8 = 1,
	NPA_DTYPE_UINT8 = 2,
	NPA_DTYPE_INT16 = 3,
	NPA_DTYPE_INT32 = 4,
	NPA_DTYPE_COUNT,
};

/*
 * &npa_tensor_desc.flags.  A tensor with any of the four is not in the
 * arena: every NPA_IOCTL_JOB_SUBMIT binds it to a user buffer.
 */
/* A model input. */
#define NPA_TENSOR_INPUT	(1U << 0)
/* A model output. */
#define NPA_TENSOR_OUTPUT	(1U << 1)
/* Constant data (weights): no op may write it. */
#define NPA_TENSOR_CONST	(1U << 2)
/* State: kept from one job to the next in the buffer it is bound to. */
#define NPA_TENSOR_PERSISTENT	(1U << 3)
#define NPA_TENSOR_FLAGS_ALL	(0xfU)

#define NPA_MAX_DIMS		4

/**
 * struct npa_tensor_desc - one tensor of a graph
 * @size: bytes; 0 means computed from @dims and @dtype.  When both are
 *	given they must agree.
 * @dims: shape, outermost first; activations are NCHW (N, C, H, W) so
 *	that a channel concat or split is a byte range; unused trailing
 *	dims are 0.
 * @dtype: enum npa_dtype; NPA_DTYPE_NONE requires @size and all @dims 0.
 * @align: byte alignment the tensor needs, a power of two, or 0 for the
 *	device default.  The strictest alignment of the compute units that
 *	touch the tensor (see &npa_query.unit_align) is applied on top.
 * @flags: NPA_TENSOR_* bits.
 * @pad: must be zero.
 */
struct npa_tensor_desc {
	__u64 size;
	__u32 dims[NPA_MAX_DIMS];
	__u32 dtype;
	__u32 align;
	__u32 flags;
	__u32 pad;
};

/*
 * Operator kinds.  The simulated NPU executes all of them with integer
 * arithmetic; Documentation/uapi.rst lists the inputs and outputs of each,
 * Documentation/npu.rst its parameters and what it computes.
 */
enum npa_op_kind {
	NPA_OP_CONV2D = 1,	/* in: x, weights[, bias]; out: y */
	NPA_OP_DWCONV2D = 2,	/* depthwise convolution, same operands */
	NPA_OP_MAXPOOL = 3,
	NPA_OP_AVGPOOL = 4,
	NPA_OP_ADD = 5,		/* in: a, b; out: y */
	NPA_OP_MUL = 6,
	NPA_OP_ACTIVATION = 7,	/* in: x; out: y; may run in place */
	NPA_OP_CONCAT = 8,	/* in: x0..xn; out: y; inputs live inside y */
	NPA_OP_RESHAPE = 9,	/* in: x; out: y; y is x's memory */
	NPA_OP_SPLIT = 10,	/* in: x; out: y0..yn; each yk is part of x */
	NPA_OP_UPSAMPLE = 11,
	NPA_OP_COPY = 12,
	NPA_OP_FC = 13,		/* fully connected: in: x, weights[, bias] */
	NPA_OP_REORG = 14,	/* space to depth */
	NPA_OP_KIND_COUNT,
};

/* Compute units, for &npa_op_desc.unit and &npa_query.unit_align. */
enum npa_unit {
	NPA_UNIT_NPU = 0,
	NPA_UNIT_DMA = 1,
	NPA_UNIT_CPU = 2,
	NPA_UNIT_COUNT,
};

/* &npa_op_desc.flags */
/* The op may overwrite its first input with its output (e.g. ReLU). */
#define NPA_OP_INPLACE		(1U << 0)
#define NPA_OP_FLAGS_ALL	(0x1U)

#define NPA_OP_MAX_PARAMS	8

/*
 * &npa_op_desc.params, by kind.  Arithmetic is integer: int8 activations
 * and weights, int32 bias and accumulators; a result is
 * clamp((acc + bias) >> shift, -128, 127).
 */
/* CONV2D, DWCONV2D, MAXPOOL, AVGPOOL */
#define NPA_P_KH	0	/* kernel height */
#define NPA_P_KW	1	/* kernel width */
#define NPA_P_SH	2	/* stride height */
#define NPA_P_SW	3	/* stride width */
#define NPA_P_PAD_T	4	/* padding rows above */
#define NPA_P_PAD_L	5	/* padding columns left */
#define NPA_P_GROUPS	6	/* CONV2D: channel groups (0 means 1) */
#define NPA_P_SHIFT	7	/* CONV2D, DWCONV2D, FC, AVGPOOL, ADD, MUL */
/* ACTIVATION */
#define NPA_P_ACT	0	/* enum npa_act */
/* UPSAMPLE, REORG */
#define NPA_P_STRIDE	0	/* scale factor / block size */

/* Activation functions, for params[NPA_P_ACT]. */
enum npa_act {
	NPA_ACT_LINEAR = 0,
	NPA_ACT_RELU = 1,
	NPA_ACT_LEAKY = 2,	/* x < 0: x / 8 (arithmetic shift) */
	NPA_ACT_LOGISTIC = 3,	/* table-driven int8 logistic */
	NPA_ACT_COUNT,
};

/**
 * struct npa_op_desc - one operator; operators run in array order
 * @kind: enum npa_op_kind.
 * @unit: enum npa_unit that executes it.
 * @flags: NPA_OP_* bits.
 * @first_input: index of the first input id in the operand array.
 * @num_inputs: number of inputs.
 * @first_output: index of the first output id in the operand array.
 * @num_outputs: number of outputs.
 * @first_scratch: index of the first scratch request in the scratch array.
 * @num_scratch: number of scratch requests.
 * @pad: must be zero.
 * @params: per-kind parameters (kernel size, stride, ...), NPA_P_*; see
 *	Documentation/npu.rst.
 */
struct npa_op_desc {
	__u32 kind;
	__u32 unit;
	__u32 flags;
	__u32 first_input;
	__u32 num_inputs;
	__u32 first_output;
	__u32 num_outputs;
	__u32 first_scratch;
	__u32 num_scratch;
	__u32 pad;
	__s32 params[NPA_OP_MAX_PARAMS];
};

/* &npa_scratch_desc.flags */
/* Variable size: any size from @min_size up to @size will do. */
#define NPA_SCRATCH_VARIABLE	(1U << 0)
/* Latency critical: prefer the device's fast window. */
#define NPA_SCRATCH_LATENCY	(1U << 1)
#define NPA_SCRATCH_FLAGS_ALL	(0x3U)

/**
 * struct npa_scratch_desc - a scratch buffer an operator needs while it runs
 * @size: bytes wanted (for a variable request: the most it can use).
 * @min_size: variable requests: the least it can work with; else 0.
 * @align: power of two, or 0 for the op's unit alignment.
 * @flags: NPA_SCRATCH_* bits.
 */
struct npa_scratch_desc {
	__u64 size;
	__u64 min_size;
	__u32 align;
	__u32 flags;
};

/**
 * enum npa_err_array - the array of a request a &struct npa_error points into
 * @NPA_ERR_ARRAY_ARGS: the ioctl's argument struct itself (@index is 0).
 * @NPA_ERR_ARRAY_TENSORS: &npa_model_create.tensors.
 * @NPA_ERR_ARRAY_OPS: &npa_model_create.ops.
 * @NPA_ERR_ARRAY_OPERANDS: &npa_model_create.operands.
 * @NPA_ERR_ARRAY_SCRATCH: &npa_model_create.scratch.
 * @NPA_ERR_ARRAY_BINDINGS: &npa_job_submit.bindings.
 * @NPA_ERR_ARRAY_PLAN_TENSORS: &npa_model_create.plan_tensors.
 * @NPA_ERR_ARRAY_PLAN_SCRATCH: &npa_model_create.plan_scratch.
 */
enum npa_err_array {
	NPA_ERR_ARRAY_ARGS = 0,
	NPA_ERR_ARRAY_TENSORS = 1,
	NPA_ERR_ARRAY_OPS = 2,
	NPA_ERR_ARRAY_OPERANDS = 3,
	NPA_ERR_ARRAY_SCRATCH = 4,
	NPA_ERR_ARRAY_BINDINGS = 5,
	NPA_ERR_ARRAY_PLAN_TENSORS = 6,
	NPA_ERR_ARRAY_PLAN_SCRATCH = 7,
	NPA_ERR_ARRAY_COUNT,
};

/*
 * enum npa_err_field - the field of the element (or of the argument) that
 * a &struct npa_error blames; named as in the structs of this header.
 * NPA_ERR_FIELD_ID is an element of the operands array itself, a tensor id;
 * NPA_ERR_FIELD_SIZE, _DTYPE and _DIMS of an element of the operands array
 * are those of the tensor it names, wrong for that operand of its op
 * (since 3.4; before, npa_exec_check() refusals all blamed the op's params).
 */
enum npa_err_field {
	NPA_ERR_FIELD_NONE = 0,
	NPA_ERR_FIELD_FLAGS = 1,
	NPA_ERR_FIELD_PAD = 2,		/* pad or reserved */
	NPA_ERR_FIELD_SIZE = 3,
	NPA_ERR_FIELD_MIN_SIZE = 4,
	NPA_ERR_FIELD_DIMS = 5,
	NPA_ERR_FIELD_DTYPE = 6,
	NPA_ERR_FIELD_ALIGN = 7,
	NPA_ERR_FIELD_KIND = 8,
	NPA_ERR_FIELD_UNIT = 9,
	NPA_ERR_FIELD_PARAMS = 10,
	NPA_ERR_FIELD_FIRST_INPUT = 11,
	NPA_ERR_FIELD_NUM_INPUTS = 12,
	NPA_ERR_FIELD_FIRST_OUTPUT = 13,
	NPA_ERR_FIELD_NUM_OUTPUTS = 14,
	NPA_ERR_FIELD_FIRST_SCRATCH = 15,
	NPA_ERR_FIELD_NUM_SCRATCH = 16,
	NPA_ERR_FIELD_ID = 17,
	NPA_ERR_FIELD_NUM_TENSORS = 18,
	NPA_ERR_FIELD_NUM_OPS = 19,
	NPA_ERR_FIELD_NUM_OPERANDS = 20,
	NPA_ERR_FIELD_TENSOR_SIZE = 21,
	NPA_ERR_FIELD_OP_SIZE = 22,
	NPA_ERR_FIELD_SCRATCH_SIZE = 23,
	NPA_ERR_FIELD_BUDGET = 24,
	NPA_ERR_FIELD_ERROR_SIZE = 25,
	NPA_ERR_FIELD_MODEL = 26,
	NPA_ERR_FIELD_NUM_BINDINGS = 27,
	NPA_ERR_FIELD_BINDING_SIZE = 28,
	NPA_ERR_FIELD_TIMEOUT_NS = 29,
	NPA_ERR_FIELD_FD = 30,
	NPA_ERR_FIELD_OFFSET = 31,
	NPA_ERR_FIELD_PLAN_SIZE = 32,
	NPA_ERR_FIELD_COUNT,
};

/*
 * enum npa_err_reason - why a &struct npa_error's field was refused, and
 * what its @value and @expected hold (0 where nothing is said).
 */
enum npa_err_reason {
	NPA_ERR_NONE = 0,		/* nothing to blame: no memory, a fault */
	NPA_ERR_NOT_ZERO = 1,		/* must be 0: value */
	NPA_ERR_UNKNOWN_FLAGS = 2,	/* value: the flags; expected: the valid ones */
	NPA_ERR_FLAG_CONFLICT = 3,	/* value: the flags; e.g. CONST with INPUT */
	NPA_ERR_BAD_VALUE = 4,		/* not one the field may take: value */
	NPA_ERR_BAD_ALIGN = 5,		/* not a power of two up to expected: value */
	NPA_ERR_BAD_SHAPE = 6,		/* a 0 dim before a non-zero one, or dims without a dtype */
	NPA_ERR_NO_SIZE = 7,		/* neither a size nor a shape */
	NPA_ERR_SIZE_MISMATCH = 8,	/* value bytes where expected bytes are needed */
	NPA_ERR_TOO_BIG = 9,		/* value above the limit expected */
	NPA_ERR_OVERFLOW = 10,		/* size arithmetic overflows 64 bits */
	NPA_ERR_OUT_OF_RANGE = 11,	/* an index or range ending at value, past expected */
	NPA_ERR_ARITY = 12,		/* value inputs or outputs, wrong for the kind */
	NPA_ERR_TWO_PRODUCERS = 13,	/* the tensor is written by two ops; value: the first */
	NPA_ERR_WRITES_INPUT = 14,	/* an op writes a model input or a constant */
	NPA_ERR_NOT_PRODUCED = 15,	/* read, or a model output, but no op writes it */
	NPA_ERR_CYCLE = 16,		/* read at or before the op that writes it: value */
	NPA_ERR_SCRATCH_SHARED = 17,	/* a scratch request of two ops; value: the first */
	NPA_ERR_SCRATCH_UNOWNED = 18,	/* a scratch request of no op */
	NPA_ERR_NOT_EXECUTABLE = 19,	/* the NPU cannot run the op on these shapes and params */
	NPA_ERR_NOT_RUNNABLE = 20,	/* JOB_SUBMIT: the model has tensors without shapes */
	NPA_ERR_READ_ONLY = 21,		/* a written tensor bound to a read-only dma-buf */
	NPA_ERR_DOES_NOT_FIT = 22,	/* value bytes from offset; the buffer has expected */
	NPA_ERR_WRONG_COUNT = 23,	/* value elements where expected are needed */
	NPA_ERR_MISALIGNED = 24,	/* value is not a multiple of expected */
	NPA_ERR_NOT_SHARED = 25,	/* value, but the tensor shares memory at expected */
	NPA_ERR_OVERLAP = 26,		/* overlaps element value of array expected, both live */
	NPA_ERR_OPERAND_MISMATCH = 27,	/* dtype or first wrong dim: value; needs expected */
	NPA_ERR_REASON_COUNT,
};

/* &npa_error.op, &npa_error.tensor and &npa_error.dim when none is concerned. */
#define NPA_ERR_NO_INDEX	0xffffffffU

/**
 * struct npa_error - what MODEL_CREATE or JOB_SUBMIT refused
 * @array: enum npa_err_array.
 * @index: the element of @array.
 * @field: enum npa_err_field of that element.
 * @reason: enum npa_err_reason.
 * @value: the value found (see enum npa_err_reason).
 * @expected: the value, limit or size it needed (see enum npa_err_reason).
 * @op: the operator concerned (the element's op, or the op that names an
 *	operand or scratch request), else %NPA_ERR_NO_INDEX.
 * @tensor: the tensor concerned (an operand's, a binding's), else
 *	%NPA_ERR_NO_INDEX.
 * @dim: for @field %NPA_ERR_FIELD_DIMS, the index in &npa_tensor_desc.dims
 *	of the dim blamed (the first one that differs, is 0 where it may
 *	not be, or makes the size overflow), else %NPA_ERR_NO_INDEX.  Since
 *	3.6.0.
 * @pad: zero.
 *
 * Written, when the ioctl fails and its @error pointer is set, with
 * whatever the kernel knows: @reason %NPA_ERR_NONE when no field is to
 * blame (-ENOMEM, -EFAULT, a full file).  libnpa's npa_error_str() puts it
 * in words.
 *
 * The report grows at its end like an array element: the kernel writes
 * the first @error_size bytes of its own and zeroes any bytes after its
 * own, so a report of 40 bytes (the struct before 3.6.0, up to @tensor)
 * gets no @dim and nothing past it is written.  A driver older than 3.6.0
 * zeroes @dim of a 48-byte report: check &npa_query.version_minor (or
 * use libnpa, which does) before reading it.
 */
struct npa_error {
	__u32 array;
	__u32 index;
	__u32 field;
	__u32 reason;
	__u64 value;
	__u64 expected;
	__u32 op;
	__u32 tensor;
	__u32 dim;
	__u32 pad;
};

/**
 * enum npa_plan_kind - what &npa_model_create.arena_bytes is worth
 * @NPA_PLAN_KIND_EMPTY: no tensor lives in the arena (only scratch, if any).
 * @NPA_PLAN_KIND_AT_BOUND: the tensors take exactly
 *	&npa_model_create.lower_bound_bytes: no plan of them is smaller.
 * @NPA_PLAN_KIND_ABOVE_BOUND: the best plan the planner found within its
 *	budget; a larger budget may find a smaller one.
 * @NPA_PLAN_KIND_SUPPLIED: userspace supplied the plan
 *	(%NPA_MODEL_SUPPLIED_PLAN) and the kernel verified it.
 *
 * Which of its algorithms the planner used is not part of the interface
 * (debugfs ``models`` names it, for developers).
 */
enum npa_plan_kind {
	NPA_PLAN_KIND_EMPTY = 0,
	NPA_PLAN_KIND_AT_BOUND = 1,
	NPA_PLAN_KIND_ABOVE_BOUND = 2,
	NPA_PLAN_KIND_SUPPLIED = 3,
};

/* &npa_model_create.flags */
/* Keep a private activation arena: never wait for other models' jobs. */
#define NPA_MODEL_PRIVATE_ARENA	(1U << 0)
/*
 * Do not plan: take the plan in @plan_tensors and @plan_scratch (from
 * NPA_IOCTL_MODEL_PLAN, `npactl plan --out` or an offline compiler) once
 * the kernel has verified it.
 */
#define NPA_MODEL_SUPPLIED_PLAN	(1U << 1)
#define NPA_MODEL_CREATE_FLAGS_ALL	(0x3U)

/**
 * struct npa_model_create - NPA_IOCTL_MODEL_CREATE argument
 *
 * Arrays are passed as a user pointer, an element count and the element
 * size userspace was built with; the kernel accepts smaller (older) and
 * larger (newer, unknown tail zero) elements.
 *
 * @tensors: in: pointer to struct npa_tensor_desc[@num_tensors].
 * @ops: in: pointer to struct npa_op_desc[@num_ops].
 * @operands: in: pointer to __u32 tensor ids, indexed by the ops.
 * @scratch: in: pointer to struct npa_scratch_desc[@num_scratch].
 * @num_tensors: in: at most &npa_query.max_tensors.
 * @tensor_size: in: sizeof(struct npa_tensor_desc).
 * @num_ops: in: at most &npa_query.max_ops.
 * @op_size: in: sizeof(struct npa_op_desc).
 * @num_operands: in: at most &npa_query.max_operands; the ops' operand
 *	ranges may overlap, but name at most that many ids in all.
 * @num_scratch: in: at most &npa_query.max_scratch.
 * @scratch_size: in: sizeof(struct npa_scratch_desc).
 * @flags: in: NPA_MODEL_* bits.
 * @budget: in: planner work budget in units of work (about one placement
 *	each; Documentation/planner.rst), 0 for the default (2^21); at most
 *	2^24 (-EINVAL above).  The plan depends on the graph and the budget
 *	alone, and a larger budget never gives a larger arena.
 * @handle: out: model handle, valid on this open file only.
 * @plan_kind: out: enum npa_plan_kind: how good the tensor plan is.
 * @arena_bytes: out: arena size with scratch.
 * @tensor_bytes: out: arena size of the tensors alone.
 * @lower_bound_bytes: out: max over time of live tensor bytes.
 * @naive_bytes: out: sum of the arena tensors' sizes.
 * @scratch_requested_bytes: out: sum of the scratch sizes granted.
 * @scratch_growth_bytes: out: arena growth caused by scratch.
 * @scratch_growth_naive_bytes: out: growth if scratch were stacked above
 *	the tensors (max over ops of the op's scratch).
 * @plan_ns: out: time spent planning.
 * @num_buffers: out: tensors placed in the arena after sharing.
 * @reserved: must be zero.
 * @error: in: pointer to a struct npa_error the kernel fills when the
 *	call fails, or 0.
 * @error_size: in: sizeof(struct npa_error) (48; 40 before 3.6.0), or 0
 *	without @error; with @error, 1 to 256.
 * @pad: must be zero.
 * @plan_tensors: in: with %NPA_MODEL_SUPPLIED_PLAN, pointer to struct
 *	npa_placement[@num_tensors]: the offset of every tensor that lives
 *	in the arena (the others' are not read); tensors the kernel shares
 *	(RESHAPE, SPLIT, CONCAT, in place) where the sharing puts them, as
 *	NPA_IOCTL_MODEL_PLAN reports them.  Else 0.
 * @plan_scratch: in: with %NPA_MODEL_SUPPLIED_PLAN, pointer to struct
 *	npa_placement[@num_scratch]: every scratch grant's offset and size.
 * @plan_size: in: sizeof(struct npa_placement) with
 *	%NPA_MODEL_SUPPLIED_PLAN, else 0.
 * @reserved2: must be zero.
 */
struct npa_model_create {
	__u64 tensors;
	__u64 ops;
	__u64 operands;
	__u64 scratch;
	__u32 num_tensors;
	__u32 tensor_size;
	__u32 num_ops;
	__u32 op_size;
	__u32 num_operands;
	__u32 num_scratch;
	__u32 scratch_size;
	__u32 flags;
	__u64 budget;
	__u32 handle;
	__u32 plan_kind;
	__u64 arena_bytes;
	__u64 tensor_bytes;
	__u64 lower_bound_bytes;
	__u64 naive_bytes;
	__u64 scratch_requested_bytes;
	__u64 scratch_growth_bytes;
	__u64 scratch_growth_naive_bytes;
	__u64 plan_ns;
	__u32 num_buffers;
	__u32 reserved;
	__u64 error;
	__u32 error_size;
	__u32 pad;
	__u64 plan_tensors;
	__u64 plan_scratch;
	__u32 plan_size;
	__u32 reserved2;
};

/**
 * struct npa_placement - where one tensor or scratch buffer lives
 * @offset: byte offset in the model's arena, or (for tensors outside the
 *	arena) in its own place; ~0ULL for a tensor that has none.
 * @size: bytes.
 * @lo: first op step at which it is live.
 * @hi: first op step after the last one it is live (half-open).
 * @buffer: index of the arena buffer it shares (tensors that share
 *	memory through in-place or concat have the same index), or ~0U.
 * @flags: NPA_PLACEMENT_* bits.
 */
struct npa_placement {
	__u64 offset;
	__u64 size;
	__u32 lo;
	__u32 hi;
	__u32 buffer;
	__u32 flags;
};

/* &npa_placement.flags */
#define NPA_PLACEMENT_ARENA	(1U << 0)	/* in the activation arena */
#define NPA_PLACEMENT_SCRATCH	(1U << 1)	/* a scratch buffer */
#define NPA_PLACEMENT_FAST	(1U << 2)	/* inside the fast window */

/**
 * struct npa_model_plan - NPA_IOCTL_MODEL_PLAN argument
 * @handle: in: model handle.
 * @flags: in: must be zero (%NPA_MODEL_PLAN_FLAGS_ALL).
 * @tensors: in: pointer to struct npa_placement[@num_tensors], or 0 to
 *	only learn the counts.
 * @scratch: in: pointer to struct npa_placement[@num_scratch], or 0.
 * @num_tensors: in: room in @tensors; out: the model's tensor count.
 * @num_scratch: in: room in @scratch; out: the model's scratch count.
 * @placement_size: in: sizeof(struct npa_placement).
 * @pad: must be zero.
 * @bound: in: pointer to struct npa_bound_tensor[@num_bound], or 0.
 *	(Since version 3.3.)
 * @num_bound: in: room in @bound; out: the model's number of bound
 *	tensors, which is what &npa_job_submit.num_bindings must be.
 * @bound_size: in: sizeof(struct npa_bound_tensor) with @bound, else 0.
 *
 * Fills min(room, count) entries of each array.
 */
struct npa_model_plan {
	__u32 handle;
	__u32 flags;
	__u64 tensors;
	__u64 scratch;
	__u32 num_tensors;
	__u32 num_scratch;
	__u32 placement_size;
	__u32 pad;
	__u64 bound;
	__u32 num_bound;
	__u32 bound_size;
};

/**
 * struct npa_bound_tensor - a tensor every job of a model binds to a buffer
 * @size: bytes the tensor takes in its buffer, from the binding's offset.
 * @tensor: its id in the graph.
 * @flags: its NPA_TENSOR_* flags: which of INPUT, OUTPUT, CONST and
 *	PERSISTENT it is (what the job reads, writes, or both).
 * @align: what the binding's &npa_binding.offset must be a multiple of:
 *	the tensor's &npa_tensor_desc.align and the &npa_query.unit_align of
 *	every unit that touches it.
 * @reserved: zero.
 *
 * NPA_IOCTL_MODEL_PLAN lists them in binding order: the order of
 * &npa_job_submit.bindings.
 */
struct npa_bound_tensor {
	__u64 size;
	__u32 tensor;
	__u32 flags;
	__u32 align;
	__u32 reserved;
};

#define NPA_MODEL_PLAN_FLAGS_ALL	0

/**
 * struct npa_model_destroy - NPA_IOCTL_MODEL_DESTROY argument
 * @handle: in: model handle.
 * @flags: in: must be zero (%NPA_MODEL_DESTROY_FLAGS_ALL).
 */
struct npa_model_destroy {
	__u32 handle;
	__u32 flags;
};

#define NPA_MODEL_DESTROY_FLAGS_ALL	0

/**
 * struct npa_buffer_create - NPA_IOCTL_BUFFER_CREATE argument
 * @size: in: bytes; rounded up to a page.  At most &npa_query.carveout_bytes.
 * @flags: in: must be zero (%NPA_BUFFER_CREATE_FLAGS_ALL).
 * @fd: out: a dma-buf fd (O_RDWR | O_CLOEXEC) for the zeroed buffer; mmap
 *	it and bracket CPU access with DMA_BUF_IOCTL_SYNC.
 * @reserved: must be zero.
 */
struct npa_buffer_create {
	__u64 size;
	__u32 flags;
	__s32 fd;
	__u64 reserved;
};

#define NPA_BUFFER_CREATE_FLAGS_ALL	0

/**
 * struct npa_binding - where a job finds one bound tensor
 * @fd: a dma-buf fd: from NPA_IOCTL_BUFFER_CREATE or any other exporter
 *	(udmabuf, a camera, ...).
 * @pad: must be zero.
 * @offset: byte offset of the tensor inside the buffer: a multiple of the
 *	tensor's alignment (its &npa_tensor_desc.align and the
 *	&npa_query.unit_align of every unit that touches it), as in the arena.
 */
struct npa_binding {
	__s32 fd;
	__u32 pad;
	__u64 offset;
};

/* &npa_job_submit.flags */
/* Also return a sync_file fence that signals when the job ends. */
#define NPA_JOB_FENCE		(1U << 0)
#define NPA_JOB_SUBMIT_FLAGS_ALL	(0x1U)

/**
 * struct npa_job_submit - NPA_IOCTL_JOB_SUBMIT argument
 * @model: in: model handle.
 * @flags: in: NPA_JOB_* bits.
 * @bindings: in: pointer to struct npa_binding[@num_bindings], one per
 *	tensor flagged INPUT, OUTPUT, CONST or PERSISTENT, in tensor-id order
 *	(NPA_IOCTL_MODEL_PLAN lists them: &npa_model_plan.bound).
 * @num_bindings: in: must equal the model's number of such tensors.
 * @binding_size: in: sizeof(struct npa_binding).
 * @timeout_ns: in: watchdog for this job; 0 for the device default (30 s);
 *	at most 300 s (-EINVAL above).
 * @job_fd: out: a pollable fd for the job (POLLIN when it has ended);
 *	pass it to NPA_IOCTL_JOB_WAIT; close it when done.
 * @fence_fd: out: a sync_file fd with NPA_JOB_FENCE, else -1.
 * @reserved: must be zero.
 * @error: in: pointer to a struct npa_error the kernel fills when the
 *	call fails, or 0.
 * @error_size: in: sizeof(struct npa_error) (48; 40 before 3.6.0), or 0
 *	without @error; with @error, 1 to 256.
 * @pad: must be zero.
 */
struct npa_job_submit {
	__u32 model;
	__u32 flags;
	__u64 bindings;
	__u32 num_bindings;
	__u32 binding_size;
	__u64 timeout_ns;
	__s32 job_fd;
	__s32 fence_fd;
	__u64 reserved;
	__u64 error;
	__u32 error_size;
	__u32 pad;
};

/* &npa_job_wait.status */
enum npa_job_status {
	NPA_JOB_QUEUED = 0,	/* not ended: JOB_WAIT gives -ETIME instead */
	NPA_JOB_RUNNING = 1,	/* likewise */
	NPA_JOB_DONE = 2,	/* completed; outputs are valid */
	NPA_JOB_FAULT = 3,	/* bad device address: see @fault_addr */
	NPA_JOB_TIMEOUT = 4,	/* the watchdog fired; the NPU was reset */
	NPA_JOB_ABORTED = 5,	/* cancelled, reset or could not run */
};

/* &npa_job_wait.op when no operator is to blame for how the job ended. */
#define NPA_JOB_OP_NONE		0xffffffffU

/**
 * struct npa_job_wait - NPA_IOCTL_JOB_WAIT argument
 * @job_fd: in: fd from NPA_IOCTL_JOB_SUBMIT.
 * @flags: in: must be zero (%NPA_JOB_WAIT_FLAGS_ALL).
 * @deadline_ns: in: absolute CLOCK_MONOTONIC time to give up at; 0 polls.
 * @status: out: enum npa_job_status.
 * @op: out: for a fault, the operator that faulted; for an operator that
 *	refused its operands (%NPA_JOB_ABORTED), that operator; for a
 *	timeout, the operator the NPU was in (or about to start) when the
 *	watchdog fired, and likewise for a running job a reset or cancel
 *	stopped; otherwise %NPA_JOB_OP_NONE.  (Before 3.2.0 a timeout
 *	reported %NPA_JOB_OP_NONE.)
 * @fault_addr: out: for a fault, the device address.
 * @submit_ns: out: CLOCK_MONOTONIC time of submission.
 * @start_ns: out: time the NPU started it (0 if it did not).
 * @end_ns: out: time it ended (0 if it did not).
 * @cycles: out: what the operators that ran to their end would take on
 *	the NPU the simulated one models, by its cost model
 *	(Documentation/npu.rst, "Cost model"): for a job that ended
 *	%NPA_JOB_DONE, the whole job's, the ``sim_cycles`` that
 *	``npactl plan --json`` estimates for the same graph and plan.  It
 *	does not depend on the clock.  Since 3.2.0; an older driver leaves
 *	it as the caller passed it (zero), the struct being 8 bytes longer.
 *
 * Returns 0 once the job has ended (the outputs are filled), -ETIME if
 * @deadline_ns passed first (nothing is filled), -EINTR if a signal
 * arrived (with SA_RESTART the call restarts, with the same deadline).
 *
 * %NPA_JOB_ABORTED means: JOB_CANCEL or closing the npa fd, a reset, or
 * the job could not run: no memory for its arena or its bookkeeping
 * (@start_ns is then set, nothing was written), or an operator refused
 * its operands at run time (@op).
 */
struct npa_job_wait {
	__s32 job_fd;
	__u32 flags;
	__s64 deadline_ns;
	__u32 status;
	__u32 op;
	__u64 fault_addr;
	__u64 submit_ns;
	__u64 start_ns;
	__u64 end_ns;
	__u64 cycles;
};

#define NPA_JOB_WAIT_FLAGS_ALL	0

/**
 * struct npa_job_cancel - NPA_IOCTL_JOB_CANCEL argument
 * @job_fd: in: fd from NPA_IOCTL_JOB_SUBMIT.
 * @flags: in: must be zero (%NPA_JOB_CANCEL_FLAGS_ALL).
 *
 * A queued job ends with NPA_JOB_ABORTED at once; a running one within
 * milliseconds, part way through its operator if need be.
 */
struct npa_job_cancel {
	__s32 job_fd;
	__u32 flags;
};

#define NPA_JOB_CANCEL_FLAGS_ALL	0

/*
 * The ioctl type: 0xB9, which no mainline driver uses (Linux 6.12's
 * Documentation/userspace-api/ioctl/ioctl-number.rst and uAPI headers;
 * 0xB8, npa's before version 2, is the Marvell CN10K DPI driver's).
 */
#define NPA_IOCTL_BASE		0xB9

#define NPA_IOCTL_QUERY		_IOWR(NPA_IOCTL_BASE, 0x00, struct npa_query)
#define NPA_IOCTL_MODEL_CREATE	_IOWR(NPA_IOCTL_BASE, 0x01, struct npa_model_create)
#define NPA_IOCTL_MODEL_PLAN	_IOWR(NPA_IOCTL_BASE, 0x02, struct npa_model_plan)
#define NPA_IOCTL_MODEL_DESTROY	_IOW(NPA_IOCTL_BASE, 0x03, struct npa_model_destroy)
#define NPA_IOCTL_BUFFER_CREATE	_IOWR(NPA_IOCTL_BASE, 0x04, struct npa_buffer_create)
#define NPA_IOCTL_JOB_SUBMIT	_IOWR(NPA_IOCTL_BASE, 0x05, struct npa_job_submit)
#define NPA_IOCTL_JOB_WAIT	_IOWR(NPA_IOCTL_BASE, 0x06, struct npa_job_wait)
#define NPA_IOCTL_JOB_CANCEL	_IOW(NPA_IOCTL_BASE, 0x07, struct npa_job_cancel)

#endif /* _UAPI_LINUX_NPA_H */
