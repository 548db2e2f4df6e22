/**
 * Baseline 2 for `npm run bench`: the same JSON answer from a bare Express 5 app, the framework
 * the service's HTTP edge runs on. Listens on 127.0.0.1:$PORT and prints the port it got.
 */
import express from "express";

const app = express();
app.disable("x-powered-by");
app.get("/", (_req, res) => {
  res.json({ success: true, message: "ok", data: { hello: "world" } });
});

const server = app.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`express-hello listening on ${typeof address === "object" && address ? address.port : "?"}\n`);
});

const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
