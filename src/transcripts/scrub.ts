/**
 * The secret scrubber and the size budgets. Runs on every text before it is sent to a model or
 * stored anywhere (inbox traces, entries, the index). Each rule is guarded by a cheap substring
 * check so clean text costs a few `includes` calls, not a dozen regex scans.
 */
import type { Turn } from "./types";

export const REDACTED = "[redacted]";
export const MESSAGE_MAX = 2000;
export const CONVERSATION_BUDGET = 12000;

type Rule = {
  name: string;
  /** Run the regex only when this is true (cheap pre-check). */
  when: (text: string) => boolean;
  re: RegExp;
  /** Replacement for one match; returning the match unchanged means "not a secret after all". */
  replace: (match: string, ...groups: string[]) => string;
};

const has =
  (...needles: string[]) =>
  (t: string) =>
    needles.some((n) => t.includes(n));
const whole = () => REDACTED;

/** Identifier words whose assigned value is a secret (`password = ...`, `"api_key": "..."`). */
const SECRET_WORD =
  "(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret)";
/** An assigned value: quoted, or a run of non-delimiters. */
const VALUE = `("[^"\\n]*"|'[^'\\n]*'|[^\\s"'\`,;)}\\]]+)`;

function keepKey(_m: string, key: string, sep: string, value: string): string {
  if (value.replace(/^["']/, "").startsWith("[redacted") || /^["']?["']?$/.test(value)) return _m; // already scrubbed, or empty
  const q = value[0] === '"' || value[0] === "'" ? value[0] : "";
  return `${key}${sep}${q}${REDACTED}${q}`;
}

export const RULES: Rule[] = [
  {
    name: "private_key",
    when: has("PRIVATE KEY"),
    // A block cut short (no END line) is redacted to the end of the text.
    re: /-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    replace: whole,
  },
  {
    name: "url_credentials",
    when: has("://"),
    // The password may itself contain "@": everything up to the last "@" before the host goes.
    re: /\b([a-z][a-z0-9+.-]{1,20}:\/\/)([^\s/:@"'<>]+):([^\s/"'<>]+)@/gi,
    replace: (_m, scheme) => `${scheme}${REDACTED}@`,
  },
  {
    name: "anthropic_openai_key",
    when: has("sk-"),
    re: /\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g,
    replace: whole,
  },
  {
    name: "github_token",
    when: has("gh", "github_pat_"),
    re: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g,
    replace: whole,
  },
  { name: "slack_token", when: has("xox"), re: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, replace: whole },
  {
    name: "aws_access_key_id",
    when: has("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA"),
    re: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g,
    replace: whole,
  },
  { name: "google_api_key", when: has("AIza"), re: /\bAIza[0-9A-Za-z_-]{30,}/g, replace: whole },
  { name: "gitlab_token", when: has("glpat-"), re: /\bglpat-[A-Za-z0-9_-]{20,}/g, replace: whole },
  {
    name: "jwt",
    when: has("eyJ"),
    re: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
    replace: whole,
  },
  {
    name: "bearer_token",
    when: (t) => /bearer|basic/i.test(t),
    // A token has a digit somewhere: "a Bearer token" in prose is left alone.
    re: /\b(Bearer|Basic)(\s+)(?=[A-Za-z0-9._~+/-]*\d)[A-Za-z0-9._~+/-]{12,}=*/gi,
    replace: (_m, scheme, space) => `${scheme}${space}${REDACTED}`,
  },
  {
    name: "aws_secret_key",
    when: (t) => /aws/i.test(t),
    re: /\b(aws_?secret_?access_?key|aws_?secret_?key|SecretAccessKey)(["']?\s*[:=]\s*)(["']?[A-Za-z0-9/+=]{30,}["']?)/gi,
    replace: keepKey,
  },
  {
    name: "env_secret_assignment",
    when: has("_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_PASS"),
    // .env style: UPPER_CASE names ending in _KEY / _TOKEN / _SECRET / _PASSWORD.
    re: new RegExp(
      `\\b([A-Z][A-Z0-9_]*_(?:KEY|TOKEN|SECRET|PASSWORD|PASS|PAT)S?)(["']?\\s*(?:=(?!=)|:(?!:))\\s*)${VALUE}`,
      "g",
    ),
    replace: keepKey,
  },
  {
    name: "secret_assignment",
    when: (t) => /pass|pwd|secret|token|key/i.test(t),
    re: new RegExp(`\\b([A-Za-z0-9_.-]*${SECRET_WORD})(["']?\\s*(?:=(?!=)|:(?!:))\\s*)${VALUE}`, "gi"),
    replace: keepKey,
  },
];

export type Scrubbed = { text: string; redactions: number };

/** Replace every secret in `text` with [redacted]. */
export function scrubText(text: string): Scrubbed {
  let out = text;
  let redactions = 0;
  for (const rule of RULES) {
    if (!rule.when(out)) continue;
    out = out.replace(rule.re, (...args) => {
      const match = args[0] as string;
      const groups = args.slice(1, -2) as string[];
      const next = rule.replace(match, ...groups);
      if (next !== match) redactions++;
      return next;
    });
  }
  return { text: out, redactions };
}

/** Cut one message to `max` characters. */
export function cutMessage(text: string, max = MESSAGE_MAX): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

export type Budgeted = { turns: Turn[]; omitted: number; omittedAt: number };

/**
 * Fit the conversation into `budget` characters (counting each turn's text plus a small
 * per-turn overhead for its label), keeping the start (about a third) and the most recent turns.
 */
export function fitBudget(turns: Turn[], budget = CONVERSATION_BUDGET, overhead = 16): Budgeted {
  const cost = (t: Turn) => t.text.length + overhead;
  const total = turns.reduce((n, t) => n + cost(t), 0);
  if (total <= budget) return { turns, omitted: 0, omittedAt: -1 };
  const head: Turn[] = [];
  let used = 0;
  const headBudget = Math.floor(budget / 3);
  let i = 0;
  for (; i < turns.length; i++) {
    const c = cost(turns[i]!);
    if (used + c > headBudget && head.length > 0) break;
    if (used + c > budget) break;
    head.push(turns[i]!);
    used += c;
  }
  const tail: Turn[] = [];
  for (let j = turns.length - 1; j >= i; j--) {
    const c = cost(turns[j]!);
    if (used + c > budget) break;
    tail.unshift(turns[j]!);
    used += c;
  }
  const omitted = turns.length - head.length - tail.length;
  return { turns: [...head, ...tail], omitted, omittedAt: omitted > 0 ? head.length : -1 };
}
