# `make run`: set up, start DynamoDB Local (data kept in .dynamodb/), create the table,
# seed demo data and serve the gateway on http://127.0.0.1:8000/graphql.
# `make run DOCUMENTS=manifest.json` also registers a client's documents and serves only
# those (trusted documents), but to admins.
# `make run MODEL=examples/booking/model.py` serves that model (docs/model.md) with its demo
# data, in a table of its own (`TABLE`, named after the model unless given).
# `make test`: set up, then lint (ruff and the import contracts), type-check and run every
# test (each test session starts its own DynamoDB Local on a free port).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
DATA := .dynamodb
LOCAL_PORT ?= 8001
HOST ?= 127.0.0.1
PORT ?= 8000
# `make image`: docker, or `podman`/`buildah` (which need the docker format to keep HEALTHCHECK).
IMAGE_TOOL ?= docker
IMAGE ?= dynagate:local
MODEL ?=
TABLE ?= $(if $(MODEL),dynagate-$(subst /,-,$(subst .py,,$(MODEL))),$(or $(DYNAGATE_TABLE),dynagate))

.PHONY: install dynamodb-local browser redis nginx conformance clients tools wrk run test test-offline lint typecheck pytest schema bench peers image clean

$(INSTALLED): pyproject.toml setup.py constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --constraint constraints.txt -e '.[dev]'
	touch $(INSTALLED)

install: $(INSTALLED)

# Fetches the pinned DynamoDB Local into ~/.cache/dynagate and checks its checksum.
dynamodb-local: install
	@$(BIN)/python -c "from gateway.cli.dynamodb_local import describe, ensure_installed; print(describe(ensure_installed()))"

run: dynamodb-local
	@mkdir -p $(DATA)
	@$(BIN)/dynagate dynamodb-local --port $(LOCAL_PORT) --db-path $(DATA) & local=$$!; \
	trap 'kill $$local 2>/dev/null; wait $$local 2>/dev/null' EXIT INT TERM; \
	export DYNAGATE_DYNAMODB_ENDPOINT=http://127.0.0.1:$(LOCAL_PORT) DYNAGATE_TABLE='$(TABLE)'; \
	export DYNAGATE_CACHE=$${DYNAGATE_CACHE:-on}; \
	$(if $(MODEL),export DYNAGATE_MODEL='$(MODEL)';) \
	$(BIN)/python -c "from gateway.cli.dynamodb_local import wait_until_ready; wait_until_ready($(LOCAL_PORT))" && \
	$(BIN)/dynagate create-table && \
	$(BIN)/dynagate seed && \
	$(if $(DOCUMENTS),$(BIN)/dynagate documents add '$(DOCUMENTS)' && export DYNAGATE_DOCUMENTS=trusted &&) \
	echo "GraphiQL: http://$(HOST):$(PORT)/graphql" && \
	$(BIN)/dynagate serve --host $(HOST) --port $(PORT)

test: lint typecheck pytest

image:
	$(if $(filter docker,$(IMAGE_TOOL)),$(IMAGE_TOOL) build,$(IMAGE_TOOL) build --format docker) -t $(IMAGE) .

# `make image-check` (CI runs it after `make test`): builds the image from the Dockerfile
# and runs it as a user does, against a DynamoDB Local of its own: create-table, seed,
# check, serve answering a query, /healthz and its HEALTHCHECK, a model file mounted
# (tests/image/, docs/containers.md). As root, with podman, on a Debian base it
# makes itself (debootstrap; cached under ~/.cache/dynagate/image-check), the registry's
# python image being out of reach of a CI machine. runc besides crun: crun refuses hosts
# whose cgroups are half v1, half v2.
.PHONY: image-tools image-check
IMAGE_PACKAGES := podman buildah crun runc fuse-overlayfs uidmap debootstrap
NO_IMAGE_TOOLS := make image-check needs podman, runc and debootstrap, and root: install \
	Debian's $(IMAGE_PACKAGES)
