/**
 * The LiveOps store: each app's definitions as versions (a new version is an insert that exactly
 * one writer of that version wins; every version is kept, with who saved it and when), and each
 * player's experiment assignments (the first assignment of a player to an experiment is an insert
 * that one writer wins, never changed: the exposure record analytics joins on).
 */
export interface StoredDefinitions {
  appId: string;
  version: number;
  body: unknown;
  /** Who saved it (operator name, or "file" for one loaded at start). */
  by: string;
  at: string;
}

export type DefinitionsVersionInfo = Omit<StoredDefinitions, "body">;

export interface AssignmentRecord {
  appId: string;
  userId: string;
  experimentId: string;
  variant: string;
  /** When the player was first served the variant. */
  at: string;
}

export interface LiveOpsStore {
  /** Brings the schema to the current version; safe on every boot and from several processes. */
  migrate(): Promise<void>;
  /** Saves version `expectedVersion` + 1; null when another writer took that version first. */
  saveDefinitions(appId: string, expectedVersion: number, body: unknown, by: string, at: string): Promise<StoredDefinitions | null>;
  /** The latest stored version's number, 0 when none (polled every second: cheap). */
  latestVersion(appId: string): Promise<number>;
  /** One stored version with its body, or null. */
  findDefinitions(appId: string, version: number): Promise<StoredDefinitions | null>;
  /** The app's versions, newest first, at most `limit`; with `before`, only older ones. */
  listVersions(appId: string, options: { limit: number; before?: number }): Promise<DefinitionsVersionInfo[]>;
  /** The player's assignments by experiment id. */
  assignments(appId: string, userId: string): Promise<Record<string, string>>;
  /** Records the assignment unless one exists; answers the variant that stands (the first writer's). */
  assign(record: AssignmentRecord): Promise<string>;
  /** Properties server code set on the player (audiences' `property` rules). */
  properties(appId: string, userId: string): Promise<Record<string, unknown>>;
  /** Sets one property (last writer wins: a property is a fact the game states, not a grant of value). */
  setProperty(appId: string, userId: string, key: string, value: unknown): Promise<void>;
  /** Forgets the player's assignments and properties in every app (an erased account); answers how many rows went. */
  eraseUser(userId: string): Promise<number>;
  close(): Promise<void>;
}
