# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# archive-btf: libarchive-btf, cc-btf and btf-link.
#
#   make                 build everything into $(O) (default: build/)
#   make check           build, then run the quick tests (no kernel build)
#   make check-kernel    the tests that build and boot real kernels (CI's)
#   make check-lab       the kernel builds CI cannot afford (pahole, 6.12 gcc)
#   make check-san       the input-handling tests on an ASan + UBSan build
#   make check-upstream  the comparisons with upstream pahole (ABTF_LAB_PAHOLE)
#   make check-deb       what the Debian package build tests (debian/rules)
#   make install         install under $(DESTDIR)$(PREFIX)
#   make V=1             show the commands
#   make O=/tmp/b        build out of tree
#   make SANITIZE=1      build with ASan and UBSan (into build-san/ by default)
#   make deb             Debian source and binary packages into $(O)/deb/
#
# CFLAGS is the user's; the flags the build needs are kept apart in
# ABTF_CFLAGS so that overriding CFLAGS never breaks the build.

VERSION_MAJOR	:= 0
VERSION_MINOR	:= 1
VERSION_PATCH	:= 0
VERSION		:= $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)

PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
LIBDIR		?= $(PREFIX)/lib
INCLUDEDIR	?= $(PREFIX)/include
MANDIR		?= $(PREFIX)/share/man
PKGCONFIGDIR	?= $(LIBDIR)/pkgconfig

CC		?= cc
AR		?= ar
LD		?= ld
OBJCOPY		?= objcopy
PKG_CONFIG	?= pkg-config
INSTALL		?= install
CFLAGS		?= -g -O2

ifeq ($(SANITIZE),1)
O		?= build-san
SAN_FLAGS	:= -fsanitize=address,undefined -fno-omit-frame-pointer \
		   -fno-sanitize-recover=all
else
O		?= build
SAN_FLAGS	:=
endif
OUT		:= $(abspath $(O))

ifneq ($(V),1)
Q		:= @
msg		= @printf '  %-8s %s\n' "$(1)" "$(patsubst $(OUT)/%,%,$(2))";
else
Q		:=
msg		=
endif

DEPS_PC		:= libbpf libdw libelf zlib
DEPS_CFLAGS	:= $(shell $(PKG_CONFIG) --cflags $(DEPS_PC) 2>/dev/null)
DEPS_LIBS	:= $(shell $(PKG_CONFIG) --libs $(DEPS_PC) 2>/dev/null || \
		     echo -lbpf -ldw -lelf -lz)

# The tools link libbpf, libdw and libelf (and what those need) statically
# where that links: cc-btf runs once per object, and the dynamic loader's
# work for three libraries is a measurable part of a small object's
# encoding (docs/performance.md, "Static or dynamic"). STATIC=1 insists on
# it, STATIC=0 links dynamically; left unset, the link is tried statically
# when libdw.a is installed and, should that fail (Debian 13's libelf.a
# wants elfutils' internal libeu, which no package ships), made
# dynamically with one line that says so.
STATIC		?= $(if $(filter /%,$(shell $(CC) -print-file-name=libdw.a)),auto,0)
STATIC_LIBS	:= -Wl,-Bstatic $(filter-out -pthread -lpthread,$(shell \
		     $(PKG_CONFIG) --static --libs $(DEPS_PC) 2>/dev/null)) \
		   -Wl,-Bdynamic -pthread
DYNAMIC_LIBS	:= $(DEPS_LIBS) -pthread

WARNINGS	:= -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
		   -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2
ABTF_CFLAGS	:= -std=gnu11 -D_GNU_SOURCE -fPIC -fvisibility=hidden \
		   $(WARNINGS) -Ilibarchive-btf $(DEPS_CFLAGS) $(SAN_FLAGS) \
		   -DABTF_VERSION='"$(VERSION)"' -MMD -MP
ABTF_LDFLAGS	:= $(SAN_FLAGS)

