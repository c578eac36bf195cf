/* SPDX-License-Identifier: GPL-2.0 */
/* Host build shim: no KUnit, no exports. */
#ifndef _NPA_TOOLS_KUNIT_VISIBILITY_H
#define _NPA_TOOLS_KUNIT_VISIBILITY_H

#define VISIBLE_IF_KUNIT static
#define EXPORT_SYMBOL_IF_KUNIT(symbol)

#endif
