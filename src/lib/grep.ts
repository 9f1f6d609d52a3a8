/**
 * One line test for grep (CLI, MCP, HTTP, the web UI): a literal (case-insensitive) substring, or a
 * regular expression written as /pattern/flags, run on RE2 in linear time within a time budget.
 */
import { RE2JS } from "re2js";
import { CofferError } from "./errors";

/** How long one grep may run before it answers "pattern too expensive". */
export const GREP_BUDGET_MS = 2000;
/** Only this much of a line is searched (bodies are at most 32768 characters; imports may hold more). */
export const GREP_LINE_MAX = 32 * 1024;

function tooExpensive(pattern: string, ms: number): CofferError {
  return new CofferError(
    `pattern too expensive: ${pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern} ran for more than ${ms / 1000} s`,
    1,
    "Use a literal or a narrower pattern, or limit the search to one scope.",
  );
}

/**
 * One line test for grep (CLI, MCP, HTTP, the web UI): a literal (case-insensitive) substring, or a
 * regular expression when written as /pattern/flags (i, s, m). Expressions run on RE2 (linear time:
 * no backreferences or lookaround, so `/^(a+)+$/` costs what a literal does), each line is cut at
 * GREP_LINE_MAX, and the whole search stops with "pattern too expensive" after `budgetMs`.
 */
export function lineMatcher(pattern: string, budgetMs = GREP_BUDGET_MS): (line: string) => boolean {
  const started = performance.now();
  let calls = 0;
  const budget = () => {
    if ((++calls & 63) === 0 && performance.now() - started > budgetMs) throw tooExpensive(pattern, budgetMs);
  };
  const re = /^\/(.+)\/([a-z]*)$/s.exec(pattern);
  if (re) {
    let flags = 0;
    for (const f of re[2]!) {
      if (f === "i") flags |= RE2JS.CASE_INSENSITIVE;
      else if (f === "s") flags |= RE2JS.DOTALL;
      else if (f === "m") flags |= RE2JS.MULTILINE;
      else if (!"guyd".includes(f))
        throw new CofferError(`invalid regular expression ${pattern}: unknown flag "${f}" (allowed: i, s, m)`);
    }
    let rx: RE2JS;
    try {
      if (re[1]!.length > 2000) throw new Error(`the expression is ${re[1]!.length} characters; the limit is 2000`);
      rx = RE2JS.compile(re[1]!, flags);
    } catch (err) {
      throw new CofferError(
        `invalid regular expression ${pattern}: ${(err as Error).message}`,
        1,
        "grep runs expressions in linear time (RE2 syntax): no backreferences (\\1) or lookaround ((?=, (?<=).",
      );
    }
    return (line) => {
      budget();
      return rx.matcher(line.length > GREP_LINE_MAX ? line.slice(0, GREP_LINE_MAX) : line).find();
    };
  }
  const needle = pattern.toLowerCase();
  return (line) => {
    budget();
    return (line.length > GREP_LINE_MAX ? line.slice(0, GREP_LINE_MAX) : line).toLowerCase().includes(needle);
  };
}
