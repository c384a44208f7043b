# kakurega — two commands on a fresh machine:
#   make demo   sets up .venv and runs the main job (train a PPO bot on KAKURENBO, evaluate it)
#   make test   sets up .venv and runs the test suite
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
JOBS   ?= 2

.PHONY: setup demo test fuzz bench envs clean

setup: $(STAMP)

# torch==2.13.0 is the CPU build pip finds locally; install it before anything
# that depends on torch so pip never pulls a multi-GB CUDA build.
$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[train,test,bench]"
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/kakurega quickstart

test: $(STAMP)
	$(PY) -m pytest -q -n $(JOBS) -p no:cacheprovider

fuzz: $(STAMP)
	$(PY) -m pytest -q -n $(JOBS) -p no:cacheprovider -m slow

bench: $(STAMP)
	$(VENV)/bin/kakurega bench --json runs/bench.json

envs: $(STAMP)
	$(VENV)/bin/kakurega envs

clean:
	rm -rf $(VENV) runs build *.egg-info