image-tools:
	@if command -v podman >/dev/null && command -v runc >/dev/null \
	  && command -v debootstrap >/dev/null; then :; \
	elif $(CAN_APT_INSTALL); then \
	  echo "installing Debian's $(IMAGE_PACKAGES) for the image check"; \
	  { $(call APT_INSTALL,$(IMAGE_PACKAGES)); } || { echo "$(NO_IMAGE_TOOLS)" >&2; exit 1; }; \
	else \
	  echo "$(NO_IMAGE_TOOLS)" >&2; exit 1; \
	fi

image-check: dynamodb-local image-tools
	$(BIN)/python -m tests.image.check

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: install
	$(BIN)/mypy

pytest: dynamodb-local browser redis nginx conformance clients tools
	$(BIN)/python -m pytest

# A Debian package, as root or through `sudo -n`; the package lists are updated only when
# they do not know it. CAN_APT_INSTALL is true where that can work at all.
SUDO := $$( [ "$$(id -u)" = 0 ] || echo sudo -n )
APT_INSTALL = $(SUDO) apt-get install -y --no-install-recommends $(1) \
	|| { $(SUDO) apt-get update && $(SUDO) apt-get install -y --no-install-recommends $(1); }
CAN_APT_INSTALL = command -v apt-get >/dev/null \
	&& { [ "$$(id -u)" = 0 ] || sudo -n true 2>/dev/null; }
# The recipe of a program a test needs: $(1) the program the PATH or its variable gives
# (empty when none), $(2) what to install when it is missing, $(3) Debian's package of it,
# installed where apt-get can be used, $(4) what it is for.
FOUND_OR_INSTALLED = @if [ -n "$(1)" ]; then \
	  command -v "$(1)" >/dev/null || { echo "$(2)" >&2; exit 1; }; \
	elif $(CAN_APT_INSTALL); then \
	  echo "installing Debian's $(3) for $(4)"; \
	  { $(call APT_INSTALL,$(3)); } || { echo "$(2)" >&2; exit 1; }; \
	else \
	  echo "$(2)" >&2; exit 1; \
	fi

# The browser of the test that loads the playground: $CHROMIUM, else the first of these on
# the PATH (the test looks the same way). Without one, Debian's chromium is installed where
# apt-get can be used; anywhere else this says what to install.
# (macOS keeps them in application bundles, off the PATH.)
BROWSERS := chromium chromium-browser google-chrome google-chrome-stable \
	"/Applications/Chromium.app/Contents/MacOS/Chromium" \
	"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"
CHROMIUM ?= $(shell for name in $(BROWSERS); do command -v "$$name" && break; done)
NO_BROWSER := make test needs Chromium or Google Chrome: install it \
	(macOS: brew install --cask google-chrome) or set CHROMIUM=/path/to/browser
browser:
	$(call FOUND_OR_INSTALLED,$(CHROMIUM),$(NO_BROWSER),chromium,the browser test)

# The Redis server of the tests that share state between processes: $REDIS_SERVER, else
# redis-server or valkey-server on the PATH (the tests look the same way); without one,
# Debian's redis-server is installed where apt-get can be used; anywhere else this says
# what to install.
REDIS_SERVER ?= $(shell for name in redis-server valkey-server; do command -v "$$name" && break; done)
NO_REDIS := make test needs a Redis server: install redis-server or valkey-server \
	(macOS: brew install redis) or set REDIS_SERVER=/path/to/redis-server
redis:
	$(call FOUND_OR_INSTALLED,$(REDIS_SERVER),$(NO_REDIS),redis-server,the tests of several processes)

