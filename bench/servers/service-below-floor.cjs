/**
 * The service, as `npm start` runs it, on a Node older than its floor (22): only so the bench can
 * measure login and /users/me on the machine's Node 20 beside Node 22 in one run (issue 50's "no
 * slower than on Node 20"). The floor check is answered "nothing wrong" for this process alone; the
 * server itself refuses Node 20 (src/config/node-floor.ts), and nothing but these A/B rows runs so.
 *
 * Plain CommonJS, as bench/servers/room-traffic-service.cjs. Env: BENCH_SERVICE_ROOT.
 */
"use strict";
const path = require("node:path");
const Module = require("node:module");

const root = process.env.BENCH_SERVICE_ROOT;
if (!root) throw new Error("BENCH_SERVICE_ROOT is not set");

const floorFile = require.resolve(path.join(root, "src/config/node-floor"));
const floor = new Module(floorFile, module);
floor.filename = floorFile;
floor.loaded = true;
floor.exports = { NODE_FLOOR: 22, nodeFloorProblem: () => undefined };
require.cache[floorFile] = floor;

require(path.join(root, "src/server/index"));
