# kakurega — two commands on a fresh machine:
#   make demo   sets up .venv and runs the main job (train a PPO bot on KAKURENBO, evaluate it)
#   make test   sets up .venv and runs the test suite
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
JOBS   ?= 2

.PHONY: setup compile demo bots test fuzz bench envs clean

setup: $(STAMP)

# torch==2.13.0 is the CPU build pip finds locally; install it before anything
# that depends on torch so pip never pulls a multi-GB CUDA build.
$(STAMP): pyproject.toml setup.py
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[train,test,bench,compile]"
	touch $(STAMP)

# Recompile the Cython-built modules whose source changed (setup.py; about 1 s
# when nothing did). Without a C compiler the package simply stays pure Python.
compile: $(STAMP)
	$(PY) setup.py -q build_ext --inplace > $(VENV)/compile.log 2>&1 || (cat $(VENV)/compile.log; exit 1)

demo: compile
	$(VENV)/bin/kakurega quickstart --overwrite

# retrain every shipped bot (configs/bots/) from scratch and install it in agents/pretrained/
bots: compile
	$(VENV)/bin/kakurega train-bots

test: compile
	$(PY) -m pytest -q -n $(JOBS) -p no:cacheprovider

fuzz: compile
	$(PY) -m pytest -q -n $(JOBS) -p no:cacheprovider -m slow

bench: compile
	$(VENV)/bin/kakurega bench --json runs/bench.json

envs: $(STAMP)
	$(VENV)/bin/kakurega envs

clean:
	rm -rf $(VENV) runs build *.egg-info
	find envs -name '*.so' -delete -o -name '*.c' -delete
