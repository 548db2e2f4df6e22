/** The code blocks of a README that follow a `<!-- example: NAME … -->` marker, by name. */
import fs from "node:fs";

export function readmeExample(file: string, name: string): string {
  const text = fs.readFileSync(file, "utf8");
  const marker = text.indexOf(`<!-- example: ${name} `);
  if (marker < 0) throw new Error(`${file} has no example "${name}"`);
  const block = /```[a-z]*\n([\s\S]*?)\n```/.exec(text.slice(marker));
  if (!block) throw new Error(`${file}: no code block after the example "${name}"`);
  return block[1];
}

/** An ES module's import lines as `require` calls, so a block runs inside a function. */
export function importsAsRequires(code: string, requireName: string): string {
  return code
    .replace(/^import \{([^}]+)\} from "([^"]+)";$/gm, (_m, names: string, from: string) => `const {${names}} = ${requireName}("${from}");`)
    .replace(/^import (\w+) from "([^"]+)";$/gm, (_m, name: string, from: string) => `const ${name} = ${requireName}("${from}");`);
}
