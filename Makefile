# lanchat — the two commands a fresh Debian 12 machine with the Swift toolchain needs:
#   make run    install what is missing, build, run lanchatd in the foreground
#   make test   install what is missing, build, run every test layer
SWIFT ?= swift
BIN := .build/debug
# Release builds link the Swift runtime statically: less resident memory for the daemon and a
# faster start for every `lanchat` call (docs/benchmarks.md). Each function gets its own
# section, so that the link can place the ones lanchatd runs first (scripts/lanchatd.order).
RELEASE := -c release --static-swift-stdlib -Xswiftc -Xfrontend -Xswiftc -function-sections \
	-Xcc -ffunction-sections

# Libraries the build links (PROTOCOL.md §8, ARCHITECTURE.md).
BUILD_PACKAGES := pkg-config libsodium-dev libavahi-client-dev libsqlite3-dev libncurses-dev
# What lanchatd needs at run time besides those libraries: the mDNS daemon it publishes
# and browses through (it runs without it, with static peers only).
RUN_PACKAGES := avahi-daemon
# What the system tests drive: real avahi-daemon, D-Bus, systemd, nftables (TESTING.md).
SYSTEM_TEST_PACKAGES := avahi-daemon avahi-utils dbus iproute2 nftables systemd tcpdump jq socat procps e2fsprogs
# Documentation lint.
DOC_PACKAGES := mandoc
# The shells whose completion scripts the unit tests load (Tests/LanChatCLITests/CompletionTests).
SHELL_PACKAGES := zsh fish
# The terminal `lanchat chat` is driven in by the end-to-end tests (LanChatEndToEndTests).
TERMINAL_TEST_PACKAGES := tmux
# What `make symbol-order` runs the daemon under and reads its answers with.
SYMBOL_ORDER_PACKAGES := valgrind jq

.PHONY: all deps run-deps test-deps build run test unit-test system-test scale lint format install clean fuzz \
	symbol-order

all: build

deps:
	@scripts/install-deps.sh $(BUILD_PACKAGES)

# Root (or sudo) installs avahi-daemon; without either, lanchatd runs with static peers only.
run-deps: deps
	@if [ "$$(id -u)" -eq 0 ] || command -v sudo >/dev/null 2>&1; then \
		scripts/install-deps.sh $(RUN_PACKAGES); fi
	@scripts/check-avahi.sh

# The system-test packages need root (or sudo); without either the system layer reports
# SKIPPED, so only the build packages are required.
test-deps: deps
	@if [ "$$(id -u)" -eq 0 ] || command -v sudo >/dev/null 2>&1; then \
		scripts/install-deps.sh $(SYSTEM_TEST_PACKAGES) $(DOC_PACKAGES) $(SHELL_PACKAGES) \
		$(TERMINAL_TEST_PACKAGES); fi

build: deps
	$(SWIFT) build

# Foreground daemon with the defaults of PRODUCT.md §2; extra options via ARGS="--peer …".
run: run-deps build
	exec $(BIN)/lanchatd $(ARGS)

# The fuzz layer runs briefly here (about 2.5 minutes in all); `make fuzz` runs it longer.
TEST_FUZZ_SECONDS ?= 15
test: test-deps
	$(SWIFT) build --build-tests
	$(MAKE) --no-print-directory unit-test system-test lint
	$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(TEST_FUZZ_SECONDS)

# Unit and in-process layers, plus the end-to-end tests with the built binaries.
unit-test:
	LANCHAT_BIN_DIR=$(CURDIR)/$(BIN) $(SWIFT) test --skip-build

system-test:
	LANCHAT_BIN_DIR=$(CURDIR)/$(BIN) Tests/System/run.sh

