# Weald: `make run` sets up and launches the desktop app; `make test` sets up
# and runs every test. Both install what is missing on Debian/Ubuntu first.

GO       ?= go
NPM      ?= npm
BIN      := build/bin
JS_DIRS  := frontend $(wildcard backend/mls/interop/js)

.PHONY: run test build build-e2e frontend deps-run deps-test bindings relay cli clean

run: deps-run build
	@if [ -n "$$DISPLAY" ] || [ -n "$$WAYLAND_DISPLAY" ]; then \
		exec $(BIN)/weald; \
	else \
		echo "No display found (DISPLAY is not set): starting Weald under Xvfb on a virtual display."; \
		echo "Its window is not visible here; stop it with Ctrl-C."; \
		exec xvfb-run -a -s "-screen 0 1280x820x24" dbus-run-session -- $(BIN)/weald; \
	fi

test: deps-test build build-e2e $(addsuffix /node_modules/.installed,$(wordlist 2,9,$(JS_DIRS)))
	@.ci/test.sh

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

build: frontend
	$(GO) build -tags "$$(.ci/deps.sh tags)" -o $(BIN)/weald .

build-e2e: frontend
	$(GO) build -tags e2e -o $(BIN)/weald-e2e .

# Regenerates frontend/wailsjs from the bound Go services (no Wails CLI needed).
bindings:
	$(GO) build -tags bindings -o $(BIN)/weald-bindings .
	$(BIN)/weald-bindings

# The relay server and the headless CLI, for running by hand.
relay:
	$(GO) build -o $(BIN)/weald-relay ./backend/cmd/weald-relay

cli:
	$(GO) build -o $(BIN)/weald-cli ./backend/cmd/weald

clean:
	rm -rf $(BIN) frontend/dist/assets frontend/dist/index.html test-artifacts
