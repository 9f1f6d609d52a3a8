import type { ImportPlan } from "./types";
export function planCoffer(opts: { file: string; text?: string }): ImportPlan {
  return { source: "coffer", from: opts.file, items: [], skipped: [] };
}
