# SPDX-License-Identifier: GPL-2.0
#
# npa: NPU arena allocator.  `make help` lists the targets.
#
# When invoked by kbuild (make -C KDIR M=...), only Kbuild matters; this
# Makefile is for humans and CI.

ROOT := $(CURDIR)
BUILD := $(ROOT)/build
NPA_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/npa
export NPA_CACHE

.PHONY: help deps kernel module module-stock kunit-module lib tools tests \
	install install-lib uninstall check demo deb clean

help:
	@echo "make demo          boot the Debian kernel in QEMU and run npa (start here;"
	@echo "                   NPA_KERNEL=6.12 boots Debian's 6.12 instead of 6.1)"
	@echo "make check         all stages: lint, stock, deb, host, fuzz, kunit, e2e, dt"
	@echo "                   (NPA_STAGES=\"host e2e\" runs only those)"
	@echo "make deps          install missing Debian packages (as root), else list them"
	@echo "make module        build/module/npa.ko against KDIR (default: the test kernel)"
	@echo "make module-stock  build/stock/npa.ko against Debian's linux-headers-amd64"
	@echo "                   (NPA_KERNEL=6.12: linux-headers-6.12-amd64)"
	@echo "make kunit-module  build/kunit/npa.ko and npa_test.ko, the KUnit suites"
	@echo "make kernel        build (once, cached in $(NPA_CACHE)) the test kernel"
	@echo "make lib           build/lib/libnpa and its headers in build/include"
	@echo "make tools         build/bin/npactl and libnpa"
	@echo "make tests         build/bin/npa_* test programs that run in QEMU"
	@echo "make install       libnpa, its headers and npactl into PREFIX (/usr/local)"
	@echo "make install-lib   libnpa and its headers only (no json-c needed)"
	@echo "make uninstall     remove what make install put into PREFIX"
	@echo "make deb           build/deb/*.deb: npa-dkms, libnpaN, libnpa-dev, npactl"
	@echo "make clean         remove build/"

deps:
	@tools/deps.sh

kernel: deps
	@tools/build-kernel.sh >/dev/null

ifeq ($(KDIR),)
module: kernel
	tools/kmod-build.sh $$(tools/build-kernel.sh) $(BUILD)/module
else
module:
	tools/kmod-build.sh $(KDIR) $(BUILD)/module
endif

module-stock: deps
	tools/kmod-build.sh $$(tools/stock-kernel.sh | cut -d' ' -f1) $(BUILD)/stock

kunit-module: kernel
	tools/kmod-build.sh $$(tools/build-kernel.sh) $(BUILD)/kunit CONFIG_NPA_KUNIT_TEST=m

lib:
	@$(MAKE) -s -C tools/lib OUT=$(BUILD)

tools: lib
	@if [ -f tools/Makefile ]; then $(MAKE) -s -C tools OUT=$(BUILD); fi

tests: lib
	@$(MAKE) -s -C tools/tests OUT=$(BUILD)

# PREFIX, LIBDIR, BINDIR and DESTDIR as usual.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
install: tools install-lib
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 $(BUILD)/bin/npactl $(DESTDIR)$(BINDIR)/

# libnpa alone: needs no json-c (only npactl does).
install-lib:
	@$(MAKE) -s -C tools/lib OUT=$(BUILD) PREFIX=$(PREFIX) install

uninstall:
	@$(MAKE) -s -C tools/lib OUT=$(BUILD) PREFIX=$(PREFIX) uninstall
	rm -f $(DESTDIR)$(BINDIR)/npactl

check: deps
	@tools/check.sh

demo: deps
	@tools/demo.sh

# Debian packages with Debian's tools, from a copy of the tree whose
# debian/changelog takes the version of include/uapi/linux/npa.h and whose
# library package the soname of tools/lib/Makefile (libnpaN for
# libnpa.so.N); then lintian, whose every remaining tag has its reason in
# an override.
DEB := $(BUILD)/deb
NPA_VERSION = $(shell sed -n 's/^\#define NPA_VERSION_[A-Z]*\t*\([0-9]*\)$$/\1/p' \
	include/uapi/linux/npa.h | paste -sd.)
NPA_SOVERSION = $(shell sed -n 's/^SONAME := libnpa\.so\.\([0-9]*\)$$/\1/p' tools/lib/Makefile)
deb: deps
	rm -rf $(DEB) && mkdir -p $(DEB)/npa
	rsync -a --exclude=/build --exclude=.git ./ $(DEB)/npa/
	sed -i '1s/([^)]*)/($(NPA_VERSION))/' $(DEB)/npa/debian/changelog
	cd $(DEB)/npa/debian && for f in libnpa[0-9]*; do \
		g=$$(echo $$f | sed 's/^libnpa[0-9]*/libnpa$(NPA_SOVERSION)/'); \
		[ $$f = $$g ] || mv $$f $$g || exit; \
	done && sed -i 's/\<libnpa[0-9][0-9]*\>/libnpa$(NPA_SOVERSION)/g' control libnpa[0-9]*
	cd $(DEB)/npa && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL dpkg-buildpackage -b -us -uc >../build.log 2>&1 || \
		{ tail -40 ../build.log; echo "deb: see $(DEB)/build.log"; exit 1; }
	lintian --info --display-info --pedantic --fail-on error,warning,info,pedantic \
		$(DEB)/npa_$(NPA_VERSION)_*.changes
	@ls $(DEB)/*.deb

clean:
	rm -rf $(BUILD)
