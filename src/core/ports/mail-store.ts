/**
 * Operators' mail with attachments. A mail is written once, to one player or to every player of an
 * app; a mail to all is ONE record that every player's list reads, never a row per player. A
 * player's claim is an insert keyed (mail, player), recorded after the grant (the grant itself is
 * keyed by the RewardGranter, so a claim interrupted between the two is finished by the next one).
 */
import type { AdView, AdViewStore } from "./ad-views";
import type { ItemCount } from "./reward-grants";

export interface MailAttachments {
  currencies?: Record<string, number>;
  items?: ItemCount[];
}

export interface Mail {
  mailId: string;
  appId: string;
  /** The one recipient, or null: every player of the app. */
  userId: string | null;
  title: string;
  body: string;
  attachments: MailAttachments;
  /** Who sent it (the operator's name), kept for the audit. */
  sender: string;
  createdAt: string;
  /** After this the mail is neither listed nor claimable (ISO). */
  expiresAt: string;
}

export interface MailClaim {
  appId: string;
  mailId: string;
  userId: string;
  claimedAt: string;
}

export interface MailStore {
  /** Writes the mail; one with the same mailId already there is returned unchanged (`created` false). */
  send(mail: Mail): Promise<{ mail: Mail; created: boolean }>;
  get(appId: string, mailId: string): Promise<Mail | undefined>;
  /** The player's mail (theirs and the app's mail to all) not expired at `now`, newest first, at most `limit`. */
  listFor(appId: string, userId: string, now: string, limit: number): Promise<Mail[]>;
  /** Marks the claim; a second mark keeps the first. */
  markClaimed(claim: MailClaim): Promise<MailClaim>;
  claimsOf(appId: string, userId: string, mailIds: string[]): Promise<MailClaim[]>;
  close(): Promise<void>;
}

/** What the reward stores keep about one player, in every app (the operator's export). */
export interface PlayerRewardRecords {
  mail: Mail[];
  claims: MailClaim[];
  adViews: AdView[];
}

export type RewardStores = AdViewStore &
  MailStore & {
    /** The player's own mail, mail claims and ad views, in every app. */
    recordsOf(userId: string): Promise<PlayerRewardRecords>;
    /** Removes them (erase); mail to every player stays, it names no one. */
    eraseUser(userId: string): Promise<void>;
  };
