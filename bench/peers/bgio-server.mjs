// boardgame.io 0.50 server for the peer benchmark: node bgio-server.mjs PORT [FLATFILE_DIR]
// (in memory without a directory). Prints "listening PORT" once it serves.
import { createRequire } from "node:module";
import { followSuit } from "./bgio-game.mjs";

const require = createRequire(import.meta.url);
const { Server, FlatFile } = require("boardgame.io/server");

const [port, dir] = process.argv.slice(2);
const db = dir ? new FlatFile({ dir, logging: false }) : undefined;
const server = Server({ games: [followSuit()], ...(db ? { db } : {}) });
const running = await server.run({ port: Number(port) });
console.log(`listening ${running.appServer.address().port}`);
