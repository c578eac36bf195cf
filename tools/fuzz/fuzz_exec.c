// SPDX-License-Identifier: GPL-2.0
/*
 * npa fuzz target "exec": npa_exec_check() and npa_exec_op() on tiny
 * shapes, every operand in a buffer of exactly its size (so that ASan
 * sees any access outside it), and the shared-memory forms the planner
 * makes (in place, concat inputs inside the output, split outputs inside
 * the input, reshape views) checked against separate buffers.
 *
 * Input: [0] kind  [1] flags: bit 0 NPA_IR_INPLACE, bit 1 share memory
 * [2] inputs (1-4)  [3] outputs (1-4)  [4..11] params (s8)
 * [12..13] scratch[0] bytes (below 4096; 0: none), then 6 bytes per
 * operand: dtype, 4 dims (0-8), size mode; then the data.
 */
#include <linux/types.h>
#include <linux/errno.h>
#include "npa_ir.h"

#include "npa_exec.h"
#include "fuzz.h"

#define FZ_MAX_OPERANDS	4

static u64 fz_bytes_of(const struct npa_ir_tensor *t)
{
	static const u8 elem[NPA_IR_DTYPE_COUNT] = { 0, 1, 1, 2, 4 };
	u64 b;
	int i;

	if (t->size || !t->dtype || t->dtype >= NPA_IR_DTYPE_COUNT)
		return t->size;
	b = elem[t->dtype];
	for (i = 0; i < NPA_IR_MAX_DIMS && t->dims[i]; i++)
		b *= t->dims[i];
	return b;
}

struct fz_set {
	struct npa_exec_operand in[FZ_MAX_OPERANDS], out[FZ_MAX_OPERANDS];
	struct npa_exec_operand scratch;
	void *mem[2 * FZ_MAX_OPERANDS + 1];
};

static void *fz_alloc(u64 n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		abort();
	return p;
}

static void fz_free_set(struct fz_set *s)
{
	u32 i;

	for (i = 0; i < 2 * FZ_MAX_OPERANDS + 1; i++)
		free(s->mem[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct npa_ir_tensor t[2 * FZ_MAX_OPERANDS];
	const struct npa_ir_tensor *din[FZ_MAX_OPERANDS], *dout[FZ_MAX_OPERANDS];
	struct fz f = { .p = data, .n = size };
	struct npa_ir_op op = { };
	struct fz_set a = { }, b = { };
	u8 kind = fz_u8(&f), flags = fz_u8(&f);
	u32 nin = fz_u8(&f) % FZ_MAX_OPERANDS + 1;
	u32 nout = fz_u8(&f) % FZ_MAX_OPERANDS + 1;
	u32 i, k, nscr;
	u64 full, pixel, n, off;
	int check, ret;

	op.kind = kind % (NPA_IR_KIND_COUNT + 1);
	op.flags = flags & NPA_IR_INPLACE;
	op.num_in = nin;
	op.num_out = nout;
	for (i = 0; i < NPA_IR_MAX_PARAMS; i++)
		op.params[i] = (s8)fz_u8(&f);
	nscr = fz_u16(&f) % 4096;
	for (i = 0; i < nin + nout; i++) {
		u8 dtype = fz_u8(&f), mode;

		memset(&t[i], 0, sizeof(t[i]));
		t[i].dtype = dtype % (NPA_IR_DTYPE_COUNT + 1);
		for (k = 0; k < NPA_IR_MAX_DIMS; k++)
			t[i].dims[k] = fz_u8(&f) % 9;
		mode = fz_u8(&f);
		if (mode & 0x80)
			t[i].size = mode & 0x7f;
	}
	for (i = 0; i < nin; i++)
		din[i] = &t[i];
	for (i = 0; i < nout; i++)
		dout[i] = &t[nin + i];

	check = npa_exec_check(&op, din, nin, dout, nout);
	npa_exec_im2col_bytes(&op, din[0], dout[0], &full, &pixel);
	fz_log("exec kind %u: check %d, im2col %llu\n", op.kind, check,
	       (unsigned long long)full);

	/* Separate buffers, each exactly its tensor's size. */
	for (i = 0; i < nin; i++) {
		n = fz_bytes_of(din[i]);
		a.mem[i] = fz_alloc(n);
		fz_bytes(&f, a.mem[i], n);
		a.in[i] = (struct npa_exec_operand){ a.mem[i], n, din[i] };
	}
	for (i = 0; i < nout; i++) {
		n = fz_bytes_of(dout[i]);
		a.mem[nin + i] = fz_alloc(n);
		memset(a.mem[nin + i], 0x5a, n);
		a.out[i] = (struct npa_exec_operand){ a.mem[nin + i], n, dout[i] };
	}
	a.mem[2 * FZ_MAX_OPERANDS] = fz_alloc(nscr);
	a.scratch = (struct npa_exec_operand){ a.mem[2 * FZ_MAX_OPERANDS], nscr, NULL };
	ret = npa_exec_op(&op, a.in, nin, a.out, nout, &a.scratch, nscr ? 1 : 0);
	fz_assert(ret == check, "npa_exec_op() %d, npa_exec_check() %d", ret, check);
	if (ret || !(flags & 2))
		goto out;

	/* The same op on memory shared as the planner shares it. */
	b = a;
	memset(b.mem, 0, sizeof(b.mem));
	if (op.kind == NPA_IR_CONCAT) {
		b.mem[0] = fz_alloc(a.out[0].size);
		b.out[0].ptr = b.mem[0];
		for (i = 0, off = 0; i < nin; off += a.in[i].size, i++) {
			b.in[i].ptr = (u8 *)b.mem[0] + off;
			memcpy(b.in[i].ptr, a.in[i].ptr, a.in[i].size);
		}
	} else if (op.kind == NPA_IR_SPLIT) {
		b.mem[0] = fz_alloc(a.in[0].size);
		memcpy(b.mem[0], a.in[0].ptr, a.in[0].size);
		b.in[0].ptr = b.mem[0];
		for (i = 0, off = 0; i < nout; off += a.out[i].size, i++)
			b.out[i].ptr = (u8 *)b.mem[0] + off;
	} else if (((op.flags & NPA_IR_INPLACE) || op.kind == NPA_IR_RESHAPE ||
		    op.kind == NPA_IR_COPY) && a.in[0].size == a.out[0].size) {
		/* The output over a fresh copy of the first input. */
		for (i = 0; i < nin; i++) {
			b.mem[i] = fz_alloc(a.in[i].size);
			b.in[i].ptr = b.mem[i];
			memcpy(b.mem[i], a.in[i].ptr, a.in[i].size);
		}
		b.out[0].ptr = b.in[0].ptr;
	} else {
		goto out;
	}
	b.mem[2 * FZ_MAX_OPERANDS] = fz_alloc(nscr);
	b.scratch.ptr = b.mem[2 * FZ_MAX_OPERANDS];
	ret = npa_exec_op(&op, b.in, nin, b.out, nout, &b.scratch, nscr ? 1 : 0);
	fz_assert(!ret, "shared npa_exec_op() %d", ret);
	for (i = 0; i < nout; i++)
		fz_assert(!memcmp(a.out[i].ptr, b.out[i].ptr, a.out[i].size),
			  "output %u differs when memory is shared (kind %u)", i,
			  op.kind);
out:
	fz_free_set(&b);
	fz_free_set(&a);
	return 0;
}