# The 50-host LAN of PRODUCT.md §8 (the 12-host one runs in `make test`): all pairs online,
# 2 450 messages each delivered once, the daemons' RSS and CPU. Root; a few minutes. Release
# binaries: fifty debug daemons starting at once overload a small machine. scripts/scale.sh
# raises two kernel limits made for one host, not fifty, for the run (neighbour tables, UDP
# receive buffer) and restores them.
scale: test-deps
	$(SWIFT) build $(RELEASE)
	scripts/scale.sh "$$($(SWIFT) build $(RELEASE) --show-bin-path)"

lint:
	@scripts/check-docs.sh

# Lists the functions a release lanchatd runs (scripts/lanchatd.order), which its link places
# first: an idle daemon then has a few MB of its code resident, not most of it (figure 7).
# Root, valgrind; a few minutes. Commit the list it writes.
symbol-order: deps
	@scripts/install-deps.sh $(SYMBOL_ORDER_PACKAGES)
	$(SWIFT) build $(RELEASE)
	scripts/symbol-order.sh "$$($(SWIFT) build $(RELEASE) --show-bin-path)"
	@# The build does not see the list change: link the daemon again with it.
	rm -f "$$($(SWIFT) build $(RELEASE) --show-bin-path)/lanchatd"
	$(SWIFT) build $(RELEASE) --product lanchatd

# The figures of PRODUCT.md §8 on a release build, with the bare-pipe baseline measured in
# the same run; prints a table and JSON and records the table in docs/benchmarks.md. Not a
# test gate; a few minutes. Pass options with ARGS="--only 1,5" or ARGS=--quick.
bench: deps
	@SWIFT=$(SWIFT) RELEASE="$(RELEASE)" scripts/bench.sh $(ARGS)

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Benchmarks Fuzz

# libFuzzer targets (Fuzz/) built with -sanitize=fuzzer,address into .build-fuzz, each run for
# FUZZ_SECONDS; fails on any crash, sanitizer report or broken property (docs/testing.md).
FUZZ_SECONDS ?= 30
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) SWIFT=$(SWIFT) scripts/fuzz.sh

# Release binaries in $(PREFIX)/bin, man pages, shell completions where bash-completion, zsh
# and fish look under $(PREFIX), the systemd user units (the service and its socket) and the
# commented example configuration.
PREFIX ?= $(HOME)/.local
UNIT_DIR ?= $(HOME)/.config/systemd/user
install: deps
	$(SWIFT) build $(RELEASE)
	install -D -m 0755 .build/release/lanchatd $(PREFIX)/bin/lanchatd
	install -D -m 0755 .build/release/lanchat $(PREFIX)/bin/lanchat
	install -D -m 0644 man/lanchat.1 $(PREFIX)/share/man/man1/lanchat.1
	install -D -m 0644 man/lanchatd.8 $(PREFIX)/share/man/man8/lanchatd.8
	install -D -m 0644 man/lanchat-api.7 $(PREFIX)/share/man/man7/lanchat-api.7
	install -d $(PREFIX)/share/bash-completion/completions $(PREFIX)/share/zsh/site-functions \
		$(PREFIX)/share/fish/vendor_completions.d
	.build/release/lanchat completion bash >$(PREFIX)/share/bash-completion/completions/lanchat
	.build/release/lanchat completion zsh >$(PREFIX)/share/zsh/site-functions/_lanchat
	.build/release/lanchat completion fish >$(PREFIX)/share/fish/vendor_completions.d/lanchat.fish
	install -D -m 0644 systemd/lanchatd.service $(UNIT_DIR)/lanchatd.service
	install -D -m 0644 systemd/lanchatd.socket $(UNIT_DIR)/lanchatd.socket
	install -D -m 0644 systemd/lanchatd.conf.example \
		$(PREFIX)/share/doc/lanchat/lanchatd.conf.example
	@echo "then: systemctl --user daemon-reload && systemctl --user enable --now lanchatd"
	@echo "  (or enable --now lanchatd.socket: the first lanchat call starts the daemon)"

clean:
	rm -rf .build .build-fuzz
