# Two entry points, both self-installing on a machine with only Python >= 3.11:
#   make reports   execute every notebook on the demo data into reports/
#   make test      run the test suite
# and the checks CI runs before the tests:
#   make lint      ruff (style, imports, bugs, numpy docstrings) and mypy (types of ragnb/)
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: reports test lint install lab bench bench-scale demo clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,lint]'
	touch $@

install: $(BIN)/.installed

reports: $(BIN)/.installed
	$(BIN)/ragnb report --all

test: $(BIN)/.installed
	$(BIN)/python -m pytest

lint: $(BIN)/.installed
	$(BIN)/ruff check ragnb tests benchmarks
	$(BIN)/mypy

# JupyterLab on the notebooks, reading a workspace: make lab WORKSPACE=my-eval (default: the demo);
# more options of ragnb lab in LAB_ARGS, e.g. as root in a container: make lab LAB_ARGS=--allow-root
lab: $(BIN)/.installed
	$(BIN)/ragnb lab $(if $(WORKSPACE),--workspace '$(WORKSPACE)') $(LAB_ARGS)

demo: $(BIN)/.installed
	$(BIN)/ragnb demo --out data/demo

bench: $(BIN)/.installed
	$(BIN)/python benchmarks/bench_metrics.py
	$(BIN)/python benchmarks/bench_stats.py
	$(BIN)/python benchmarks/bench_whatif.py
	$(BIN)/python benchmarks/bench_startup.py

# opt-in: 1,000,000 queries x depth 100 (data cached under the temp dir, ~8 GB)
bench-scale: $(BIN)/.installed
	$(BIN)/python benchmarks/bench_scale.py

clean:
	rm -rf $(VENV) reports/*.html reports/*.ipynb
