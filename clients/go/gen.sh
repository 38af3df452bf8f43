#!/usr/bin/env bash
# Generate the Go code for the tabletop protos into ./gen (run from this directory).
# Needs protoc, protoc-gen-go and protoc-gen-go-grpc on PATH (docs/api.md, "Go").
set -euo pipefail
PROTOS=${PROTOS:-../../protos}
MOD=example.com/tabletopdemo
M="Mtabletop/v1/tabletop.proto=$MOD/gen/tabletop/v1;tabletopv1"
M="$M,Mtabletop/huaniao/v1/huaniao.proto=$MOD/gen/tabletop/huaniao/v1;huaniaov1"
M="$M,Mtabletop/zipai/v1/zipai.proto=$MOD/gen/tabletop/zipai/v1;zipaiv1"
M="$M,Mtabletop/v1/lobby.proto=$MOD/gen/tabletop/v1;tabletopv1"
M="$M,Mtabletop/v1/ratings.proto=$MOD/gen/tabletop/v1;tabletopv1"
protoc -I "$PROTOS" \
  --go_out=. --go_opt=module=$MOD,$M \
  --go-grpc_out=. --go-grpc_opt=module=$MOD,$M \
  $(cd "$PROTOS" && find tabletop -name '*.proto' | sort | sed "s#^#$PROTOS/#")
