/**
 * Peer 1: @colyseus/auth 0.18's anonymous sign-in (POST /auth/anonymous) in its best setup for
 * speed: a KeyObject secret (jsonwebtoken then skips importing the key on every call) and users
 * kept in memory. Express, as @colyseus/auth's routes() expects. PORT from the environment.
 */
import crypto from "node:crypto";
import express from "express";
import { auth, JWT } from "@colyseus/auth";

JWT.settings.secret = crypto.createSecretKey(crypto.randomBytes(32));
const users = new Map();
auth.settings.onRegisterAnonymously = async (options) => {
  const user = { ...options, id: crypto.randomUUID(), anonymous: true };
  users.set(user.id, user);
  return user;
};

const app = express();
app.disable("x-powered-by");
app.get("/", (_req, res) => res.send("ok"));
app.use(auth.routes());
app.listen(Number(process.env.PORT), "127.0.0.1");
