import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { isArchive, unpackUserFiles } from "../../src/admin/export-archive";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-archive-"));
let n = 0;

/** A .tar.gz of `files` (path → content), written by the system's tar as LeanCloud's would be. */
function tarGz(files: Record<string, string>, flags: string[] = ["-z"]): string {
  const src = fs.mkdtempSync(path.join(tmp, "src-"));
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(src, name)), { recursive: true });
    fs.writeFileSync(path.join(src, name), content);
  }
  const archive = path.join(tmp, `export-${n++}.tar${flags.includes("-z") ? ".gz" : ""}`);
  execFileSync("tar", ["-c", ...flags, "-f", archive, "-C", src, ...Object.keys(files).map((f) => f.split("/")[0]).filter((f, i, all) => all.indexOf(f) === i)]);
  return archive;
}

describe("LeanCloud export archives", () => {
  const big = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ objectId: `o${i}`, nickName: "玩家".repeat(i % 40) })).join("\n") + "\n";

  it("unpacks the _User files of a .tar.gz, in any folder and with a long path, byte for byte, and leaves the other classes", async () => {
    const deep = `${"d".repeat(60)}/${"e".repeat(60)}/_User.0.jsonl`;
    const archive = tarGz({ [deep]: big, "export/_User.1.jsonl": '{"objectId":"x"}\n', "export/Post.0.jsonl": "{}\n" });
    assert.equal(isArchive(archive), true);
    const files = await unpackUserFiles(archive);
    assert.deepEqual(files.map((f) => path.basename(f)), ["_User.0.jsonl", "_User.1.jsonl"]);
    assert.equal(fs.readFileSync(files[0], "utf8"), big);
    assert.equal(fs.existsSync(path.join(`${archive}.unpacked`, "Post.0.jsonl")), false);
    // Unpacked once: a file already whole is left as it is (its checkpoint still holds).
    const before = fs.statSync(files[0]).mtimeMs;
    await unpackUserFiles(archive);
    assert.equal(fs.statSync(files[0]).mtimeMs, before);
  });

  it("reads a plain tar, and a gzip of one file", async () => {
    const tar = tarGz({ "a/_User.jsonl": big }, []);
    assert.equal(fs.readFileSync((await unpackUserFiles(tar))[0], "utf8"), big);
    const gz = path.join(tmp, "_User.jsonl.gz");
    fs.writeFileSync(gz, zlib.gzipSync(big));
    const [file] = await unpackUserFiles(gz);
    assert.equal(path.basename(file), "_User.jsonl");
    assert.equal(fs.readFileSync(file, "utf8"), big);
  });

  it("an archive cut short, or one without a _User file, stops with what it is; a plain export is no archive", async () => {
    const archive = tarGz({ "export/_User.0.jsonl": big });
    const cut = path.join(tmp, "cut.tar.gz");
    fs.writeFileSync(cut, fs.readFileSync(archive).subarray(0, 2000));
    await assert.rejects(unpackUserFiles(cut), /cannot be unpacked .*Download the export again/);
    assert.equal(fs.existsSync(path.join(`${cut}.unpacked`, "_User.0.jsonl")), false, "a cut file was left as if whole");
    await assert.rejects(unpackUserFiles(tarGz({ "export/Post.0.jsonl": "{}\n" })), /holds no _User.*export\/Post\.0\.jsonl/);
    const plain = path.join(tmp, "_User.plain.jsonl");
    fs.writeFileSync(plain, big);
    assert.equal(isArchive(plain), false);
  });
});
