/** What the corpus scripts share: command-line options and where the corpus lives. */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";

/** A command-line option's value (`--data DIR`), if given. */
export function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The data folder (repositories, corpus): --data, else vectors-data beside the checkout, never in git. */
export function dataDir(): string {
  const dir = resolve(option("--data") ?? process.env.VECTORS_DATA ?? join(import.meta.dir, "../../../vectors-data"));
  mkdirSync(dir, { recursive: true });
  return dir;
}
