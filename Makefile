# Two entry points: `make run` (demo, no system services needed) and `make test`.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install run test lint format services browser bench clean screenshots image compose-images compose-check

BUNDLE := static/build/editor.js

install: $(STAMP) $(BUNDLE)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The profile editor's browser bundle: CodeMirror 6 from the npm registry, pinned
# by package-lock.json, bundled with esbuild into static/build/ (a build output,
# not committed). npm ci never prompts; it runs as root in CI.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(BUNDLE): node_modules/.installed $(wildcard frontend/editor/*.js)
	npm run --silent build

# Services the test-suite needs: PostgreSQL and Redis on 127.0.0.1, Chromium.
services:
	bash scripts/ensure-services.sh

# The suite runs on TEST_WORKERS processes (pytest-xdist; CI has 2 cores): each
# has its own test database, channel-layer prefix and Celery queue (settings/test.py).
TEST_WORKERS ?= 2

test: install services
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pytest -n $(TEST_WORKERS)

# The README's screenshots: the browser tests, writing their pictures into docs/.
screenshots: install services
	SCHEDLAB_SCREENSHOTS_DIR=$(CURDIR)/docs/screenshots $(PY) -m pytest tests/browser

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

# The production image, built here: a Debian base made with debootstrap when
# no image registry is reachable (BASE_IMAGE=python:3.11-slim-bookworm where
# one is). Starts a Docker daemon for the build if none runs (scripts/with-docker.sh).
# The editor bundle is built here first: the image copies static/ (static/build/ included).
image: $(BUNDLE)
	bash scripts/with-docker.sh bash deploy/docker/build-images.sh

# The image plus PostgreSQL and Redis images of docker-compose.offline.yml.
compose-images: $(BUNDLE)
	bash scripts/with-docker.sh bash deploy/docker/build-images.sh --compose

# Build, start the whole stack, log in, mirror, websockets, a dry-run on a
# worker, tear down (several minutes: not part of `make test`; docs/deployment.md).
compose-check:
	bash scripts/with-docker.sh bash scripts/compose-check.sh

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache node_modules static/build
