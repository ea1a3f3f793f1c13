# Every target sets up what it needs first (a .venv with the pinned packages, Graphviz's dot),
# and does so only once: a second run reinstalls nothing unless requirements.txt changed.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
ADDR ?= 127.0.0.1:8000

# Material 9.8 prints an end-of-life notice on every build; silence it in logs.
export NO_MKDOCS_2_WARNING := 1

.PHONY: setup serve build test fix check clean

$(STAMP): requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
	  echo "Python 3.11 or newer is needed as '$(PYTHON)' (on macOS: brew install python@3.11, then make PYTHON=python3.11 ...)" >&2; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	@touch $(STAMP)

setup: $(STAMP)
	@tools/ensure-graphviz

serve: setup  ## serve the site at http://$(ADDR) with live reload
	$(BIN)/mkdocs serve --livereload --dev-addr $(ADDR)

build: setup  ## strict build into site/
	$(BIN)/mkdocs build --strict --site-dir site

test: setup  ## the whole test suite
	$(BIN)/python -m pytest

check: setup  ## run every snippet and check its claims, without building the site
	$(BIN)/python -m docexec check

fix: setup  ## rewrite stale output claims in snippets/
	$(BIN)/python -m docexec fix

clean:
	rm -rf site .cache
