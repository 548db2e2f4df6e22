/**
 * Work for one key done one piece after the other, in the order asked; other keys do not wait.
 * For work that waits on I/O and must not overtake earlier work of the same key: one player's chat
 * lines through the mute and content checks (the lobby), copies of one LeanCloud record in one
 * import run (the player importer).
 */
export class KeyedTurns {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `work` once the key's earlier work has ended, however it ended; answers `work`'s own outcome. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const turn = (this.tails.get(key) ?? Promise.resolve()).catch(() => undefined).then(work);
    this.tails.set(key, turn);
    // The key is forgotten once its last piece of work has ended.
    const forget = () => {
      if (this.tails.get(key) === turn) this.tails.delete(key);
    };
    turn.then(forget, forget);
    return turn;
  }
}
