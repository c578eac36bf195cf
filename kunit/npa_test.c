// SPDX-License-Identifier: GPL-2.0
/*
 * npa_test.ko: the npa KUnit suites, run when the module is loaded.
 *
 * The suites reach the driver's internals through the symbols npa.ko
 * exports with EXPORT_SYMBOL_IF_KUNIT(), in the
 * EXPORTED_FOR_KUNIT_TESTING namespace.
 */

#include <linux/module.h>

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests for the NPU arena allocator");
MODULE_LICENSE("GPL");
