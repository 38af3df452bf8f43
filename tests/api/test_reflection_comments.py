"""Reflection serves the protos with their comments, so `grpcurl describe` and evans show
them (issue 15): a comment is read back through the reflection service itself."""

from __future__ import annotations

import grpc
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2 as rpb
from grpc_reflection.v1alpha import reflection_pb2_grpc as rpb_grpc

from clients.python.serverproc import ServerProcess

SERVICE_PATH = 6  # FileDescriptorProto.service
METHOD_PATH = 2  # ServiceDescriptorProto.method
MESSAGE_PATH = 4  # FileDescriptorProto.message_type
FIELD_PATH = 2  # DescriptorProto.field


def files_for(target: str, symbol: str) -> dict[str, descriptor_pb2.FileDescriptorProto]:
    with grpc.insecure_channel(target) as channel:
        stub = rpb_grpc.ServerReflectionStub(channel)
        request = rpb.ServerReflectionRequest(file_containing_symbol=symbol)
        (reply,) = list(stub.ServerReflectionInfo(iter([request]), timeout=10))
    files = [
        descriptor_pb2.FileDescriptorProto.FromString(raw)
        for raw in reply.file_descriptor_response.file_descriptor_proto
    ]
    return {f.name: f for f in files}


def comment(f: descriptor_pb2.FileDescriptorProto, path: list[int]) -> str:
    for loc in f.source_code_info.location:
        if list(loc.path) == path:
            return loc.leading_comments
    return ""


def test_reflection_serves_rpc_and_field_comments(server: ServerProcess) -> None:
    files = files_for(server.target, "tabletop.v1.TableService")
    main = files["tabletop/v1/tabletop.proto"]
    service = main.service[0]
    i = [m.name for m in service.method].index("LegalMoves")
    assert "what the caller's seat may do now" in comment(main, [SERVICE_PATH, 0, METHOD_PATH, i])
    msg = [m.name for m in main.message_type].index("LegalMovesResponse")
    fields = [f.name for f in main.message_type[msg].field]
    assert "the game's own" in comment(
        main, [MESSAGE_PATH, msg, FIELD_PATH, fields.index("labels")]
    )
    # the game packages the service depends on come with their comments too
    zipai = files["tabletop/zipai/v1/zipai.proto"]
    assert any(loc.leading_comments for loc in zipai.source_code_info.location)
