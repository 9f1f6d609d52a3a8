/** Golden files: each fixture's cleaned conversation, rendered plainly, checked in after a read by hand. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseTranscriptText } from "../../src/transcripts/discovery";
import type { ParsedTranscript, TranscriptHost } from "../../src/transcripts/types";

/** The shared upstream fixtures (shared/fixtures/transcripts), copied into the repo so a clean clone has them. */
export const SHARED = join(import.meta.dir, "..", "fixtures", "upstream");
export const OWN = join(import.meta.dir, "..", "fixtures", "transcripts");
export const GOLDEN = join(import.meta.dir, "..", "fixtures", "golden");
/** Further public samples (open-source transcript viewers' test data; licences in its SOURCES.md). */
export const PUBLIC = join(import.meta.dir, "..", "fixtures", "public");

export type Fixture = { host: TranscriptHost; name: string; path: string; golden: string };

/** Every transcript fixture: the shared ones and this repository's own (secrets excluded: not a host dir). */
export function fixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (const [origin, root] of [
    ["shared", SHARED],
    ["own", OWN],
    ["public", PUBLIC],
  ] as const) {
    for (const host of ["claude", "codex", "gemini"] as const) {
      let names: string[] = [];
      try {
        names = readdirSync(join(root, host))
          .filter((n) => /\.jsonl?$/.test(n))
          .sort();
      } catch {}
      for (const name of names)
        out.push({
          host,
          name: `${origin}/${host}/${name}`,
          path: join(root, host, name),
          golden: join(GOLDEN, origin, host, name.replace(/\.jsonl?$/, ".txt")),
        });
    }
  }
  return out;
}

export function render(p: ParsedTranscript): string {
  const head = [
    `title: ${p.title}`,
    `session: ${p.session_id ?? "-"}`,
    `cwd: ${p.cwd ?? "-"}`,
    `turns: ${p.turns.length}`,
  ];
  return `${[head.join("\n"), ...p.turns.map((t) => `[${t.role}]\n${t.text}`)].join("\n\n")}\n`;
}

export function parseFixture(f: Fixture): ParsedTranscript {
  return parseTranscriptText(f.host, readFileSync(f.path, "utf8"));
}
