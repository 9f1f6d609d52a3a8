/**
 * `state/agent-clis.json`: the linked agents that have a headless CLI, in link order, with the path
 * each CLI was found at when it was linked (machine-local). `src/distill/linked-clis.ts` decides
 * what distillation does with it; the session-start hook reads it too, to know without searching
 * PATH whether a background sweep has a model to use (`src/capture/background.ts`).
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "./atomic";
import { type Host, isHost } from "./hosts";
import { paths } from "./paths";
import { readOwnText } from "./small-file";

export type LinkedCli = { host: Host; path: string | null; linked_at: string };

const file = () => join(paths.state(), "agent-clis.json");

/** The records, or undefined when the file does not exist (a store linked before it did). */
export function readLinkedRecords(): LinkedCli[] | undefined {
  let text: string;
  try {
    text = readOwnText(file(), 1024 * 1024);
  } catch {
    return undefined;
  }
  try {
    const doc = JSON.parse(text) as { agents?: unknown };
    if (!Array.isArray(doc.agents)) return [];
    return doc.agents.filter(
      (a): a is LinkedCli =>
        a && typeof a === "object" && isHost(a.host) && (typeof a.path === "string" || a.path === null),
    );
  } catch {
    return [];
  }
}

export function writeLinkedRecords(agents: LinkedCli[]): void {
  writeFileAtomic(file(), `${JSON.stringify({ version: 1, agents }, null, 2)}\n`, 0o600);
}

/** A regular file the user may run (any file on Windows). */
export function isExecutable(path: string): boolean {
  try {
    const st = statSync(path);
    return st.isFile() && (process.platform === "win32" || (st.mode & 0o111) !== 0);
  } catch {
    return false;
  }
}
