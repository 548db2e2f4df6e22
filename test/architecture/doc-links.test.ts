/**
 * Every relative link of README.md and docs/ points at a file of this repository: none outside it
 * (a path of someone's machine, `../../elsewhere`), none at nothing.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");

function markdownFiles(): string[] {
  const docs = fs.readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => path.join(ROOT, "docs", f));
  return [path.join(ROOT, "README.md"), ...docs];
}

/**
 * `[text](target)` and `![alt](target)` outside code spans and fences, bare `<a href="…">`, and code
 * spans that cite a file by a relative path (`../x/y.md`, `./z.ts`): a citation is a link too.
 */
export function relativeLinks(markdown: string): string[] {
  const unfenced = markdown.replace(/```[\s\S]*?```/g, "");
  // Files of the repository (docs, code), not paths the server creates at run time (`./data/…`).
  const cited = [...unfenced.matchAll(/`(\.{1,2}\/[^`\s]+\.(?:md|ts|js|mjs|cjs|json|png|conf))`/g)].map((m) => m[1]);
  const prose = unfenced.replace(/`[^`\n]*`/g, "");
  const targets = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g), ...prose.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
  return [...targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith("#")), ...cited];
}

describe("docs: relative links resolve inside the repository", () => {
  it("finds the links it checks (the parser is not blind)", () => {
    assert.deepEqual(relativeLinks("see [a](docs/a.md#x) and `[b](no.md)` and [c](https://x.invalid) ![d](img.png) from `../y/z.md`"), [
      "docs/a.md#x",
      "img.png",
      "../y/z.md",
    ]);
  });

  for (const file of markdownFiles()) {
    const name = path.relative(ROOT, file);
    it(`${name}: every relative link is a file of the repository`, () => {
      const problems: string[] = [];
      for (const link of relativeLinks(fs.readFileSync(file, "utf8"))) {
        const target = decodeURIComponent(link.split("#")[0]);
        if (target === "") continue;
        const resolved = target.startsWith("/") ? path.join(ROOT, target) : path.resolve(path.dirname(file), target);
        if (path.relative(ROOT, resolved).startsWith("..")) problems.push(`${link}: outside the repository`);
        else if (!fs.existsSync(resolved)) problems.push(`${link}: no such file`);
      }
      assert.deepEqual(problems, []);
    });
  }
});
