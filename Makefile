# airlab — see README.md. `make run` and `make check` install their own
# dependencies (Debian 12 packages) and build what they need.

SHELL := /bin/bash
CC ?= cc
B := build
PKGS := yaml-0.1 libserialport libssh jansson zlib sqlite3 libftdi1 libusb-1.0 libcurl
CFLAGS_BASE := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -O2
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null)
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# Library: every .c under these folders (one folder per concern).
LIB_DIRS := harness/util harness/lab harness/qmp harness/cell \
	harness/drivers harness/drivers/power harness/drivers/flash \
	harness/drivers/console harness/drivers/shell harness/drivers/atten \
	harness/drivers/ap harness/strategy harness/lava \
	harness/medium harness/agent harness/results harness/suites
LIB_SRC := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
CLI_SRC := $(wildcard harness/cli/*.c)
GUEST_SRC := $(wildcard harness/guest/*.c) harness/util/cell_conf.c
TEST_SRC := $(wildcard harness/tests/test_*.c)

LIB_OBJ := $(LIB_SRC:%.c=$(B)/obj/%.o)
LIB_ASAN_OBJ := $(LIB_SRC:%.c=$(B)/asan/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(B)/obj/%.o)
TESTS := $(TEST_SRC:harness/tests/%.c=$(B)/tests/%)
TESTS_ASAN := $(TEST_SRC:harness/tests/%.c=$(B)/tests-asan/%)
GUEST_BIN := $(B)/guest/airlab-guest
AGENT_BIN := $(B)/guest/airlab-agent
MEDIUM_BIN := $(B)/guest/airlab-medium
# The USB driver test in the guest (it_usb.sh): the device emulators (libc
# only) and the runner (the real drivers, libairlab.a and its libraries).
USB_EMU_SRC := harness/tests/usb_emu/airlab-usb-emu.c harness/tests/usb_emu/gadget.c
USB_EMU_BIN := $(B)/guest/airlab-usb-emu
USBTEST_BIN := $(B)/guest/airlab-usbtest
# The suite runner in the DUT, for runs the host does not drive (a LAVA job).
SUITE_LOCAL_GUEST := $(B)/guest/airlab-suite-local
MEDIUM_SRC := $(wildcard harness/medium/daemon/*.c harness/medium/*.c) \
	harness/util/cell_conf.c

DEPS_STAMP := $(B)/.deps-installed
IMAGE_DIR := $(B)/dut-image

.PHONY: all deps image run check check-lava check-unit check-integration check-long \
	bench clean format lint fuzz install uninstall

all: $(B)/airlab $(GUEST_BIN) $(MEDIUM_BIN) $(AGENT_BIN) $(B)/airlab-suite-local \
	$(USB_EMU_BIN) $(USBTEST_BIN) $(B)/airlab.1

# The manual page, made from the binary's own help (harness/cli/mkman.sh).
$(B)/airlab.1: $(B)/airlab harness/cli/mkman.sh
	harness/cli/mkman.sh $(B)/airlab >$@.tmp && mv $@.tmp $@

# airlab runs from its tree (lab/, kernel/, the DUT images, results/):
# PREFIX/bin/airlab is a link to this tree's binary, beside the manual
# page and the bash completion.
PREFIX ?= /usr/local
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	ln -sfn $(abspath $(B)/airlab) $(DESTDIR)$(PREFIX)/bin/airlab
	install -m 644 $(B)/airlab.1 $(DESTDIR)$(PREFIX)/share/man/man1/airlab.1
	install -m 644 harness/cli/airlab.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/airlab

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/airlab $(DESTDIR)$(PREFIX)/share/man/man1/airlab.1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/airlab

# ---- dependencies -------------------------------------------------------
# Idempotent: apt-get only runs when a listed package is missing.
DEB_PACKAGES := build-essential pkg-config clang-format cppcheck \
	libyaml-dev libserialport-dev libssh-dev libjansson-dev libcmocka-dev libsqlite3-dev \
	qemu-system-x86 busybox-static dropbear-bin hostapd wpasupplicant iw \
	iproute2 iperf3 irtt flent python3-matplotlib zlib1g-dev cpio xz-utils kmod openssh-client \
	openssh-server openssh-sftp-server dwarves patch gnuplot-nox tftpd-hpa libftdi1-dev libusb-1.0-0-dev \
	libcurl4-openssl-dev groff-base
deps:
	@missing=$$(dpkg-query -W -f='$${Package} $${Status}\n' $(DEB_PACKAGES) 2>/dev/null \
		| awk '$$NF!="installed"{print $$1}'; \
		for p in $(DEB_PACKAGES); do dpkg-query -W $$p >/dev/null 2>&1 || echo $$p; done); \
	missing=$$(echo $$missing | tr ' ' '\n' | sort -u | tr '\n' ' '); \
	if [ -n "$${missing// }" ]; then \
		echo "deps: installing $$missing"; \
		SUDO=; [ $$(id -u) -eq 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y --no-install-recommends $$missing; \
	else echo "deps: all Debian packages present"; fi

# ---- harness --------------------------------------------------------------
$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

$(B)/asan/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -O1 $(SAN) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

$(B)/libairlab.a: $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(B)/libairlab-asan.a: $(LIB_ASAN_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(B)/airlab: $(CLI_OBJ) $(B)/libairlab.a
	$(CC) $(CFLAGS_BASE) -o $@ $(CLI_OBJ) $(B)/libairlab.a $(PKG_LIBS) -lm

# The guest binaries run inside the DUT image; they only need libc.
$(GUEST_BIN): $(GUEST_SRC) $(wildcard harness/guest/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -o $@ $(GUEST_SRC)

# The agent runs on DUT hosts too: libc only, no libairlab.a.
$(AGENT_BIN): harness/agent/main/airlab-agent.c $(wildcard harness/agent/*.[ch]) harness/util/err.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -o $@ harness/agent/main/airlab-agent.c $(wildcard harness/agent/*.c) harness/util/err.c

$(B)/airlab-suite-local: harness/suites/main/airlab-suite-local.c $(B)/libairlab.a
	$(CC) $(CFLAGS_BASE) $(PKG_CFLAGS) -o $@ $< $(B)/libairlab.a $(PKG_LIBS) -lm

$(SUITE_LOCAL_GUEST): $(B)/airlab-suite-local
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(PKG_CFLAGS) -o $@ harness/suites/main/airlab-suite-local.c \
		$(B)/libairlab.a -Wl,--as-needed $(PKG_LIBS) -lm

$(B)/tests/%: harness/tests/%.c $(B)/libairlab.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(PKG_CFLAGS) -o $@ $< $(B)/libairlab.a $(PKG_LIBS) $(CMOCKA_LIBS) -lm -lutil

$(B)/tests-asan/%: harness/tests/%.c $(B)/libairlab-asan.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -O1 $(SAN) $(PKG_CFLAGS) -o $@ $< $(B)/libairlab-asan.a $(PKG_LIBS) $(CMOCKA_LIBS) -lm -lutil

# The medium daemon runs in the guest too: libc + libm only.
$(MEDIUM_BIN): $(MEDIUM_SRC) $(wildcard harness/medium/*.h harness/medium/daemon/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -o $@ $(MEDIUM_SRC) -lm

$(USB_EMU_BIN): $(USB_EMU_SRC) harness/tests/usb_emu/gadget.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -pthread -o $@ $(USB_EMU_SRC)

# Its libraries go into the image with it (build.sh, ldd).
$(USBTEST_BIN): harness/tests/usb_emu/airlab-usbtest.c $(B)/libairlab.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(PKG_CFLAGS) -o $@ $< $(B)/libairlab.a -Wl,--as-needed $(PKG_LIBS) -lm

# ---- DUT image ------------------------------------------------------------
image: $(GUEST_BIN) $(USB_EMU_BIN) $(USBTEST_BIN) $(SUITE_LOCAL_GUEST)
	dut-images/virtual/build.sh --out $(IMAGE_DIR) --guest-bin $(B)/guest

# ---- the two README commands ----------------------------------------------
# The short nightly plan on the virtual lab: rrul and rtt_fair on stock-6.1
# and mac80211-6.12, stored, compared with the last good night, reported.
# A regression (exit 1) or a partial run (3) is a finding, not a failed
# command; bad input (2) or a lab that does not come up (4) fails.
run: deps
	$(MAKE) all image
	@$(B)/airlab nightly lab/nightly-virtual.yaml; rc=$$?; \
	if [ $$rc -eq 1 ]; then echo "make run: see the regressions above"; \
	elif [ $$rc -eq 3 ]; then echo "make run: a run was partial (its reasons are above)"; \
	elif [ $$rc -ne 0 ]; then exit $$rc; fi

# What only the tests need: a browser to load the reports in
# (harness/tests/browser_check.sh), clang's libFuzzer and sanitizer
# runtimes for the parsers' fuzzers (harness/tests/it_fuzz.sh).
CHECK_PACKAGES := chromium clang libclang-rt-14-dev
check:
	$(MAKE) deps DEB_PACKAGES="$(DEB_PACKAGES) $(CHECK_PACKAGES)"
	$(MAKE) all image $(TESTS) $(TESTS_ASAN)
	harness/tests/run-all.sh

# A real LAVA server and worker (installed from Debian when missing),
# started and stopped by the test: airlab lava export/submit/results.
check-lava: deps
	$(MAKE) all image
	harness/tests/lava/it_lava.sh

check-unit: all $(TESTS) $(TESTS_ASAN)
	harness/tests/run-all.sh --unit-only

# Soak and slow end-to-end tests, not in CI (see harness/tests/long/).
check-long: deps
	$(MAKE) all image
	@rc=0; for t in harness/tests/long/it_*.sh; do echo "== $$t"; $$t || rc=1; done; exit $$rc

bench: deps
	$(MAKE) all image
	harness/tests/bench.sh

# Every parser's fuzzer for a minute each (make check gives them 5 s).
fuzz:
	AIRLAB_FUZZ_SECONDS=$${AIRLAB_FUZZ_SECONDS:-60} harness/tests/it_fuzz.sh

format:
	clang-format -i $$(git ls-files 'harness/*.c' 'harness/*.h')

lint:
	clang-format --dry-run --Werror $$(git ls-files 'harness/*.c' 'harness/*.h')
	cppcheck --error-exitcode=1 --enable=warning,portability --inline-suppr \
		--suppress=missingIncludeSystem -q harness

clean:
	rm -rf $(B)

-include $(shell find $(B)/obj $(B)/asan -name '*.d' 2>/dev/null)
