# kakurega — two commands on a fresh machine:
#   make demo   sets up .venv and runs the main job (train a PPO bot on Summer Hide-and-Seek, evaluate it)
#   make test   sets up .venv and runs the test suite
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
# AgileRL pins pettingzoo<1.27, so its smoke test runs in a venv of its own
AGILE_VENV  ?= .venv-agilerl
AGILE_PY    := $(AGILE_VENV)/bin/python
AGILE_STAMP := $(AGILE_VENV)/.installed-stamp
JOBS   ?= 2

.PHONY: setup compile demo bots lint test fuzz bench envs clean

setup: $(STAMP)

# torch==2.13.0 is the CPU build pip finds locally; install it before anything
# that depends on torch so pip never pulls a multi-GB CUDA build.
$(STAMP): pyproject.toml setup.py
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[train,test,bench,compile,integrations,rllib,web,browser]"
	touch $(STAMP)

$(AGILE_STAMP): pyproject.toml setup.py
	test -x $(AGILE_PY) || python3 -m venv $(AGILE_VENV)
	$(AGILE_PY) -m pip install -q --upgrade pip
	$(AGILE_PY) -c "import torch" 2>/dev/null || $(AGILE_PY) -m pip install -q torch==2.13.0
	$(AGILE_PY) -m pip install -q -e ".[train,test,agilerl]"
	touch $(AGILE_STAMP)

# Recompile the Cython-built modules whose source changed (setup.py; about 1 s
# when nothing did). Without a C compiler the package simply stays pure Python.
compile: $(STAMP)
	$(PY) setup.py -q build_ext --inplace > $(VENV)/compile.log 2>&1 || (cat $(VENV)/compile.log; exit 1)

demo: compile
	$(VENV)/bin/kakurega quickstart --overwrite

# retrain every shipped bot (configs/bots/) from scratch and install it in agents/pretrained/
bots: compile
	$(VENV)/bin/kakurega train-bots

# ruff (pyproject.toml [tool.ruff]); `$(PY) -m ruff check --fix .` applies the mechanical fixes
lint: $(STAMP)
	$(PY) -m ruff check .

test: lint compile $(AGILE_STAMP)
	$(PY) -m pytest -q -n $(JOBS) -p no:cacheprovider
	$(AGILE_PY) -m pytest -q -p no:cacheprovider tests/integrations/test_agilerl.py

fuzz: compile
	$(PY) -m pytest -q -n $(JOBS) -p no:cacheprovider -m slow

bench: compile
	$(VENV)/bin/kakurega bench --json runs/bench.json

envs: $(STAMP)
	$(VENV)/bin/kakurega envs

clean:
	rm -rf $(VENV) $(AGILE_VENV) runs build *.egg-info
	find envs -name '*.so' -delete
