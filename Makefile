# Dompet: `make dev` runs the whole service locally, `make test` runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
MPC := crates/dompet-mpc
CHROMIUM := /usr/bin/chromium
VENDORED := chalicelib/system/vendored/manifest.json
TS_SDK := sdk/typescript/node_modules/.installed
MPC_SOURCES := $(MPC)/Cargo.toml $(MPC)/Cargo.lock $(wildcard $(MPC)/src/*.rs)

.PHONY: dev test deps installed lint fmt clean vendor sdk

# Bytecode is cached (__pycache__, ignored by git): the local stack, its workers and the suite's subprocesses start
# Python many times, and each would compile the service's modules again.
unexport PYTHONDONTWRITEBYTECODE

# Independent install steps run side by side (pip, npm, apt, then cargo and go as soon as the venv exists); a step's
# output is printed when it ends. apt steps take turns through one lock (dpkg allows one at a time).
deps:
	@$(MAKE) --no-print-directory --jobs=4 --output-sync=target installed

installed: $(VENV)/.installed node_modules/.installed $(VENV)/.mpc-built $(CHROMIUM) $(VENDORED) $(TS_SDK) .local/bin/btcd

APT := flock /tmp/dompet-apt.lock

$(VENV)/.installed: requirements.txt requirements-dev.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet pip==26.2.1  # chalice 1.34 packages with pip and requires <26.3
	$(BIN)/pip install --quiet -r requirements-dev.lock
	touch $@

# The threshold-ECDSA core (Rust, cggmp21) as the `dompet_mpc` extension module. GMP is built from
# source by gmp-mpfr-sys and cached in ~/.cache/gmp-mpfr-sys; its configure needs m4.
$(VENV)/.mpc-built: $(VENV)/.installed $(MPC_SOURCES)
	@command -v m4 >/dev/null || $(APT) sh -c 'apt-get update -qq && apt-get install -y -qq m4 >/dev/null'
	# VIRTUAL_ENV chooses where maturin installs: always this checkout's venv, whatever the caller activated.
	VIRTUAL_ENV="$(abspath $(VENV))" PATH="$(abspath $(BIN)):$$PATH" $(BIN)/maturin develop --release --quiet -m $(MPC)/Cargo.toml
	touch $@

# The local Bitcoin node, btcd and btcctl, built with Go (>= 1.22) at the version pinned in devtools/bitcoin_node.py;
# that rebuilds only when the pin differs from the binaries' stamp.
.local/bin/btcd: devtools/bitcoin_node.py | $(VENV)/.installed
	$(BIN)/python -m devtools.bitcoin_node
	touch $@

# Headless Chromium for the browser tests (Playwright drives Debian's build; browsers are not downloaded).
$(CHROMIUM):
	$(APT) sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium chromium-driver >/dev/null'

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The TypeScript SDK's pinned toolchain (openapi-typescript, typescript, @types/node) and openapi-fetch.
$(TS_SDK): sdk/typescript/package.json sdk/typescript/package-lock.json
	cd sdk/typescript && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The browser assets the service serves (Scalar's bundle for /docs, the console's htmx, uPlot, script and styles), from
# the pinned npm packages and chalicelib/console/static: gzip, content-hashed.
$(VENDORED): node_modules/.installed devtools/vendor_assets.py $(VENV)/.installed $(wildcard chalicelib/console/static/*)
	$(BIN)/python -m devtools.vendor_assets

dev: deps
	$(BIN)/python -m devtools.devstack

test: deps
	cargo test --release --quiet --manifest-path $(MPC)/Cargo.toml
	$(BIN)/python -m pytest --durations=30  # the slowest tests, for docs/performance.md

lint: deps
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m devtools.import_graph
	$(BIN)/python -m devtools.route_table --check
	cargo fmt --check --manifest-path $(MPC)/Cargo.toml
	cargo clippy --release --quiet --manifest-path $(MPC)/Cargo.toml --all-targets -- -D warnings

# The SDKs' generated parts (sdk/python/dompet/_generated, sdk/typescript/src/generated) from the app's OpenAPI
# document; tests/sdk fails while they are stale.
sdk: deps
	$(BIN)/python -m devtools.sdk generate

fmt: deps
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# The MPC core for AWS Lambda (x86_64, Python 3.11, glibc 2.26): a manylinux2014 abi3 wheel linked with
# zig, unpacked into vendor/, which `chalice package` (and so the CDK stack) ships as-is. Run before deploying.
vendor: $(VENV)/.installed node_modules/.installed
	$(BIN)/python -m devtools.vendor_assets
	$(BIN)/pip install --quiet --require-hashes -r requirements-build.lock
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/maturin build --release --quiet --zig --compatibility manylinux2014 \
		--target x86_64-unknown-linux-gnu -m $(MPC)/Cargo.toml -o build/wheels
	rm -rf vendor/dompet_mpc
	$(BIN)/python -c "import glob, zipfile; w = sorted(glob.glob('build/wheels/dompet_mpc-*manylinux*.whl'))[-1]; \
		z = zipfile.ZipFile(w); z.extractall('vendor', [n for n in z.namelist() if n.startswith('dompet_mpc/')])"

clean:
	rm -rf $(VENV) node_modules build .local cdk.out vendor .cache chalicelib/system/vendored
