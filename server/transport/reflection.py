"""Server reflection that serves the protos with their comments (source info).

The stock servicer rebuilds each file descriptor from the runtime pool, which keeps no
source info, so `grpcurl describe` and evans showed no comments. `make gen` writes the
descriptor set with ``--include_source_info`` (gen/descriptors.binpb); this servicer answers
with those files, comments included, and falls back to the pool's for any other file.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection
from grpc_reflection.v1alpha import reflection_pb2 as rpb

import tabletop

DESCRIPTORS = Path(next(iter(tabletop.__path__))).parent / "descriptors.binpb"


def load_sources(path: Path = DESCRIPTORS) -> dict[str, bytes]:
    """Each file of the descriptor set, serialized, by file name (empty when absent)."""
    if not path.exists():
        return {}
    files = descriptor_pb2.FileDescriptorSet.FromString(path.read_bytes())
    return {f.name: f.SerializeToString() for f in files.file}


class SourceReflectionServicer(reflection.aio.ReflectionServicer):  # type: ignore[misc]
    def __init__(self, service_names: Iterable[str], sources: dict[str, bytes]) -> None:
        super().__init__(service_names)
        self._sources = sources

    def _with_sources(self, response: rpb.ServerReflectionResponse) -> Any:
        if response.HasField("file_descriptor_response"):
            protos = response.file_descriptor_response.file_descriptor_proto
            for i, raw in enumerate(protos):
                name = descriptor_pb2.FileDescriptorProto.FromString(raw).name
                if name in self._sources:
                    protos[i] = self._sources[name]
        return response

    def _file_by_filename(self, request: Any, filename: str) -> Any:
        return self._with_sources(super()._file_by_filename(request, filename))

    def _file_containing_symbol(self, request: Any, name: str) -> Any:
        return self._with_sources(super()._file_containing_symbol(request, name))

    def _file_containing_extension(self, request: Any, containing: str, number: int) -> Any:
        return self._with_sources(super()._file_containing_extension(request, containing, number))


def enable(service_names: Iterable[str], server: Any) -> None:
    from grpc_reflection.v1alpha import reflection_pb2_grpc

    names = list(service_names)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(
        SourceReflectionServicer(names, load_sources()), server
    )
