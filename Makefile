# Dompet: `make dev` runs the whole service locally, `make test` runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: dev test deps lint fmt clean

deps: $(VENV)/.installed node_modules/.installed

$(VENV)/.installed: requirements.txt requirements-dev.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.lock
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

dev: deps
	$(BIN)/python -m devtools.devstack

test: deps
	$(BIN)/python -m pytest

lint: deps
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

fmt: deps
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) node_modules build .local cdk.out
