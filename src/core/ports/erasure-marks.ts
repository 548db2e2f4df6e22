/**
 * Durable marks of the users whose erase has begun, kept in the store beside the per-user data they
 * guard. Erasing a user first marks it, then ends its sessions, then deletes; every per-user write
 * (a ledger change, an ad view, a mail claim) reads the mark AFTER its own insert and, when the user
 * is marked, removes what that user has and refuses. Either the erase's deletes see the write (it
 * landed first), or the write sees the mark (the mark came before the deletes): nothing a request
 * already in flight writes outlives the erase, on any number of processes, without a transaction
 * or a conditional update (FerretDB makes neither atomic; a mark is an insert into a unique key).
 *
 * A mark without `finishedAt` is an erase that stopped half-way (a crash, a failed delete): the
 * next sweep finishes it. Marks of finished erases are forgotten after a while; by then the user
 * is gone and its tokens name no one.
 */
export interface ErasureMark {
  userId: string;
  /** ISO time the erase began. */
  at: string;
  /** ISO time the last run of the erase finished; null while one is unfinished. */
  finishedAt: string | null;
}

export interface ErasureMarks {
  /** Marks the user as being erased (again: unfinished, the first `at` kept). */
  mark(userId: string, at: string): Promise<void>;
  /** True while the user carries a mark. One point read by the user id. */
  isMarked(userId: string): Promise<boolean>;
  /** Those of `userIds` that carry a mark, in one read (a batch of many players' events). */
  markedAmong(userIds: readonly string[]): Promise<string[]>;
  /** Records that a run of the erase finished. */
  finish(userId: string, at: string): Promise<void>;
  /** Marks to run again: unfinished ones, and those finished at or after `finishedSince`. */
  toRedo(finishedSince: string): Promise<ErasureMark[]>;
  /** Forgets the marks of erases finished before `before`; returns how many. */
  forgetFinished(before: string): Promise<number>;
}
