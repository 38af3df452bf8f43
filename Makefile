# Everything you can do with this project. `make help` lists it.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
GEN    := gen
PROTOS := $(shell find protos -name '*.proto')
ARGS   ?=

.DEFAULT_GOAL := help
.PHONY: help install gen web peers browser run test test-fast test-failover selfplay lint migrate demo bench clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@

install: $(STAMP) ## create .venv and install the project with its dev tools

$(GEN)/.stamp: $(STAMP) $(PROTOS)
	rm -rf $(GEN) && mkdir -p $(GEN)
	$(BIN)/python -m grpc_tools.protoc -Iprotos --python_out=$(GEN) --grpc_python_out=$(GEN) \
		--plugin=protoc-gen-mypy=$(BIN)/protoc-gen-mypy --mypy_out=$(GEN) \
		--plugin=protoc-gen-mypy_grpc=$(BIN)/protoc-gen-mypy_grpc --mypy_grpc_out=$(GEN) \
		--plugin=protoc-gen-connectrpc=$(BIN)/protoc-gen-connectrpc --connectrpc_out=$(GEN) \
		--connectrpc_opt=protobuf=google \
		--descriptor_set_out=$(GEN)/descriptors.binpb --include_source_info --include_imports $(PROTOS)
	$(BIN)/python -c "import site,os; open(os.path.join(site.getsitepackages()[0],'tabletop_gen.pth'),'w').write(os.path.abspath('$(GEN)')+'\n')"
	touch $@

gen: $(GEN)/.stamp ## generate the Python gRPC and Connect code from protos/ into gen/

# The browser play page (clients/web): npm ci when package-lock.json changed, the TypeScript
# code protoc-gen-es generates from protos/ (and google/rpc/error_details.proto, for the rich
# errors), the page's words from server/wire/page/terms.py (and the move glosses of
# clients/python/vocab.py), then a type check and the esbuild
# bundles into clients/web/dist/: the play page, which the server serves with --web-port, and
# the referee console (console.js, console.css), which server/wire/page inlines into every
# console page (the live viewer, /console/GAME, `tabletop replay --html`).
WEB     := clients/web
WEB_SRC := $(wildcard $(WEB)/src/* $(WEB)/src/*/*) $(WEB)/build.mjs $(WEB)/verify-protos.mjs $(WEB)/view-shape.mjs $(WEB)/tsconfig.json

$(WEB)/node_modules/.stamp: $(WEB)/package.json $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund
	touch $@

$(WEB)/gen/.stamp: $(WEB)/node_modules/.stamp $(GEN)/.stamp $(PROTOS) server/wire/page/terms.py clients/python/vocab.py $(WEB)/verify-protos.mjs $(WEB)/view-shape.mjs
	rm -rf $(WEB)/gen && mkdir -p $(WEB)/gen
	$(BIN)/python -m grpc_tools.protoc -Iprotos \
		-I"$$($(BIN)/python -c 'import google.rpc.error_details_pb2 as m, pathlib; print(pathlib.Path(m.__file__).parents[2])')" \
		--plugin=protoc-gen-es=$(WEB)/node_modules/.bin/protoc-gen-es --es_out=$(WEB)/gen --es_opt=target=ts \
		$(PROTOS) google/rpc/error_details.proto
	$(BIN)/python -c "import json; from server.wire.page.terms import terms; from clients.python.vocab import GLOSSES; \
		print(json.dumps({**terms(), 'glosses': GLOSSES}, ensure_ascii=False))" > $(WEB)/gen/terms.json
	cd $(WEB) && node verify-protos.mjs && node view-shape.mjs
	touch $@