LIB_SRCS	:= $(wildcard libarchive-btf/*/*.c)
LIB_OBJS	:= $(patsubst %.c,$(OUT)/%.o,$(LIB_SRCS))
LIB_A		:= $(OUT)/libarchive-btf.a
LIB_RELOC	:= $(OUT)/libarchive-btf/libarchive-btf.o
LIB_SONAME	:= libarchive-btf.so.$(VERSION_MAJOR)
LIB_SO		:= $(OUT)/libarchive-btf.so.$(VERSION)
LIB_MAP		:= libarchive-btf/libarchive-btf.map
LIB_PC		:= $(OUT)/libarchive-btf.pc

TOOLS		:= cc-btf btf-link
TOOL_BINS	:= $(addprefix $(OUT)/bin/,$(TOOLS))
# tool-common/: what both tools do alike (file checks, message escaping),
# compiled into each; not the library's, which never prints.
TOOL_COMMON	:= $(patsubst %.c,$(OUT)/%.o,$(wildcard tool-common/*.c))
TOOL_OBJS	:= $(foreach t,$(TOOLS),$(patsubst %.c,$(OUT)/%.o,$(wildcard $(t)/*.c))) \
		   $(TOOL_COMMON)
MANPAGES	:= $(foreach t,$(TOOLS),$(t)/$(t).1)
MANPAGES3	:= $(wildcard libarchive-btf/man/man3/*.3)
# A page that is another's name (.so) names it from the top of the tree,
# so that `man -l` finds it there; installed, it names it as man(1) does.
define install_man3
	sed 's|^\.so libarchive-btf/man/man3/|.so man3/|' $(1) \
		> $(DESTDIR)$(MANDIR)/man3/$(notdir $(1)).tmp
	chmod 644 $(DESTDIR)$(MANDIR)/man3/$(notdir $(1)).tmp
	mv -f $(DESTDIR)$(MANDIR)/man3/$(notdir $(1)).tmp \
		$(DESTDIR)$(MANDIR)/man3/$(notdir $(1))

endef

all: $(LIB_A) $(LIB_SO) $(LIB_PC) $(TOOL_BINS)

$(OUT)/%.o: %.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ABTF_CFLAGS) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# The static library exports what the shared one does and nothing else.
# Its objects call each other through internal names (ir__*, dw_die__*)
# that carry hidden visibility: the .so keeps them local through the version
# script, but an archive of the plain objects would export them to every
# program it is linked into, where they could clash. So the archive holds one
# relocatable object: all the library's objects linked with "ld -r", their
# internal references resolved inside it, then every hidden symbol made local
# with "objcopy --localize-hidden". Only the abtf_ API (default visibility,
# ABTF_API) stays global; tests/ecosystem.bats checks it with nm.
$(LIB_RELOC): $(LIB_OBJS)
	$(call msg,LD,$@)
	$(Q)$(LD) -r -o $@.tmp $^
	$(Q)$(OBJCOPY) --localize-hidden $@.tmp $@
	$(Q)rm -f $@.tmp

$(LIB_A): $(LIB_RELOC)
	$(call msg,AR,$@)
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $^

$(LIB_SO): $(LIB_OBJS) $(LIB_MAP)
	$(call msg,LD,$@)
	$(Q)$(CC) -shared -Wl,-soname,$(LIB_SONAME) \
		-Wl,--version-script=$(LIB_MAP) $(ABTF_LDFLAGS) $(LDFLAGS) \
		-o $@ $(LIB_OBJS) $(DEPS_LIBS) -pthread
	$(Q)ln -sf $(notdir $@) $(OUT)/$(LIB_SONAME)
	$(Q)ln -sf $(LIB_SONAME) $(OUT)/libarchive-btf.so

# The .pc names the directories it is installed for: "make install" writes
# it again with its own PREFIX, LIBDIR and INCLUDEDIR (those of the build
# may differ); the one in $(O) is for the build's.
gen_pc = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	     -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	     libarchive-btf/libarchive-btf.pc.in

$(LIB_PC): libarchive-btf/libarchive-btf.pc.in Makefile
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(gen_pc) > $@

# The tools link the static library: one binary each, no rpath games.
# link_tool OUT,OBJS: link a tool as STATIC says (above); with STATIC=auto
# a failed static link is made again dynamically, and said once.
tool_ld = $(CC) $(ABTF_LDFLAGS) $(LDFLAGS) -o $(1) $(2)
ifeq ($(STATIC),1)
link_tool = $(call tool_ld,$(1),$(2)) $(STATIC_LIBS)
else ifeq ($(STATIC),auto)
link_tool = { $(call tool_ld,$(1),$(2)) $(STATIC_LIBS) 2>$(1).static.log || { \
	printf '  %-8s %s\n' NOTE "$(notdir $(1)): libbpf, libdw and libelf do not link statically ($$(grep -m1 -oE "undefined reference to [^ ]*|cannot find -l[^ :]*" $(1).static.log || echo "make STATIC=1 shows why")): linked dynamically"; \
	$(call tool_ld,$(1),$(2)) $(DYNAMIC_LIBS); }; }; \
	r=$$?; rm -f $(1).static.log; exit $$r
else
link_tool = $(call tool_ld,$(1),$(2)) $(DYNAMIC_LIBS)
endif
.SECONDEXPANSION:
$(TOOL_BINS): $$(patsubst %.c,$(OUT)/%.o,$$(wildcard $$(notdir $$@)/*.c)) \
	      $(TOOL_COMMON) $(LIB_A)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(call link_tool,$@,$(filter %.o,$^) $(LIB_A))

example: all
	$(Q)ABTF_BUILD=$(OUT) tests/example/run.sh $(OUT)/example

# Test tiers. check: the quick suite, no kernel build (minutes). check-kernel:
# the files that build real kernels (tests/.work/ caches them; the first run
# takes about 50 minutes on 2 cores: the kernel sample, 6.1 with gcc through
# ccache and distcc, 6.12 with clang, 6.12 for arm64 and for s390x, 7.3 with
# gcc, with split DWARF, and with Debian 13's GCC 14 in a trixie root).
# check-lab: the kernel builds CI's 90 minutes cannot hold
# (tests/lab-*.bats: the plain pahole builds, 6.12 with gcc, another -j and
# BTF_ONLY=1, clang ThinLTO, riscv64, arm64 with clang (6.1, 6.12), riscv64
# with clang; about 95 minutes more). check-san: the input-handling suites
# again on an ASan + UBSan build ($(O)-san). TESTS=FILES runs those files
# instead, in any tier. The tests never install packages: tests/install-deps.sh
# does; ABTF_STRICT=1 turns a missing prerequisite from a skip into a failure.
KERNEL_TESTS	:= $(wildcard tests/kernel-*.bats tests/link-kernel.bats)
LAB_TESTS	:= $(wildcard tests/lab-*.bats)
QUICK_TESTS	:= $(filter-out $(KERNEL_TESTS) $(LAB_TESTS),$(wildcard tests/*.bats))
# check-san: the suites that feed the tools hostile or unusual input, and
# those of the link's function rules. link.bats, encoder.bats and
# clang.bats (valid programs linked and encoded, 7 minutes of CPU under
# ASan) are left to the quick tier: the fuzz harnesses (tests/fuzz.bats)
# run the link and the encoder under ASan and UBSan there.
SAN_TESTS	:= $(addprefix tests/,badinput.bats link-badinput.bats \
		     features.bats funcs.bats compress.bats cross.bats \
		     explain.bats keep-archive.bats)
# BATS_FLAGS: more options for bats (CI gives --timing).
BATS_FLAGS	?=
BATS_JOBS	:= $(if $(shell command -v parallel),--jobs $(shell nproc 2>/dev/null || echo 1))

# The tests tagged upstream (# bats test_tags=upstream) compare with
# upstream pahole, which Debian 12 lacks: only check-upstream runs them.
# (--filter-tags is in bats 1.8.2, but not in its --help.)
NOT_UPSTREAM	:= --filter-tags '!upstream'

check: all
	$(Q)ABTF_BUILD=$(OUT) bats $(BATS_JOBS) $(BATS_FLAGS) $(NOT_UPSTREAM) \
		$(or $(TESTS),$(QUICK_TESTS))

check-kernel: all
	$(Q)ABTF_BUILD=$(OUT) bats $(BATS_JOBS) $(BATS_FLAGS) $(NOT_UPSTREAM) \
		$(or $(TESTS),$(KERNEL_TESTS))

check-lab: all
	$(Q)ABTF_BUILD=$(OUT) bats $(BATS_JOBS) $(BATS_FLAGS) $(NOT_UPSTREAM) \
		$(or $(TESTS),$(LAB_TESTS))

# check-upstream: the tests that compare with upstream pahole (v1.30 or
# later: build it from source and name it with ABTF_LAB_PAHOLE=PATH);
# without it they fail.
UPSTREAM_TESTS	:= tests/features.bats tests/funcs.bats tests/link-kernel.bats \
		   tests/layout.bats tests/lab-kernel-e2e-7.3-upstream.bats
check-upstream: all
	$(Q)ABTF_BUILD=$(OUT) bats $(BATS_JOBS) $(BATS_FLAGS) --filter-tags upstream \
		$(or $(TESTS),$(UPSTREAM_TESTS))

check-san:
	$(Q)$(MAKE) --no-print-directory SANITIZE=1 O=$(O)-san check \
		TESTS="$(or $(TESTS),$(SAN_TESTS))"

# check-deb: what the Debian package build runs (debian/rules): tests
# that need no more than the build dependencies, strictly.
DEB_TESTS	:= $(addprefix tests/,compare.bats explain.bats)
check-deb: all
	$(Q)ABTF_STRICT=1 ABTF_BUILD=$(OUT) bats $(BATS_JOBS) $(BATS_FLAGS) $(NOT_UPSTREAM) \
		$(DEB_TESTS)

# ---- the differential test of the deduplication: tests/dedup/ ----
#   make fuzz-dedup [SEED=1000] [N=200]
# random programs SEED .. SEED+N-1 (tests/dedup/gen.py), each linked by
# btf-link and held to libbpf's btf__dedup() alone, by meaning; failing
# programs are kept in $(OUT)/fuzz-dedup/. make check runs a fixed list.
SEED		?= 1000
N		?= 200

fuzz-dedup: all
	$(Q)ABTF_BUILD=$(OUT) tests/dedup/run.sh -k $(OUT)/fuzz-dedup $(SEED) $(N)

install: all
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3
	$(INSTALL) -m 755 $(TOOL_BINS) $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)
	$(INSTALL) -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)
	ln -sf $(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(DESTDIR)$(LIBDIR)/libarchive-btf.so
	$(INSTALL) -m 644 libarchive-btf/archive_btf.h $(DESTDIR)$(INCLUDEDIR)
	$(gen_pc) > $(DESTDIR)$(PKGCONFIGDIR)/libarchive-btf.pc.tmp
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/libarchive-btf.pc.tmp
	mv -f $(DESTDIR)$(PKGCONFIGDIR)/libarchive-btf.pc.tmp \
		$(DESTDIR)$(PKGCONFIGDIR)/libarchive-btf.pc
	$(INSTALL) -m 644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man1
	$(foreach p,$(MANPAGES3),$(call install_man3,$(p)))

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(TOOLS))
	rm -f $(DESTDIR)$(LIBDIR)/libarchive-btf.a \
	      $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_SO)) \
	      $(DESTDIR)$(LIBDIR)/$(LIB_SONAME) \
	      $(DESTDIR)$(LIBDIR)/libarchive-btf.so
	rm -f $(DESTDIR)$(INCLUDEDIR)/archive_btf.h
	rm -f $(DESTDIR)$(PKGCONFIGDIR)/libarchive-btf.pc
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MANPAGES)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(MANPAGES3)))

# dpkg-buildpackage builds the source package (3.0 (native)) and the
# binary ones, running make check-deb, in a copy of the tree (the files
# git tracks or would track) under $(O)/deb/, so that the source tree
# stays clean; the .dsc, its tarball and the .debs land in $(O)/deb/.
DEB_DIR		:= $(OUT)/deb
DEB_SRC		:= $(DEB_DIR)/archive-btf-$(VERSION)

deb:
	$(call msg,DEB,$(DEB_DIR))
	$(Q)rm -rf $(DEB_DIR)
	$(Q)mkdir -p $(DEB_SRC)
	$(Q)if git rev-parse --git-dir >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard | \
			tar --null -T - --ignore-failed-read -c; \
	else \
		tar -c --exclude=./build --exclude=./build-san \
		    --exclude=./tests/.work --exclude='./$(O)' .; \
	fi | tar -x -C $(DEB_SRC)
	$(Q)cd $(DEB_SRC) && dpkg-buildpackage -us -uc \
		$(if $(filter 1,$(V)),,>../build.log 2>&1 || \
		{ tail -n 40 ../build.log; exit 1; })
	$(Q)ls $(DEB_DIR)/*.dsc $(DEB_DIR)/*.deb

clean:
	rm -rf $(OUT)

# ---- fuzzing: tests/fuzz/, docs/reliability.md ("Fuzzing") ----
#   make fuzz [FUZZ_TIME=60] [FUZZ_TARGETS="archive link-raw encode parse split"]
# builds the library, the tools and the libFuzzer harnesses with clang,
# ASan and UBSan into $(FUZZ_O) (a make of its own, like SANITIZE=1), makes
# the seed corpus from tests/fixtures and runs each target FUZZ_TIME
# seconds, one after the other.
FUZZ_O		?= build-fuzz
FUZZ_CC		?= clang
FUZZ_TIME	?= 60
FUZZ_TARGETS	?= archive link-raw encode parse split
FUZZ_SAN	:= -fsanitize=address,undefined -fno-omit-frame-pointer \
		   -fno-sanitize-recover=all \
		   -fsanitize-recover=nonnull-attribute,pointer-overflow

fuzz-build:
	$(Q)$(MAKE) --no-print-directory O=$(FUZZ_O) CC=$(FUZZ_CC) STATIC=0 \
		SAN_FLAGS='$(FUZZ_SAN) -fsanitize=fuzzer-no-link' \
		all fuzz-bins

fuzz-bins: $(patsubst %,$(OUT)/fuzz/fuzz-%,$(FUZZ_TARGETS))

# Linked with the library's objects, not its archive: fuzz-encode's oracle
# (tests/fuzz/dwarf_oracle.h) calls the DIE reader's internal functions.
$(OUT)/fuzz/fuzz-%: tests/fuzz/fuzz-%.c tests/fuzz/fuzz.h \
		tests/fuzz/dwarf_oracle.h $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(filter-out -MMD -MP,$(ABTF_CFLAGS)) -fsanitize=fuzzer \
		$(CPPFLAGS) $(CFLAGS) -o $@ $< $(LIB_OBJS) $(DEPS_LIBS) -pthread

fuzz: fuzz-build
	$(Q)tests/fuzz/run.sh $(abspath $(FUZZ_O)) $(FUZZ_TIME) $(FUZZ_TARGETS)

.PHONY: fuzz-dedup fuzz fuzz-build fuzz-bins

.PHONY: all example check check-kernel check-lab check-san check-upstream check-deb install uninstall deb clean
.DELETE_ON_ERROR:

-include $(LIB_OBJS:.o=.d) $(TOOL_OBJS:.o=.d)
