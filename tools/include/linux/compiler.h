/* SPDX-License-Identifier: GPL-2.0 */
/* Host build shim: compiler attributes used by kernel code. */
#ifndef _NPA_TOOLS_LINUX_COMPILER_H
#define _NPA_TOOLS_LINUX_COMPILER_H

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif
#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif
#ifndef noinline
#define noinline	__attribute__((__noinline__))
#endif
#ifndef noinline_for_stack
#define noinline_for_stack noinline
#endif
#ifndef __maybe_unused
#define __maybe_unused	__attribute__((__unused__))
#endif
#ifndef __must_check
#define __must_check	__attribute__((__warn_unused_result__))
#endif
#ifndef fallthrough
#define fallthrough	__attribute__((__fallthrough__))
#endif
#ifndef READ_ONCE
#define READ_ONCE(x)	(*(const volatile typeof(x) *)&(x))
#endif
#ifndef WRITE_ONCE
#define WRITE_ONCE(x, v) (*(volatile typeof(x) *)&(x) = (v))
#endif

#endif