$(WEB)/dist/.stamp: $(WEB)/gen/.stamp $(WEB_SRC) clients/node/gen/words.json $(wildcard clients/node/lib/*.js)
	cd $(WEB) && node_modules/.bin/tsc -p . && node build.mjs
	touch $@

# The Node verifier's words (clients/node/lib/render.js re-renders a viewer's events, their
# text in the games' words): one table generated from the domain's own, as terms.json is.
NODE_WORDS := clients/node/gen/words.json

$(NODE_WORDS): $(GEN)/.stamp server/wire/render_words.py domain/huaniao/terms.py domain/huaniao/cards.py \
		domain/huaniao/options.py domain/zipai/cards.py domain/zipai/views.py
	mkdir -p $(dir $@)
	$(BIN)/python -m server.wire.render_words > $@.tmp && mv $@.tmp $@

web: $(WEB)/dist/.stamp $(NODE_WORDS) ## build the browser play page into clients/web/dist (npm ci, protoc-gen-es, esbuild), and the Node verifier's words


# The peer benchmark's Node servers and clients (bench/peers: boardgame.io, Colyseus), npm ci
# from its package-lock.json when that changed (bench/peers/.npmrc: legacy-peer-deps, as
# Colyseus's optional uWebSockets.js peer comes from GitHub, which is out of reach here).
PEERS := bench/peers

$(PEERS)/node_modules/.stamp: $(PEERS)/package.json $(PEERS)/package-lock.json
	cd $(PEERS) && npm ci --no-audit --no-fund
	touch $@

peers: $(PEERS)/node_modules/.stamp ## install the peer benchmark's npm packages (boardgame.io, Colyseus) into bench/peers

browser: $(STAMP) ## install headless chromium + chromedriver for the browser tests if missing
	$(BIN)/python -m tests.support.browser

run: gen web ## start a development server on 127.0.0.1:50051 (the play page on :8080), SQLite in ./data, prepared deals allowed (ARGS="--help" for flags)
	$(BIN)/python -m server.startup.main --allow-prepared-deals --web-port 8080 --web-bots $(ARGS)

lint: gen ## ruff and mypy
	$(BIN)/ruff check domain server clients tests bench
	$(BIN)/mypy domain server clients bench tests/support

# Test workers: one per core. The suite is CPU-bound: with two workers the cores were 15%
# idle, with three 3%, and the suite took the same time (17 min 30 s and 17 min 24 s of
# pytest on two cores, 2026-12-07, morning), so a third worker only adds contention to timed
# waits. Measured per test (its worker's CPU and its reaped children's), a quarter of the
# workers' time was waiting; the background run below fills it (the cores 0% idle): 16 min
# 56 s of pytest before, 14:41, 14:36 and 14:12 after on a quiet machine, and `make test`
# from a clean clone (venv, npm ci and all) 15 min 22 s, 2026-12-07.
TEST_WORKERS ?= 2

# Two pytest runs side by side: the tests marked ``background`` (in-process, untimed,
# CPU-bound: tests/conftest.py, BACKGROUND) at nice 19, filling the cores while the others wait
# for servers, browsers and clocks, and the rest at normal priority. The background run's
# per-test timeout is long: at nice 19 it may get almost no CPU while the other run is busy,
# and it finishes on both cores once that run is done. Its report comes after the other's;
# `make test` fails if either run fails (no test selected in one of them is not a failure).
test: gen web peers lint browser ## the whole suite (lint included; the 25 longest tests listed at the end)
	@back=$$(mktemp); \
	nice -n 19 $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup -q -p no:cacheprovider \
		--timeout 3600 --durations=10 -m background $(ARGS) > $$back 2>&1 & bg=$$!; \
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup -q --durations=25 -m "not background" $(ARGS); main=$$?; \
	wait $$bg; background=$$?; \
	echo; echo "=== the background tests (tests/conftest.py, BACKGROUND; nice 19) ==="; cat $$back; rm -f $$back; \
	case "$$main:$$background" in 0:0|0:5|5:0) exit 0;; *) exit 1;; esac

test-fast: gen web peers browser ## the suite without lint, stop at the first failure
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup -q -x $(ARGS)

test-failover: gen ## only the database failover test (part of `make test`; as root, apt-get installs patroni and etcd-server if missing)
	$(BIN)/python -m pytest -q -s tests/e2e/test_failover.py $(ARGS)

selfplay: gen ## issue 14's heavy self-play: 2,000 random games per mode and per seat count
	SELFPLAY_GAMES=2000 $(BIN)/python -m pytest -n 2 -q -p no:cacheprovider \
		tests/domain/huaniao/test_huaniao_selfplay.py::test_every_mode_and_seat_count_ends_and_keeps_invariants \
		tests/domain/zipai/test_zipai_selfplay.py::test_random_hands_end_in_hu_or_huang_zhuang $(ARGS)

migrate: gen ## create the PostgreSQL tables once, before starting replicas (POSTGRES_* settings)
	$(BIN)/python -m server.startup.migrate --store postgres $(ARGS)

demo: gen ## four bots play `tabletop play`'s default game (专业 with 阳春白雪) over gRPC while one seat's stream is printed
	$(BIN)/python -m clients.python.demo $(ARGS)

bench: gen peers ## benchmarks; results go to docs/benchmarks.md (ARGS='--only peers' for the peer table)
	$(BIN)/python -m bench.run $(ARGS)

clean: ## remove generated code, the venv and local data
	rm -rf $(GEN) $(VENV) data .pytest_cache .mypy_cache .ruff_cache
