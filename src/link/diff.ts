/**
 * A unified diff of two texts (what `link --dry-run` prints). Common head and tail are trimmed
 * first, so the line-LCS only runs over the changed middle of a config file.
 */

type Op = { kind: " " | "-" | "+"; line: string };

function splitKeep(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  else lines[lines.length - 1] += "\n\\ No newline at end of file";
  return lines;
}

function lcsOps(a: string[], b: string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  const n = am.length;
  const m = bm.length;
  // dp[i][j] = LCS length of am[i..], bm[j..]
  const dp: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--)
      dp[i]![j] = am[i] === bm[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
  }
  const ops: Op[] = a.slice(0, head).map((line) => ({ kind: " ", line }));
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && am[i] === bm[j]) {
      ops.push({ kind: " ", line: am[i]! });
      i++;
      j++;
    } else if (j < m && (i >= n || dp[i]![j + 1]! >= dp[i + 1]![j]!)) {
      ops.push({ kind: "+", line: bm[j++]! });
    } else {
      ops.push({ kind: "-", line: am[i++]! });
    }
  }
  for (const line of a.slice(a.length - tail)) ops.push({ kind: " ", line });
  // Within a change block, print removals before additions (as diff(1) does).
  const out: Op[] = [];
  let k = 0;
  while (k < ops.length) {
    if (ops[k]!.kind === " ") {
      out.push(ops[k++]!);
      continue;
    }
    const block: Op[] = [];
    while (k < ops.length && ops[k]!.kind !== " ") block.push(ops[k++]!);
    out.push(...block.filter((o) => o.kind === "-"), ...block.filter((o) => o.kind === "+"));
  }
  return out;
}

/** `diff -u` style text; empty string when the texts are equal. */
export function unifiedDiff(before: string | null, after: string | null, name: string, context = 3): string {
  if (before === after) return "";
  const a = splitKeep(before ?? "");
  const b = splitKeep(after ?? "");
  const ops = lcsOps(a, b);
  const out: string[] = [`--- ${before === null ? "/dev/null" : name}`, `+++ ${after === null ? "/dev/null" : name}`];
  let idx = 0;
  // Positions (1-based line numbers) before each op.
  const posA: number[] = [];
  const posB: number[] = [];
  let la = 1;
  let lb = 1;
  for (const op of ops) {
    posA.push(la);
    posB.push(lb);
    if (op.kind !== "+") la++;
    if (op.kind !== "-") lb++;
  }
  while (idx < ops.length) {
    while (idx < ops.length && ops[idx]!.kind === " ") idx++;
    if (idx >= ops.length) break;
    const start = Math.max(0, idx - context);
    let end = idx;
    // Extend the hunk while changes are within 2*context lines of each other.
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== " ") end++;
      let next = end;
      while (next < ops.length && ops[next]!.kind === " ") next++;
      if (next < ops.length && next - end <= 2 * context) end = next;
      else {
        end = Math.min(ops.length, end + context);
        break;
      }
    }
    const hunk = ops.slice(start, end);
    const aCount = hunk.filter((o) => o.kind !== "+").length;
    const bCount = hunk.filter((o) => o.kind !== "-").length;
    const aStart = aCount ? posA[start]! : posA[start]! - 1;
    const bStart = bCount ? posB[start]! : posB[start]! - 1;
    out.push(`@@ -${aStart}${aCount === 1 ? "" : `,${aCount}`} +${bStart}${bCount === 1 ? "" : `,${bCount}`} @@`);
    for (const op of hunk) out.push(op.kind + op.line.replace(/\r$/, ""));
    idx = end;
  }
  return `${out.join("\n")}\n`;
}
