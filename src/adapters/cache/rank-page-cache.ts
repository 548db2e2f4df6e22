/**
 * Pages of ranks this process read lately, each with the version of the period's index it was read
 * at. Every write to a period's index sets a new version (a token no other write ever uses: this
 * process's random id and a counter), so a read that sends the version it holds and hears "same"
 * serves the page it has: the answer is the index as Redis held it at that read, as before, in one
 * round trip, without Redis reading out and this process parsing the hundred records again. A
 * board's top page is what every player reads; under writes the version moves and reads fetch.
 */
import crypto from "node:crypto";
import type { IndexedRecord } from "../../core/ports/rank-index";

/** Pages kept per process (top pages and a few around-me pages of each live board). */
const MAX_PAGES = 256;

interface Page {
  version: string;
  rows: IndexedRecord[];
}

export class RankPageCache {
  private readonly pages = new Map<string, Page>();
  private readonly writer = crypto.randomBytes(8).toString("hex");
  private writes = 0;

  /** A version no other write of any process sets. */
  nextVersion(): string {
    return `${this.writer}:${++this.writes}`;
  }

  /** The version this process holds the page at ("" when it holds none). */
  versionOf(periodTag: string, offset: number, limit: number): string {
    return this.pages.get(pageId(periodTag, offset, limit))?.version ?? "";
  }

  get(periodTag: string, offset: number, limit: number): IndexedRecord[] | null {
    const page = this.pages.get(pageId(periodTag, offset, limit));
    return page ? page.rows.slice() : null;
  }

  keep(periodTag: string, offset: number, limit: number, version: string, rows: IndexedRecord[]): void {
    const id = pageId(periodTag, offset, limit);
    if (version === "") {
      this.pages.delete(id);
      return;
    }
    this.pages.delete(id);
    if (this.pages.size >= MAX_PAGES) this.pages.delete(this.pages.keys().next().value as string);
    this.pages.set(id, { version, rows });
  }
}

const pageId = (periodTag: string, offset: number, limit: number) => `${periodTag}|${offset}|${limit}`;
