/** Compile src/cli.ts into one executable, dist/coffer. */
import { $ } from "bun";
import { mkdirSync } from "node:fs";

mkdirSync("dist", { recursive: true });
const target = process.env.COFFER_TARGET; // e.g. bun-linux-arm64 for a cross build
await $`bun build --compile --minify --bytecode --format=esm --sourcemap=none ${target ? ["--target", target] : []} src/cli.ts --outfile dist/coffer`;
