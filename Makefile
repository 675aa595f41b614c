# Weald: `make run` sets up and launches the desktop app; `make test` sets up
# and runs every test. Both install what is missing on Debian/Ubuntu first.
# `make help` lists the targets; CONTRIBUTING.md says how to run parts.

GO       ?= go
NPM      ?= npm
BIN      := build/bin
TOOLS    := build/tools
JS_DIRS  := frontend $(wildcard backend/mls/interop/js)
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(TOOLS)/staticcheck-$(STATICCHECK_VERSION)

# Every binary says its version and commit (--version): git describe of the
# newest v* tag, or v0.0.0-COUNT-gHASH before the first tag; -dirty when the
# tree has changes. Without make, runtime/debug's build info is the fallback.
VERSION  ?= $(shell git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null || echo "v0.0.0-$$(git rev-list --count HEAD 2>/dev/null || echo 0)-g$$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$$(git diff --quiet HEAD 2>/dev/null || echo -dirty)")
COMMIT   ?= $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
LDFLAGS   = -X weald/backend/version.version=$(VERSION) -X weald/backend/version.commit=$(COMMIT)

# Every go command names source files by module path, not by the folder
# the tree sits in (-trimpath): the build cache is keyed by that name, so a
# fresh clone in another folder reuses what an earlier one compiled (go vet
# and staticcheck over the tree took 60 CPU-s each in a new folder without
# it, 1 s with it), and the binaries carry no path of the machine that
# built them.
ifeq ($(filter -trimpath,$(GOFLAGS)),)
export GOFLAGS := $(strip $(GOFLAGS) -trimpath)
endif

PKG      := build/bin/pkg
DEB_ARCH ?= $(shell dpkg --print-architecture 2>/dev/null || echo amd64)

.PHONY: package help run test test-go test-ui lint lint-go lint-ui build build-e2e frontend deps-run deps-test bindings relay cli clean

help: ## List the targets.
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

run: deps-run build ## Build and launch the desktop app (under Xvfb without a display).
	@if [ -n "$$DISPLAY" ] || [ -n "$$WAYLAND_DISPLAY" ]; then \
		exec $(BIN)/weald-desktop; \
	else \
		echo "No display found (DISPLAY is not set): starting Weald under Xvfb on a virtual display."; \
		echo "Its window is not visible here; stop it with Ctrl-C."; \
		exec xvfb-run -a -s "-screen 0 1280x820x24" dbus-run-session -- $(BIN)/weald-desktop; \
	fi

test: deps-test build build-e2e $(addsuffix /node_modules/.installed,$(wordlist 2,9,$(JS_DIRS))) ## Lint and every test, one summary at the end (what CI runs).
	@.ci/test.sh

# The packages with the longest tests are named first: go test starts the
# packages in the order given (at most two at a time here), so the longest
# one no longer starts last and runs on alone at the end.
test-go: frontend ## The Go tests only (-short skips the slow ones: make test-go GOTEST=-short).
	.ci/with-tmpfs $(GO) test -count=1 $(GOTEST) ./backend/engine ./app ./backend/relay ./...

test-ui: frontend/node_modules/.installed ## The frontend unit tests (vitest) only.
	$(NPM) --prefix frontend run test

lint: lint-go lint-ui ## gofmt, go vet, staticcheck, go mod tidy; eslint and prettier.

lint-go: frontend $(STATICCHECK)
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt: these files need gofmt -w:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags e2e .
	$(STATICCHECK) ./...
	$(GO) mod tidy -diff

lint-ui: frontend/node_modules/.installed
	$(NPM) --prefix frontend run --silent lint

# staticcheck at a pinned version, built from the Go module proxy once.
$(STATICCHECK):
	GOBIN=$(abspath $(TOOLS))/tmp $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv $(TOOLS)/tmp/staticcheck $@ && rmdir $(TOOLS)/tmp

deps-run:
	@.ci/deps.sh run

deps-test:
	@.ci/deps.sh test

# npm ci only when the lock changed since the last install.
%/node_modules/.installed: %/package-lock.json
	cd $* && $(NPM) ci --no-audit --no-fund
	@touch $@

frontend/dist/index.html: frontend/node_modules/.installed $(shell find frontend/src frontend/wailsjs -type f 2>/dev/null) frontend/index.html frontend/vite.config.ts
	cd frontend && $(NPM) run build

frontend: frontend/dist/index.html

build: frontend ## Build the desktop app into build/bin/weald-desktop.
	$(GO) build -tags "$$(.ci/deps.sh tags)" -ldflags "$(LDFLAGS)" -o $(BIN)/weald-desktop .

build-e2e: frontend
	$(GO) build -tags e2e -ldflags "$(LDFLAGS)" -o $(BIN)/weald-e2e .

# Regenerates frontend/wailsjs from the bound Go services (no Wails CLI needed).
bindings: ## Regenerate frontend/wailsjs from the bound Go services.
	$(GO) build -tags bindings -o $(BIN)/weald-bindings .
	$(BIN)/weald-bindings

# The relay server and the headless CLI, for running by hand.
relay: ## Build the relay server into build/bin/weald-relay.
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/weald-relay ./backend/cmd/weald-relay

cli: ## Build the headless CLI into build/bin/weald.
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/weald ./backend/cmd/weald

# The Debian packages (docs/packaging.md): stripped, stamped binaries into
# build/bin/pkg, then tools/package (nfpm as a library, its own module).
package: deps-run frontend ## Build the .deb of the desktop app and of the relay into build/bin.
	$(GO) build -tags "$$(.ci/deps.sh tags)" -ldflags "-s -w $(LDFLAGS)" -o $(PKG)/weald-desktop .
	$(GO) build -ldflags "-s -w $(LDFLAGS)" -o $(PKG)/weald ./backend/cmd/weald
	$(GO) build -ldflags "-s -w $(LDFLAGS)" -o $(PKG)/weald-relay ./backend/cmd/weald-relay
	$(PKG)/weald completion bash > $(PKG)/weald.bash
	rm -rf $(PKG)/man && export SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct 2>/dev/null || date +%s) && \
		$(PKG)/weald man $(PKG)/man/weald && $(PKG)/weald-relay man $(PKG)/man/relay
	cp build/linux/weald-desktop.1 $(PKG)/man/weald/ && gzip -9n $(PKG)/man/*/*.1
	cd tools/package && $(GO) build -o $(abspath $(TOOLS))/package .
	$(TOOLS)/package -config build/linux/weald.nfpm.yaml -version "$(VERSION)" -arch $(DEB_ARCH) -out $(BIN)
	$(TOOLS)/package -config build/linux/relay/weald-relay.nfpm.yaml -version "$(VERSION)" -arch $(DEB_ARCH) -out $(BIN)

clean: ## Remove built binaries and test artifacts.
	rm -rf $(BIN) frontend/dist/assets frontend/dist/index.html test-artifacts
