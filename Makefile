# Two entry points a newcomer needs (see README): `make demo` and `make test`.
# Both create .venv on first use; torch is installed first, pinned to the CPU wheel
# that the project's machines carry, so no dependency range ever pulls CUDA builds.
PYTHON ?= python3
VENV ?= .venv
TORCH ?= torch==2.13.0
BIN := $(VENV)/bin
# test workers: one per core, at most 4 (each loads its own models); a whole test file stays on
# one worker so that its module fixtures are built once
TEST_JOBS ?= auto
STAMP := $(VENV)/.installed

.PHONY: install demo test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet "$(TORCH)"
	$(BIN)/pip install --quiet -e ".[train,dev]"
	# angle-emb (the loss oracle) pins an older transformers: its own deps come with [dev]
	$(BIN)/pip install --quiet --no-deps "angle-emb==0.6.1"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/issues-sts demo

test: $(STAMP)
	$(BIN)/python -m pytest -q -n $(TEST_JOBS) --maxprocesses 4 --dist loadfile

lint: $(STAMP)
	$(BIN)/ruff check issues_sts training tests benchmarks
	$(BIN)/ruff format --check issues_sts training tests benchmarks
	$(BIN)/mypy issues_sts training

bench: $(STAMP)
	$(BIN)/python -m benchmarks all

clean:
	rm -rf $(VENV) data/demo
