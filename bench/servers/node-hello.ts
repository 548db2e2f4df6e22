/**
 * Baseline 1 for `npm run bench`: the cheapest possible JSON answer from `node:http`.
 * Listens on 127.0.0.1:$PORT (0 picks a free port) and prints the port it got.
 */
import http from "node:http";

const body = Buffer.from(JSON.stringify({ success: true, message: "ok", data: { hello: "world" } }));

const server = http.createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": body.length });
  res.end(body);
});

server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`node-hello listening on ${typeof address === "object" && address ? address.port : "?"}\n`);
});

const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
