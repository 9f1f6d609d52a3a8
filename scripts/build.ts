/** Compile src/cli.ts into one executable (dist/coffer, or $COFFER_OUT). */

import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { $ } from "bun";

const out = process.env.COFFER_OUT ?? "dist/coffer";
mkdirSync(dirname(out), { recursive: true });
const target = process.env.COFFER_TARGET; // e.g. bun-linux-arm64 for a cross build
await $`bun build --compile --minify --bytecode --format=esm --sourcemap=none ${target ? ["--target", target] : []} src/cli.ts --outfile ${out}`.quiet();
console.log(`built ${out}`);
