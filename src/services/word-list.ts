/**
 * The local word list: the moderation of last resort (players without a platform identity,
 * platforms without a check, and a platform check that is unavailable).
 */

/** Case, full-width forms and spacing do not hide a word: "Ｂａｄ w o r d" matches "badword". */
function normalize(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/[\s\p{Cf}]+/gu, "");
}

export class WordList {
  private readonly words: string[];

  constructor(words: Iterable<string>) {
    this.words = [...new Set([...words].map(normalize).filter(Boolean))];
  }

  get size(): number {
    return this.words.length;
  }

  matches(text: string): boolean {
    if (this.words.length === 0) return false;
    const normalized = normalize(text);
    return this.words.some((word) => normalized.includes(word));
  }
}

/** Entries of a word-list file: one per line; blank lines and lines starting with # are skipped. */
export function parseWordListFile(content: string): string[] {
  return content
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"));
}