# The nginx of the test that runs deploy/nginx.conf in front of two replicas, as compose
# does: $NGINX, else nginx on the PATH or in /usr/sbin (the test looks the same way);
# without one, Debian's nginx is installed where apt-get can be used; anywhere else this
# says what to install.
NGINX ?= $(shell for name in nginx /usr/sbin/nginx; do command -v "$$name" && break; done)
NO_NGINX := make test needs nginx: install it (macOS: brew install nginx) \
	or set NGINX=/path/to/nginx
nginx:
	$(call FOUND_OR_INSTALLED,$(NGINX),$(NO_NGINX),nginx,the test of the replicas behind deploy/nginx.conf)

# The GraphQL over HTTP specification's server audits (graphql-http, pinned by the lock
# file), which a test runs with Node against the gateway.
CONFORMANCE := tests/conformance
conformance: $(CONFORMANCE)/node_modules/.installed
$(CONFORMANCE)/node_modules/.installed: NEEDED_BY := the HTTP conformance audits

# Apollo Client, urql and graphql-ws (pinned by the lock file), which a test runs with Node
# against the gateway, set up as apps set them up.
CLIENTS := tests/clients
clients: $(CLIENTS)/node_modules/.installed
$(CLIENTS)/node_modules/.installed: NEEDED_BY := the tests of real clients

# ElectroDB and dynamodb-onetable (pinned by the lock file), which a test runs with Node to
# write and read a table dynagate serves beside them.
TOOLS := tests/tools
tools: $(TOOLS)/node_modules/.installed
$(TOOLS)/node_modules/.installed: NEEDED_BY := the tests of tables other tools write

# Each folder's Node packages, installed as its lock file pins them.
NODE_PACKAGES := $(CONFORMANCE) $(CLIENTS) $(TOOLS)
$(NODE_PACKAGES:%=%/node_modules/.installed): %/node_modules/.installed: %/package.json %/package-lock.json
	@command -v npm >/dev/null || { echo "make test needs Node.js and npm ($(NEEDED_BY)): install them (macOS: brew install node)" >&2; exit 1; }
	npm ci --silent --no-audit --no-fund --prefix $*
	touch $@

# The tests that need no DynamoDB Local (keys, request builders, cursors, settings): seconds.
test-offline: install
	$(BIN)/python -m pytest -m "not dynamodb"

# Rewrites schema.graphql from the code (a test fails while they differ).
schema: install
	$(BIN)/dynagate export-schema --output schema.graphql

# Debian's wrk, the load generator of `make bench` (a C program: it leaves the CPUs to the
# servers it measures).
WRK ?= /usr/bin/wrk
wrk:
	@test -x $(WRK) || { \
	  echo "installing Debian's wrk for the benchmarks"; \
	  $(call APT_INSTALL,wrk); }

# The six access patterns against two hand-written floors (aioboto3 as users write it, and
# one on the store's own data path), then the scale curve, what demand control costs,
# subscriptions and more than one process (bench/results/; `python -m bench --help` for one
# at a time).
# `make bench peers`: only the gateway against Apollo Server and Strawberry written by hand
# (bench/peers/; needs Node.js and npm, and installs their pinned packages itself);
# `make bench peers PEERS_OPTIONS=--quick` for a run of seconds.
bench: dynamodb-local wrk $(if $(filter peers,$(MAKECMDGOALS)),,redis)
	$(if $(filter peers,$(MAKECMDGOALS)),@:,$(BIN)/python -m bench all)

peers: dynamodb-local wrk
	$(BIN)/python -m bench peers $(PEERS_OPTIONS)

# What setting up, building, running and checking made: the venv, the data of `make run`,
# GraphiQL's fetched files, packaging output and the tools' caches (benchmark results stay).
clean:
	rm -rf $(VENV) $(DATA) gateway/graphiql build dist *.egg-info dynamodb-local-metadata.json \
	  .mypy_cache .ruff_cache .pytest_cache .hypothesis .import_linter_cache \
	  tests/conformance/node_modules tests/clients/node_modules tests/tools/node_modules \
	  bench/peers/node/node_modules
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
