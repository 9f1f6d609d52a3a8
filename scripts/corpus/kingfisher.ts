/**
 * Build the scrubber's held-out corpus (test/fixtures/secrets/heldout/) from Kingfisher's rules.
 *
 *   bun scripts/corpus/kingfisher.ts <kingfisher checkout> [--out test/fixtures/secrets/heldout] [--seed 7]
 *
 * Kingfisher (mongodb/kingfisher, Apache-2.0) keeps, in data/rules/*.yml, one file per provider
 * family; each rule has a pattern and the `examples` it must match (and a few `negative_examples`
 * it must not). This corpus is held out: the scrubber was not tuned on it (see the README there).
 *
 * Output (JSONL, data only, no Kingfisher code):
 *   kingfisher-tp.jsonl  {"family","rule","sample","secret"}  every example whose secret the rule's
 *                        own pattern finds (the capture group with the most entropy bits; the
 *                        whole match when the pattern has no group)
 *   kingfisher-fp.jsonl  {"family","rule","sample","kind"}    near misses: Kingfisher's own negative
 *                        examples ("negative"), and, for one example per rule with one capture
 *                        group, the same text with the secret replaced by a placeholder, a masked
 *                        or truncated value, or a reference to a variable ("placeholder", "masked",
 *                        "reference"), drawn with a seeded generator
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const args = process.argv.slice(2);
const flag = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : def;
};
const checkout = args.find((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--"));
if (!checkout) {
  console.error("usage: bun scripts/corpus/kingfisher.ts <kingfisher checkout> [--out dir] [--seed n]");
  process.exit(2);
}
const outDir = resolve(flag("out", "test/fixtures/secrets/heldout"));
let seed = Number(flag("seed", "7")) >>> 0 || 7;
const rand = () => {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 0x100000000;
};
const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;

const POSIX: Record<string, string> = {
  alnum: "A-Za-z0-9",
  alpha: "A-Za-z",
  digit: "0-9",
  lower: "a-z",
  upper: "A-Z",
  xdigit: "0-9A-Fa-f",
  space: "\\s",
  punct: "!-\\/:-@\\[-`{-~",
  word: "\\w",
};

/** A Rust-regex pattern (Kingfisher's dialect) as a JS RegExp, or null when it cannot be converted. */
function toJs(src: string): RegExp | null {
  let flags = "g";
  let s = src.trim();
  let extended = false;
  // leading flag groups, (?x)(?i) or (?xi); a (?i) further on makes the whole pattern case-insensitive
  let lead: RegExpExecArray | null;
  while ((lead = /^\s*\(\?([a-z]+)\)/.exec(s))) {
    if (lead[1]!.includes("x")) extended = true;
    for (const f of "ism") if (lead[1]!.includes(f) && !flags.includes(f)) flags += f;
    s = s.slice(lead[0].length);
  }
  if (/\(\?[a-z]*i[a-z]*\)/.test(s) && !flags.includes("i")) flags += "i";
  s = s.replace(/\(\?#[^)]*\)/g, "");
  // (?x): drop unescaped whitespace and comments outside character classes
  let out = "";
  let inClass = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\\") {
      const next = s[i + 1] ?? "";
      if (next === "A") out += "^";
      else if (next === "z" || next === "Z") out += "$";
      else if (extended && next === " ") out += " ";
      else out += c + next;
      i++;
      continue;
    }
    if (inClass) {
      if (c === "[" && s[i + 1] === ":") {
        const end = s.indexOf(":]", i);
        const name = s.slice(i + 2, end);
        out += POSIX[name] ?? "\\w";
        i = end + 1;
        continue;
      }
      if (c === "]") inClass = false;
      out += c;
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += c;
      if (s[i + 1] === "^") {
        out += "^";
        i++;
      }
      if (s[i + 1] === "]") {
        out += "\\]";
        i++;
      }
      continue;
    }
    if (extended && /\s/.test(c)) continue;
    if (extended && c === "#") {
      while (i < s.length && s[i] !== "\n") i++;
      continue;
    }
    out += c;
  }
  out = out.replace(/\(\?P</g, "(?<").replace(/\(\?-?[imsx]+\)/g, "");
  // inline case-insensitive groups: the whole pattern becomes case-insensitive (close enough to find the example's secret)
  if (/\(\?i:/.test(out)) {
    out = out.replace(/\(\?i:/g, "(?:");
    if (!flags.includes("i")) flags += "i";
  }
  out = out.replace(/\(\?-i:/g, "(?:").replace(/\(\?s:/g, "(?:");
  try {
    return new RegExp(out, flags);
  } catch {
    return null;
  }
}

function entropyBits(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) h -= (n / s.length) * Math.log2(n / s.length);
  return h * s.length;
}

type Rule = { id: string; pattern: string; examples?: string[]; negative_examples?: string[] };
type Tp = { family: string; rule: string; sample: string; secret: string };
type Fp = { family: string; rule: string; sample: string; kind: string };

const rulesDir = join(resolve(checkout), "data", "rules");
const tp: Tp[] = [];
const fp: Fp[] = [];
let unconverted = 0;
let unmatched = 0;

const upper = (family: string) => family.toUpperCase().replace(/[^A-Z0-9]+/g, "_");
/** The near-miss replacements of one secret. */
const nearMisses = (family: string, secret: string): [string, string][] => [
  ["placeholder", `<your-${family}-api-key>`],
  ["placeholder", `YOUR_${upper(family)}_API_KEY`],
  ["placeholder", "x".repeat(Math.max(8, Math.min(secret.length, 40)))],
  ["placeholder", "changeme"],
  ["placeholder", `<${upper(family)}_TOKEN>`],
  ["masked", `${secret.slice(0, 4)}${"*".repeat(Math.max(8, Math.min(secret.length - 4, 32)))}`],
  ["masked", `${secret.slice(0, 6)}...`],
  ["reference", `\${${upper(family)}_API_KEY}`],
  ["reference", `$${upper(family)}_TOKEN`],
  ["reference", `{{ secrets.${upper(family)}_TOKEN }}`],
  ["reference", `process.env.${upper(family)}_API_KEY`],
];

for (const file of readdirSync(rulesDir).sort()) {
  if (!file.endsWith(".yml")) continue;
  const family = file.replace(/\.yml$/, "");
  const doc = Bun.YAML.parse(readFileSync(join(rulesDir, file), "utf8")) as { rules?: Rule[] };
  for (const rule of doc.rules ?? []) {
    const re = toJs(rule.pattern);
    for (const sample of rule.negative_examples ?? []) fp.push({ family, rule: rule.id, sample, kind: "negative" });
    if (!re) {
      unconverted++;
      if (process.env.KF_DEBUG) console.error("UNCONVERTED", rule.id, rule.pattern.slice(0, 200));
      continue;
    }
    let mutated = false;
    for (const sample of rule.examples ?? []) {
      re.lastIndex = 0;
      const m = re.exec(sample);
      if (!m) {
        unmatched++;
        if (process.env.KF_DEBUG) console.error("UNMATCHED", rule.id, re.source.slice(0, 160));
        continue;
      }
      const groups = m.slice(1).filter((g): g is string => !!g && g.length >= 4);
      const secret = groups.length ? groups.reduce((a, b) => (entropyBits(b) > entropyBits(a) ? b : a)) : m[0];
      tp.push({ family, rule: rule.id, sample, secret });
      if (!mutated && m.length === 2 && sample.split(secret).length === 2) {
        const [kind, repl] = pick(nearMisses(family, secret));
        fp.push({ family, rule: rule.id, sample: sample.replace(secret, () => repl), kind });
        mutated = true;
      }
    }
  }
}

// Ordinary near misses, not from Kingfisher: hashes named as commits, digests, fixture UUIDs, versions,
// paths and identifiers that mention credential words, each with random hex/base64 drawn here.
const HEX = "0123456789abcdef";
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const draw = (alphabet: string, n: number) => Array.from({ length: n }, () => pick([...alphabet])).join("");
const uuid = () => `${draw(HEX, 8)}-${draw(HEX, 4)}-4${draw(HEX, 3)}-a${draw(HEX, 3)}-${draw(HEX, 12)}`;
const ORDINARY: (() => string)[] = [
  () => `Reverted in commit ${draw(HEX, 40)}, see the PR for context.`,
  () => `git cherry-pick ${draw(HEX, 7)}..${draw(HEX, 7)}`,
  () => `HEAD is now at ${draw(HEX, 7)} Merge pull request #${draw("123456789", 4)} from acme/fix-login`,
  () => `docker pull ghcr.io/acme/api@sha256:${draw(HEX, 64)}`,
  () => `"integrity": "sha512-${draw(B64, 86)}=="`,
  () => `fixture user id ${uuid()} is reused in three tests`,
  () => `request_id=${uuid()} status=500 duration=35ms path=/v1/tokens/refresh`,
  () => `trace_id: ${draw(HEX, 32)}, span_id: ${draw(HEX, 16)}`,
  () => `Bumped lodash from 4.17.20 to 4.17.21 and jsonwebtoken from 8.5.1 to 9.0.2`,
  () => `The refresh logic lives at src/auth/token_refresh.ts:${draw("123456789", 3)}`,
  () => `ETag: "${draw(HEX, 32)}"`,
  () => `${draw(HEX, 64)}  coffer-linux-x64.tar.gz`,
  () => `Cache restored from key: node-modules-${draw(HEX, 64)}`,
  () => `The server's host key fingerprint is SHA256:${draw(B64, 43)}.`,
  () => `Build #${draw("123456789", 4)} (${draw(HEX, 40)}) passed on main`,
  () => `md5 of the upload: ${draw(HEX, 32)}`,
  () => `{"_id": {"$oid": "${draw(HEX, 24)}"}, "name": "checkout"}`,
  () => `tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")  # ${draw(HEX, 6)}`,
  () => `max_tokens=4096, temperature=0.2, seed=${draw("123456789", 5)}`,
  () => `passwordless login via magic links is in auth/magic_${draw("abcdef", 4)}.ts`,
  () => `const apiKeyHeader = "X-Api-Key"; // see docs/auth.md section ${draw("123456789", 1)}`,
  () => `password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=${draw("123456789", 2)}))`,
  () => `public_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${draw(B64, 43)} dev@laptop`,
  () => `Use the documented example key AKIAIOSFODNN7EXAMPLE in the tests, never a real one.`,
  () => `Migration ${draw("0123456789", 14)}_add_api_keys_table.rb ran in 0.${draw("123456789", 3)}s`,
  () => `The token endpoint returned 401 for client ${uuid()}; the secret was rotated yesterday.`,
  () => `resolved "https://registry.yarnpkg.com/debug/-/debug-4.3.${draw("123456789", 1)}.tgz#${draw(HEX, 40)}"`,
  () =>
    `Downloading https://files.pythonhosted.org/packages/${draw(HEX, 2)}/${draw(HEX, 2)}/${draw(HEX, 60)}/requests-2.31.0-py3-none-any.whl`,
  () => `See https://github.com/acme/api/blob/${draw(HEX, 40)}/src/auth/session.ts#L${draw("123456789", 2)}`,
  () => `go: downloading golang.org/x/crypto v0.${draw("123456789", 2)}.0 h1:${draw(B64, 43)}=`,
];
for (let i = 0; i < ORDINARY.length * 4; i++)
  fp.push({
    family: "ordinary",
    rule: `ordinary.${i % ORDINARY.length}`,
    sample: ORDINARY[i % ORDINARY.length]!(),
    kind: "ordinary",
  });

const jsonl = (rows: object[]) => `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`;
writeFileSync(join(outDir, "kingfisher-tp.jsonl"), jsonl(tp));
writeFileSync(join(outDir, "kingfisher-fp.jsonl"), jsonl(fp));
console.log(
  `${tp.length} true positives (${new Set(tp.map((r) => r.family)).size} families), ${fp.length} near misses; ` +
    `${unconverted} patterns not converted, ${unmatched} examples their own pattern did not match`,
);
