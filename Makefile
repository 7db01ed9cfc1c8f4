# Two entry points: `make run` (demo, no system services needed) and `make test`.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install run test lint format services browser bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Services the test-suite needs: PostgreSQL and Redis on 127.0.0.1, Chromium.
services:
	bash scripts/ensure-services.sh

test: install services
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pytest

lint: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

format: install
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

run: install
	bash scripts/run-demo.sh

bench: install
	$(PY) benchmarks/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
