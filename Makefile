# Every target installs what it needs: a fresh clone only needs `make demo` or `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test test-fast lint bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

demo: setup  ## build with the reference developer, evaluate offline, print the score table
	$(BIN)/hypertau run --developer reference --task retail-01 --trials 2 --out runs/demo --overwrite

test: setup  ## the whole test suite (Docker tests included when an engine answers)
	$(BIN)/python -m pytest -q

test-fast: setup
	$(BIN)/python -m pytest -q -m "not slow and not docker"

lint: setup
	$(BIN)/ruff check .

bench: setup
	$(BIN)/python benchmarks/eval_throughput.py
	$(BIN)/python benchmarks/gateway_latency.py

clean:
	rm -rf $(VENV) runs .pytest_cache build *.egg-info
