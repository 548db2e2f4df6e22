/**
 * Node.js 22 or newer (package.json's engines), checked before anything else is loaded. On an older
 * Node the first dependency to fail would do so with a stack trace (Colyseus needs 22, and
 * better-sqlite3 is built for the Node that ran `npm ci`); this says instead what to do. Imported
 * first by every command's entry file, so it runs before their other imports.
 */
export const NODE_FLOOR = 22;

/** What to tell the operator when `version` (process.versions.node) is below the floor; undefined when it is not. */
export function nodeFloorProblem(version: string, execPath: string): string | undefined {
  const major = Number(version.split(".")[0]);
  if (major >= NODE_FLOOR) return undefined;
  return [
    `This server needs Node.js ${NODE_FLOOR} or newer; this is Node.js ${version} (${execPath}).`,
    `Install Node.js ${NODE_FLOOR} LTS, or let the project install it once into your cache: run`,
    `\`source scripts/node.sh\`, then \`npm ci\` (native modules are rebuilt for Node ${NODE_FLOOR}) and this command again.`,
  ].join("\n");
}

const problem = nodeFloorProblem(process.versions.node, process.execPath);
if (problem !== undefined) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
