"""The wire floor: what a third party depends on. Protobuf to and from the domain, every
message rendered per viewer, the exact bytes a receipt covers, seals and their signatures,
offline replay of an exported record, and the referee's page. It imports only ``domain``
and the generated code, never the store, the use cases or the transport, so the auditor
(clients/python) can stand on it alone."""
