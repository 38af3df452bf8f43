"""The browser door (``--web-port``), in its own rooms, one job each.

Browsers cannot speak gRPC (they have no HTTP/2 trailers), so the web port serves the same
``protos/`` service over the Connect protocol and gRPC-Web with the ``connectrpc`` library,
on uvicorn, on the server's own asyncio loop. Routes, all on one origin:

* ``POST /tabletop.v1.TableService/METHOD`` -- every method of ``TableService``, unary and
  server streams (Watch, Replay), in Connect (``application/json``, ``application/proto``,
  ``application/connect+json|proto`` for streams) or gRPC-Web
  (``application/grpc-web+proto``, ``application/grpc-web+json``).
* ``POST /bots`` -- ``{"game_id": ..., "token": ...}``: bots take the game's free seats
  (``python -m clients.python.cli bots --join``, a gRPC client of its own), with
  ``--web-bots`` only.
* ``GET /...`` -- the play page's built files (``--web-root``, clients/web/dist).

The rooms (arrows point down; ``api`` and ``bots`` never import each other):

* ``server.py`` -- ``WebServer``: uvicorn on the running loop, the loopback gRPC channel,
  ``WebSettings``.
* ``origin.py`` -- ``WebApp``: the one origin's routing, CORS, ``POST /bots``'s HTTP side and
  the play page's static files.
* ``api.py`` -- the Connect/gRPC-Web forwarder: each call forwarded as its bytes to this
  process's own gRPC port.
* ``bots.py`` -- the bot processes ``POST /bots`` starts: counted, watched, ended.

Nothing is imported here, so that importing one room does not pull uvicorn in.
"""
