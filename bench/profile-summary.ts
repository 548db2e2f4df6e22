/**
 * Prints the top self-time functions of a V8 CPU profile:
 *   node --import tsx bench/profile-summary.ts <file.cpuprofile> [top]
 * (`npm run bench -- --profile` writes such files to bench/results/profiles/ and prints this.)
 */
import path from "node:path";
import { formatProfile, summarizeProfile } from "./lib/profile";

const file = process.argv[2];
if (!file) {
  process.stderr.write("usage: node --import tsx bench/profile-summary.ts <file.cpuprofile> [top]\n");
  process.exit(2);
}
const top = Number(process.argv[3] ?? 25);
process.stdout.write(`${formatProfile(summarizeProfile(file, path.resolve(__dirname, ".."), top), top)}\n`);
