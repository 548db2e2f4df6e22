/**
 * Calls made during one event-loop turn, handed to `run` together once the turn's I/O callbacks
 * are done (setImmediate runs after the poll phase). Under load a turn carries many logins at once:
 * PostgreSQL gets their lookups and creations as one statement each (postgres-user-batches.ts: a
 * statement's loopback write and backend wake-up cost more CPU than its own work), SQLite their
 * creations as one transaction with one fsync (sqlite-group-commit.ts). A lone call waits for
 * nothing but the end of its turn.
 */
export type Outcome<Out> = { ok: true; value: Out } | { ok: false; error: unknown };

export const found = <T>(value: T): Outcome<T> => ({ ok: true, value });

/** The outcome of one call of a batch, for a batch that falls back to calls made one by one. */
export function settle<T>(promise: Promise<T>): Promise<Outcome<T>> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

interface Waiting<In, Out> {
  input: In;
  resolve(value: Out): void;
  reject(error: unknown): void;
}

export class TurnBatch<In, Out> {
  private waiting: Waiting<In, Out>[] = [];

  /**
   * `run` answers every input, in order, with its own outcome (one input may fail alone, a unique
   * violation say); a rejection of `run` itself fails every input of the batch with that error.
   */
  constructor(
    private readonly run: (inputs: In[]) => Promise<Outcome<Out>[]>,
    private readonly maxBatch = 100,
  ) {}

  add(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(this.flush);
      this.waiting.push({ input, resolve, reject });
    });
  }

  private readonly flush = (): void => {
    const all = this.waiting;
    this.waiting = [];
    for (let start = 0; start < all.length; start += this.maxBatch) void this.runBatch(all.slice(start, start + this.maxBatch));
  };

  private async runBatch(batch: Waiting<In, Out>[]): Promise<void> {
    let outcomes: Outcome<Out>[];
    try {
      outcomes = await this.run(batch.map((w) => w.input));
    } catch (error) {
      for (const w of batch) w.reject(error);
      return;
    }
    batch.forEach((w, i) => {
      const outcome = outcomes[i];
      if (!outcome) w.reject(new Error("a batched statement answered fewer inputs than it was given"));
      else if (outcome.ok) w.resolve(outcome.value);
      else w.reject(outcome.error);
    });
  }
}
