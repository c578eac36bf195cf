/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npa: tracepoints for the job life cycle.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM npa

#if !defined(__NPA_TRACE_H__) || defined(TRACE_HEADER_MULTI_READ)
#define __NPA_TRACE_H__

#include <linux/tracepoint.h>

TRACE_EVENT(npa_job_submit,
	    TP_PROTO(u64 seqno, u32 model, u32 num_bindings),
	    TP_ARGS(seqno, model, num_bindings),
	    TP_STRUCT__entry(__field(u64, seqno)
			     __field(u32, model)
			     __field(u32, num_bindings)),
	    TP_fast_assign(__entry->seqno = seqno;
			   __entry->model = model;
			   __entry->num_bindings = num_bindings;),
	    TP_printk("job=%llu model=%u bindings=%u", __entry->seqno,
		      __entry->model, __entry->num_bindings)
);

TRACE_EVENT(npa_job_start,
	    TP_PROTO(u64 seqno, u32 num_ops),
	    TP_ARGS(seqno, num_ops),
	    TP_STRUCT__entry(__field(u64, seqno)
			     __field(u32, num_ops)),
	    TP_fast_assign(__entry->seqno = seqno;
			   __entry->num_ops = num_ops;),
	    TP_printk("job=%llu ops=%u", __entry->seqno, __entry->num_ops)
);

/*
 * @op: NPA_JOB_OP_NONE, or the operator that faulted, refused its operands,
 * timed out or was stopped by a reset or cancel; @cycles: the cost model's
 * cycles of the operators that ran.
 */
TRACE_EVENT(npa_job_end,
	    TP_PROTO(u64 seqno, u32 status, u64 run_ns, u32 op, u64 cycles),
	    TP_ARGS(seqno, status, run_ns, op, cycles),
	    TP_STRUCT__entry(__field(u64, seqno)
			     __field(u32, status)
			     __field(u32, op)
			     __field(u64, run_ns)
			     __field(u64, cycles)),
	    TP_fast_assign(__entry->seqno = seqno;
			   __entry->status = status;
			   __entry->op = op;
			   __entry->run_ns = run_ns;
			   __entry->cycles = cycles;),
	    TP_printk("job=%llu status=%u op=%d run_ns=%llu cycles=%llu",
		      __entry->seqno, __entry->status, (int)__entry->op,
		      __entry->run_ns, __entry->cycles)
);

#endif /* __NPA_TRACE_H__ */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE npa_trace
#include <trace/define_trace.h>
