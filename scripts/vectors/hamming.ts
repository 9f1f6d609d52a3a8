/**
 * Assemble hamming.wat (the Hamming pass of src/retrieval/similarity.ts) and print it as base64, the form
 * vectors.ts embeds. Build time only: `bun scripts/vectors/hamming.ts` (fetches wabt through bunx).
 */
import { join } from "node:path";

const wat = join(import.meta.dir, "hamming.wat");
const out = join(import.meta.dir, ".hamming.wasm");
const r = Bun.spawnSync(["bunx", "--package", "wabt@1.0.37", "wat2wasm", wat, "-o", out], { stderr: "inherit" });
if (r.exitCode !== 0) process.exit(r.exitCode ?? 1);
console.log(Buffer.from(await Bun.file(out).arrayBuffer()).toString("base64"));
await Bun.file(out).delete();
