/** Compile src/cli.ts into one executable (dist/coffer, or $COFFER_OUT). */

import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { $ } from "bun";
import { COMPILE_FLAGS, nativeTarget } from "./targets";

const out = process.env.COFFER_OUT ?? "dist/coffer";
mkdirSync(dirname(out), { recursive: true });
const target = process.env.COFFER_TARGET; // e.g. bun-linux-arm64 for a cross build
// `coffer --version` names the target it was built for.
const label = target ? target.replace(/^bun-/, "") : nativeTarget();
const define = `COFFER_BUILD_TARGET=${JSON.stringify(label)}`;
await $`bun build ${COMPILE_FLAGS} ${target ? ["--target", target] : []} --define ${define} src/cli.ts --outfile ${out}`.quiet();
console.log(`built ${out}`);
