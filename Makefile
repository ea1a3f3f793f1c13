# Every target sets up what it needs first (a .venv with the pinned packages, Graphviz's dot, the
# npm packages of the browser tests), and does so only once: a second run reinstalls nothing unless
# requirements.txt or package.json changed.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
ADDR ?= 127.0.0.1:8000
# options of tools/bench.py, e.g. make bench BENCH_ARGS="--repeat 1 --skip-scaling --skip-serve"
BENCH_ARGS ?=
# test processes (pytest-xdist): the suite's modules are shared out among them, each kept whole
TEST_JOBS ?= 2

# Material 9.8 prints an end-of-life notice on every build; silence it in logs.
export NO_MKDOCS_2_WARNING := 1
# Reproducible builds: dates in the sitemap come from the last commit, not from today.
export SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)

.PHONY: setup serve build test test-fast screenshots lint fix check notebooks drift upgrade bench linkcheck clean

$(STAMP): requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
	  echo "Python 3.11 or newer is needed as '$(PYTHON)' (on macOS: brew install python@3.11, then make PYTHON=python3.11 ...)" >&2; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	@touch $(STAMP)

$(NODE_STAMP): package.json package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  npm ci --no-audit --no-fund --loglevel=error && touch $(NODE_STAMP); \
	else \
	  echo "npm not found: the accessibility checks (axe-core) will be skipped; install Node.js and npm to run them"; \
	fi

# docexec and the hook compiled to bytecode, as pip compiles an installed package: the editable
# install leaves that to Python, which skips it where PYTHONDONTWRITEBYTECODE is set (then every
# build would compile docexec again: about 0.1 s). Again whenever one of their files changed.
BYTECODE := $(VENV)/.bytecode
$(BYTECODE): $(STAMP) $(wildcard docexec/*.py docexec/*/*.py docexec/*/*/*.py hooks/*.py)
	@$(BIN)/python -m compileall -q docexec hooks >/dev/null
	@touch $(BYTECODE)

setup: $(STAMP) $(NODE_STAMP) $(BYTECODE)
	@tools/ensure-graphviz

serve: setup  ## serve the site at http://$(ADDR) with live reload (elsewhere: make serve ADDR=host:port)
	@$(BIN)/python tools/address-free $(ADDR)
	$(BIN)/mkdocs serve --livereload --dev-addr $(ADDR)

build: setup  ## strict build into site/
	$(BIN)/mkdocs build --strict --site-dir site

test: setup lint  ## the linter, then the whole test suite
	$(BIN)/python -m pytest -n $(TEST_JOBS) --dist loadfile --durations=12

# test-fast shares out single tests, not modules, each process taking more from the other's share
# when it runs out: kept whole, the two largest modules (test_execute, test_runner: 30 s each) left
# one process working alone for 20 s. A module's shared fixtures (3 to 6 s at most here) are then
# made in each process that runs one of its tests.
test-fast: setup  ## the tests marked slow left out (site builds, browsers, a second PyTorch, timeouts): for the edit loop
	$(BIN)/python -m pytest -n $(TEST_JOBS) --dist worksteal -m "not slow"

screenshots: setup  ## the browser tests, with full-page screenshots of every chapter and notebook page in .cache/screenshots/
	SCREENSHOTS=1 $(BIN)/python -m pytest tests/test_browser.py

lint: setup  ## ruff, with the rules of pyproject.toml
	$(BIN)/ruff check .

check: setup  ## run every snippet and check its claims, without building the site
	$(BIN)/python -m docexec check

fix: setup  ## rewrite stale output claims in snippets/ and regenerate diagrams/*.dot
	$(BIN)/python -m docexec fix

notebooks: setup  ## write the chapter notebooks into site/notebooks (for hosts that run no MkDocs hook)
	$(BIN)/python -m docexec notebooks site/notebooks

drift: setup  ## run every example on another PyTorch too (TORCH=2.14.1): report what would change, write drift.json
	@test -n "$(TORCH)" || { echo "make drift needs the other PyTorch: make drift TORCH=<version> (such as 2.14.1)" >&2; exit 2; }
	$(BIN)/python -m docexec drift --torch $(TORCH) $(if $(filter 0,$(RECORD)),--no-record)

upgrade: setup  ## move the pin to another PyTorch (TORCH=2.14.1): make fix on it, pin changed everywhere, diff left
	@test -n "$(TORCH)" || { echo "make upgrade needs the PyTorch to move to: make upgrade TORCH=<version>" >&2; exit 2; }
	$(BIN)/python -m docexec upgrade --torch $(TORCH)

bench: setup  ## build-time benchmark against markdown-exec and plain Material (see tools/bench.py)
	$(BIN)/python tools/bench.py $(BENCH_ARGS)

linkcheck: build  ## opt-in: check every link of the built site, external ones included (needs network)
	$(BIN)/python -m pip install --quiet linkchecker==10.6.0
	$(BIN)/linkchecker --check-extern --no-status site/index.html

clean:  ## remove the built site and every cache (runs, figures, notebooks, drift environments)
	rm -rf site .cache
