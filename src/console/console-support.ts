/**
 * The console's customer-service screen (docs/growth.md#customer-service-messages): the app's
 * conversations, most recently active first, one per player; a player's messages and the replies;
 * and a reply (support), sent through the player's platform and audited as `support.reply`.
 */
import type { Router } from "express";
import { z } from "zod";
import { parseInput } from "../http/validate";
import type { SupportMessage } from "../core/ports/support-messages";
import { REPLY_ID } from "../services/growth/support-desk";
import { SUPPORT_TEXT_MAX } from "../platforms/wechat/wechat-support";
import { appQuery, knownApp, knownPlayer } from "./console-apps";
import type { ConsoleScreen } from "./console-screens";
import { userIdParam } from "./console-schemas";

export const supportReplyBody = z.object({
  app: z.string().min(1).max(64).default("default"),
  text: z.string().trim().min(1).max(SUPPORT_TEXT_MAX).meta({ example: "Thanks, your gems are back." }),
  replyId: z.string().regex(REPLY_ID).meta({ description: "Chosen by the console per reply: a repeat with the same id sends nothing again", example: "r-7f3a9c" }),
});

const messageView = z.strictObject({
  messageId: z.string(),
  platform: z.string(),
  direction: z.enum(["in", "out"]),
  kind: z.enum(["text", "image", "page", "enter"]),
  text: z.string(),
  detail: z.record(z.string(), z.string()),
  operator: z.string().nullable(),
  at: z.string(),
});
export const supportConversationsSchema = z.strictObject({
  app: z.string(),
  conversations: z.array(z.strictObject({ userId: z.string(), platform: z.string(), waiting: z.int().min(0).max(1_000_000).meta({ description: "The player's messages since the last reply", example: 2 }), last: messageView })),
});
export const supportConversationSchema = z.strictObject({ app: z.string(), userId: z.string(), messages: z.array(messageView) });
export const supportReplySchema = z.strictObject({ app: z.string(), userId: z.string(), sent: z.boolean(), message: messageView });

const view = ({ appId: _app, userId: _user, ...m }: SupportMessage) => m;

export const supportScreen: ConsoleScreen = {
  id: "support",
  title: "Customer service",
  role: "viewer",
  routes(router: Router, { services, guard }) {
    router.get("/support/conversations", ...guard.read("viewer", async (req) => {
      const app = knownApp(services, parseInput(appQuery, req.query).app);
      const conversations = await services.support.conversations(app);
      return { app, conversations: conversations.map((c) => ({ userId: c.userId, platform: c.platform, waiting: c.waiting, last: view(c.last) })) };
    }));
    router.get("/support/players/:userId", ...guard.read("viewer", async (req) => {
      const userId = parseInput(userIdParam, req.params).userId;
      const app = knownApp(services, parseInput(appQuery, req.query).app);
      return { app, userId, messages: (await services.support.conversation(app, userId)).map(view) };
    }));
    router.post("/support/players/:userId/reply", ...guard.change("support.reply", "support", async (req, session) => {
      const userId = await knownPlayer(services, parseInput(userIdParam, req.params).userId);
      const body = parseInput(supportReplyBody, req.body ?? {});
      const app = knownApp(services, body.app);
      const { message, sent } = await services.support.reply(app, userId, { text: body.text, replyId: body.replyId, operator: session.operator.name });
      return { target: userId, detail: { app, platform: message.platform, replyId: body.replyId, sent, length: body.text.length }, result: { app, userId, sent, message: view(message) } };
    }));
  },
};
