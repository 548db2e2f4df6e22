/**
 * Operators' mail with attachments (MailStore): sent to one player or to every player of an app
 * (one record, never a row per player), listed by each player, and claimed once: the grant is
 * keyed by the RewardGranter as (app, "mail", "<mailId>:<userId>"), then the claim is marked. A
 * replay, or a claim whose mark a crash lost, repeats the grant, which changes nothing.
 */
import crypto from "node:crypto";
import { AppError, invalidRequest, type FieldProblem } from "../../core/errors";
import type { Mail, MailAttachments, MailStore } from "../../core/ports/mail-store";
import type { RewardGrantResult, RewardGranter } from "../../core/ports/reward-grants";

const ID = /^[A-Za-z0-9_.:-]{1,128}$/;
const MAIL_ID = /^[A-Za-z0-9_-]{1,64}$/;
const LIST_LIMIT = 100;

export interface MailDeps {
  store: MailStore;
  rewards: RewardGranter;
  defaultExpiryDays: number;
  now?: () => number;
  crashPoint?: (step: "after_mail_granted") => void;
}

export interface SendMail {
  app: string;
  /** One player's user id, or null for every player of the app. */
  userId: string | null;
  title: string;
  body?: string;
  attachments: MailAttachments;
  /** ISO time; default: MAIL_DEFAULT_EXPIRY_DAYS from now. */
  expiresAt?: string;
  sender: string;
  /** The operator's id for this mail, making a repeated send one mail; default: a new id. */
  mailId?: string;
}

export interface PlayerMail extends Omit<Mail, "appId" | "sender"> {
  claimed: boolean;
  claimedAt: string | null;
}

export interface ClaimResult extends RewardGrantResult {
  mailId: string;
}

export class MailService {
  private readonly now: () => number;

  constructor(private readonly deps: MailDeps) {
    this.now = deps.now ?? Date.now;
  }

  send(input: SendMail): Promise<{ mail: Mail; created: boolean }> {
    return sendMail(this.deps.store, input, this.now(), this.deps.defaultExpiryDays);
  }

  /**
   * A notice with nothing attached (e.g. "your season reward was paid"), written by trusted code
   * for a grant it made itself. Its id is derived from `origin`, so telling the same thing twice
   * (a resumed payout) leaves one mail.
   */
  async notice(input: { app: string; userId: string; origin: string; title: string; body: string; sender: string }): Promise<{ mail: Mail; created: boolean }> {
    const mailId = `n-${crypto.createHash("sha256").update(`${input.app}\n${input.origin}`).digest("hex").slice(0, 40)}`;
    const problems = mailProblems({ ...input, attachments: {}, mailId }, this.now(), { notice: true });
    if (problems.length > 0) throw invalidRequest(problems);
    const now = this.now();
    return this.deps.store.send({
      mailId,
      appId: input.app,
      userId: input.userId,
      title: input.title,
      body: input.body,
      attachments: {},
      sender: input.sender,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.deps.defaultExpiryDays * 86_400_000).toISOString(),
    });
  }

  async list(app: string, userId: string): Promise<PlayerMail[]> {
    const mail = await this.deps.store.listFor(app, userId, new Date(this.now()).toISOString(), LIST_LIMIT);
    const claims = new Map((await this.deps.store.claimsOf(app, userId, mail.map((m) => m.mailId))).map((c) => [c.mailId, c.claimedAt]));
    return mail.map(({ appId: _app, sender: _sender, ...m }) => ({ ...m, claimed: claims.has(m.mailId), claimedAt: claims.get(m.mailId) ?? null }));
  }

  async claim(app: string, userId: string, mailId: string): Promise<ClaimResult> {
    const mail = MAIL_ID.test(mailId) ? await this.deps.store.get(app, mailId) : undefined;
    if (!mail || (mail.userId !== null && mail.userId !== userId)) throw new AppError("mail_not_found", { data: { mailId } });
    const [claimed] = await this.deps.store.claimsOf(app, userId, [mailId]);
    const { currencies = {}, items = [] } = mail.attachments;
    if (Object.keys(currencies).length === 0 && items.length === 0) throw invalidRequest([{ field: "mailId", message: "this mail is a notice with nothing to claim" }]);
    if (!claimed && Date.parse(mail.expiresAt) <= this.now()) throw new AppError("mail_expired", { data: { mailId, expiresAt: mail.expiresAt } });
    const result = await this.deps.rewards.grant({ appId: app, userId, source: "mail", sourceId: `${mailId}:${userId}`, ...mail.attachments, reason: `mail ${mailId}` });
    this.deps.crashPoint?.("after_mail_granted");
    await this.deps.store.markClaimed({ appId: app, mailId, userId, claimedAt: new Date(this.now()).toISOString() });
    return { mailId, ...result };
  }
}

/** Checks and writes one mail (the service and the admin command): 400 invalid_request listing every problem. */
export function sendMail(store: Pick<MailStore, "send">, input: SendMail, now: number, defaultExpiryDays: number): Promise<{ mail: Mail; created: boolean }> {
  const problems = mailProblems(input, now);
  if (problems.length > 0) throw invalidRequest(problems);
  return store.send({
    mailId: input.mailId ?? crypto.randomUUID(),
    appId: input.app,
    userId: input.userId,
    title: input.title,
    body: input.body ?? "",
    attachments: input.attachments,
    sender: input.sender,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(input.expiresAt ? Date.parse(input.expiresAt) : now + defaultExpiryDays * 86_400_000).toISOString(),
  });
}

function mailProblems(input: SendMail, now: number, options: { notice?: boolean } = {}): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (input.mailId !== undefined && !MAIL_ID.test(input.mailId)) problems.push({ field: "mailId", message: "must be 1–64 of A-Z a-z 0-9 _ -" });
  if (typeof input.title !== "string" || input.title.trim() === "" || input.title.length > 100) problems.push({ field: "title", message: "must be 1–100 characters" });
  if (input.body !== undefined && (typeof input.body !== "string" || input.body.length > 2000)) problems.push({ field: "body", message: "must be at most 2000 characters" });
  if (input.expiresAt !== undefined && !(Date.parse(input.expiresAt) > now)) problems.push({ field: "expiresAt", message: "must be an ISO time in the future" });
  const { currencies = {}, items = [] } = input.attachments;
  for (const [currency, amount] of Object.entries(currencies)) {
    if (!ID.test(currency) || !Number.isSafeInteger(amount) || amount <= 0) problems.push({ field: `attachments.currencies.${currency}`, message: "must be a currency id with a positive integer" });
  }
  for (const [i, item] of items.entries()) {
    if (!ID.test(item.itemId ?? "") || !Number.isSafeInteger(item.count) || item.count <= 0) problems.push({ field: `attachments.items[${i}]`, message: "must be an item id with a positive integer count" });
  }
  if (!options.notice && Object.keys(currencies).length === 0 && items.length === 0) problems.push({ field: "attachments", message: "a mail needs currencies or items attached" });
  return problems;
}
