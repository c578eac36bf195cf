/* SPDX-License-Identifier: GPL-2.0 */
/* Host build shim: integer math helpers. */
#ifndef _NPA_TOOLS_LINUX_MATH_H
#define _NPA_TOOLS_LINUX_MATH_H

#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define round_up(x, y)		((((x) - 1) | ((typeof(x))(y) - 1)) + 1)
#define round_down(x, y)	((x) & ~((typeof(x))(y) - 1))
#define abs_diff(a, b)		((a) > (b) ? (a) - (b) : (b) - (a))

#endif
