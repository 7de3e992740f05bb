# Dompet: `make dev` runs the whole service locally, `make test` runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
MPC := crates/dompet-mpc
MPC_SOURCES := $(MPC)/Cargo.toml $(MPC)/Cargo.lock $(wildcard $(MPC)/src/*.rs)

.PHONY: dev test deps lint fmt clean

deps: $(VENV)/.installed node_modules/.installed $(VENV)/.mpc-built

$(VENV)/.installed: requirements.txt requirements-dev.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.lock
	touch $@

# The threshold-ECDSA core (Rust, cggmp21) as the `dompet_mpc` extension module. GMP is built from
# source by gmp-mpfr-sys and cached in ~/.cache/gmp-mpfr-sys; its configure needs m4.
$(VENV)/.mpc-built: $(VENV)/.installed $(MPC_SOURCES)
	@command -v m4 >/dev/null || (apt-get update -qq && apt-get install -y -qq m4 >/dev/null)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/maturin develop --release --quiet -m $(MPC)/Cargo.toml
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

dev: deps
	$(BIN)/python -m devtools.devstack

test: deps
	cargo test --release --quiet --manifest-path $(MPC)/Cargo.toml
	$(BIN)/python -m pytest

lint: deps
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	cargo fmt --check --manifest-path $(MPC)/Cargo.toml
	cargo clippy --release --quiet --manifest-path $(MPC)/Cargo.toml --all-targets -- -D warnings

fmt: deps
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) node_modules build .local cdk.out
