/**
 * The module graph of src/ and rooms/, read from the sources (type-only imports and re-exports
 * included): no import cycles, and the two edges never import each other.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

const ROOT = path.resolve(__dirname, "../..");

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined; // packages are not ours
  const base = path.resolve(path.dirname(from), specifier);
  return [`${base}.ts`, path.join(base, "index.ts")].find((candidate) => fs.existsSync(candidate));
}

/** file → the project files it imports (relative paths from the repository root). */
export function importGraph(dirs: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of dirs.flatMap((d) => sourceFiles(path.join(ROOT, d)))) {
    const info = ts.preProcessFile(fs.readFileSync(file, "utf8"), true, true);
    const targets = info.importedFiles.map((i) => resolveImport(file, i.fileName)).filter((t): t is string => t !== undefined);
    graph.set(path.relative(ROOT, file), [...new Set(targets.map((t) => path.relative(ROOT, t)))]);
  }
  return graph;
}

/** Every cycle's files, via Tarjan's strongly connected components (a self-import counts too). */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

describe("module graph", () => {
  const graph = importGraph(["src", "rooms"]);

  it("reads the real sources", () => {
    assert.ok(graph.size > 40);
    assert.ok(graph.get("src/server/container.ts")?.includes("src/platforms/registry.ts"));
  });

  it("has no import cycles in src/ and rooms/, type-only imports included", () => {
    assert.deepEqual(cyclesOf(graph), []);
  });

  it("finds a cycle when there is one (the check itself works)", () => {
    const looped = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    assert.deepEqual(cyclesOf(looped), [["a.ts", "b.ts", "c.ts"]]);
  });

  it("keeps the edges apart: rooms never import src/api, src/api never imports rooms", () => {
    const crossings = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((t) => (file.startsWith("rooms/") && t.startsWith("src/api/")) || (file.startsWith("src/api/") && t.startsWith("rooms/")))
        .map((t) => `${file} → ${t}`),
    );
    assert.deepEqual(crossings, []);
  });

  it("keeps the server on top: only the admin CLI imports src/server, and the console takes its HTTP helpers from src/http, not from the API", () => {
    const upward = [...graph].flatMap(([file, targets]) =>
      targets
        .filter(
          (t) =>
            (t.startsWith("src/server/") && !file.startsWith("src/server/") && !file.startsWith("src/admin/")) ||
            // The API description (src/api/openapi) describes the console's routes too: that arrow points down.
            (file.startsWith("src/console/") && t.startsWith("src/api/")),
        )
        .map((t) => `${file} → ${t}`),
    );
    assert.deepEqual(upward, []);
  });

  it("leaves src/ a list of areas: no loose source files at its root (the process's wiring lives in src/server/)", () => {
    const loose = fs.readdirSync(path.join(ROOT, "src"), { withFileTypes: true }).filter((e) => e.isFile() && /\.[cm]?[jt]s$/.test(e.name));
    assert.deepEqual(loose.map((e) => e.name), []);
  });

  it("keeps services free of Express and Colyseus", () => {
    const offenders = [...graph.keys()]
      .filter((f) => f.startsWith("src/services/"))
      .filter((f) => /from "(express|@colyseus\/[^"]+)"/.test(fs.readFileSync(path.join(ROOT, f), "utf8")));
    assert.deepEqual(offenders, []);
  });
});
