/**
 * Extract gitleaks' per-rule test samples into the scrubber corpus (test/fixtures/secrets/).
 *
 *   bun scripts/corpus/gitleaks.ts <gitleaks checkout> [--out test/fixtures/secrets] [--seed 1]
 *
 * gitleaks keeps, in cmd/generate/config/rules/*.go, the true positives (`tps`) and false
 * positives (`fps`) each rule is validated against. Many samples are built at run time
 * (`utils.GenerateSampleSecrets(id, secrets.NewSecret(regex))`), so this script evaluates the
 * small subset of Go expressions those files use (string literals, `+`, `append`, `[]string{}`,
 * `map[string]string{}`, `fmt.Sprintf`, base64, local variables) and generates random strings for
 * `NewSecret(regex)` with a seeded generator. Statements it cannot evaluate are skipped and counted.
 *
 * Output (JSONL, one object a line; data only, no gitleaks code):
 *   gitleaks-tp.jsonl  {"group","rule","sample","secret"}   secret: the value that must disappear, or null
 *   gitleaks-fp.jsonl  {"group","rule","sample"}
 * The secret is known for generated samples; for literal ones it is taken from the rule's own
 * regex (converted to a JS regex: secretGroup, else the first non-empty group), when that works.
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
  console.error("usage: bun scripts/corpus/gitleaks.ts <gitleaks checkout> [--out dir] [--seed n]");
  process.exit(2);
}
const outDir = resolve(flag("out", "test/fixtures/secrets"));
let seed = Number(flag("seed", "1")) >>> 0 || 1;
const rand = () => {
  // xorshift32: reproducible output for a given seed
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 0x100000000;
};
const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

// ---------------------------------------------------------------- regex -> sample (reggen-like)

const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => String.fromCharCode(a + i));
const DIGITS = range(48, 57);
const WORD = [...range(97, 122), ...range(65, 90), ...DIGITS, "_"];
const PRINTABLE = range(33, 126);

type Node =
  | { t: "chars"; set: string[] }
  | { t: "seq"; items: Node[] }
  | { t: "alt"; opts: Node[] }
  | { t: "rep"; node: Node; min: number; max: number };

function parseRegex(src: string): Node {
  let i = 0;
  const REP_LIMIT = 1; // reggen Generate(1): an unbounded repetition adds at most one more
  function esc(): string[] {
    const c = src[i++]!;
    if (c === "d") return DIGITS;
    if (c === "w") return WORD;
    if (c === "s") return [" "];
    if (c === "n") return ["\n"];
    if (c === "r") return ["\r"];
    if (c === "t") return ["\t"];
    if (c === "x") {
      const h = src.slice(i, i + 2);
      i += 2;
      return [String.fromCharCode(parseInt(h, 16))];
    }
    if (c === "b" || c === "B" || c === "A" || c === "z") return [];
    return [c];
  }
  function cls(): string[] {
    let neg = false;
    if (src[i] === "^") {
      neg = true;
      i++;
    }
    const set = new Set<string>();
    let first = true;
    while (i < src.length && (src[i] !== "]" || first)) {
      first = false;
      let chars: string[];
      if (src.startsWith("[:", i)) {
        const end = src.indexOf(":]", i);
        const name = src.slice(i + 2, end);
        i = end + 2;
        chars = name === "alnum" ? WORD.filter((c) => c !== "_") : name === "digit" ? DIGITS : WORD;
      } else if (src[i] === "\\") {
        i++;
        chars = esc();
      } else chars = [src[i++]!];
      if (chars.length === 1 && src[i] === "-" && src[i + 1] !== "]" && src[i + 1] !== undefined) {
        i++;
        let hi: string;
        if (src[i] === "\\") {
          i++;
          hi = esc()[0]!;
        } else hi = src[i++]!;
        for (const c of range(chars[0]!.charCodeAt(0), hi.charCodeAt(0))) set.add(c);
      } else for (const c of chars) set.add(c);
    }
    i++; // ]
    if (!neg) return [...set];
    return PRINTABLE.filter((c) => !set.has(c) && /[A-Za-z0-9]/.test(c));
  }
  function atom(): Node | null {
    const c = src[i]!;
    if (c === "(") {
      i++;
      if (src[i] === "?") {
        i++;
        if (src[i] === "P" || src[i] === "<") {
          i = src.indexOf(">", i) + 1;
        } else {
          // flags: (?i) (?i: (?-i: (?s:
          while (i < src.length && /[a-zA-Z-]/.test(src[i]!)) i++;
          if (src[i] === ")") {
            i++;
            return null;
          }
          i++; // ':'
        }
      }
      const inner = alt();
      i++; // ')'
      return inner;
    }
    if (c === "[") {
      i++;
      return { t: "chars", set: cls() };
    }
    if (c === "\\") {
      i++;
      const s = esc();
      return s.length ? { t: "chars", set: s } : null;
    }
    if (c === "^" || c === "$") {
      i++;
      return null;
    }
    if (c === ".") {
      i++;
      return { t: "chars", set: WORD.filter((x) => x !== "_") };
    }
    i++;
    return { t: "chars", set: [c] };
  }
  function seq(): Node {
    const items: Node[] = [];
    while (i < src.length && src[i] !== "|" && src[i] !== ")") {
      const a = atom();
      let min = 1;
      let max = 1;
      const q = src[i];
      if (q === "*" || q === "+" || q === "?") {
        i++;
        min = q === "+" ? 1 : 0;
        max = q === "?" ? 1 : min + REP_LIMIT;
      } else if (q === "{" && /^\{\d+(,\d*)?\}/.test(src.slice(i))) {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(src.slice(i))!;
        i += m[0].length;
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] ? Number(m[3]) : min + REP_LIMIT;
      }
      if (src[i] === "?" && (q === "*" || q === "+" || q === "?" || q === "{")) i++; // lazy
      if (a) items.push(min === 1 && max === 1 ? a : { t: "rep", node: a, min, max });
    }
    return { t: "seq", items };
  }
  function alt(): Node {
    const opts = [seq()];
    while (src[i] === "|") {
      i++;
      opts.push(seq());
    }
    return opts.length === 1 ? opts[0]! : { t: "alt", opts };
  }
  return alt();
}

function generate(n: Node): string {
  switch (n.t) {
    case "chars":
      return n.set.length ? pick(n.set) : "";
    case "seq":
      return n.items.map(generate).join("");
    case "alt":
      return generate(pick(n.opts));
    case "rep": {
      let s = "";
      for (let k = int(n.min, n.max); k > 0; k--) s += generate(n.node);
      return s;
    }
  }
}
const newSecret = (re: string) => generate(parseRegex(re));

// ---------------------------------------------------------------- gitleaks' sample templates

// utils.GenerateSampleSecrets: the same shapes, so generated samples read like gitleaks' own.
const SAMPLE_TEMPLATES = [
  '{i}Token="{s}"',
  '{i}Token = "{s}"',
  "{i}Token={s}",
  "{i}Token = {s}",
  '{\n    "{i}_token": "{s}"\n}',
  '{"config.ini": "{I}_TOKEN={s}\\nBACKUP_ENABLED=true"}',
  "<{i}Token>\n    {s}\n</{i}Token>",
  "{i}_token: {s}",
  "{i}_token: '{s}'",
  '{i}_token: "{s}"',
  'string {i}Token = "{s}";',
  'var {i}Token string = "{s}"',
  '{i}Token := "{s}"',
  "{i}Token := `{s}`",
  'String {i}Token = "{s}";',
  'var {i}Token = "{s}"',
  "$" + '{i}Token .= "{s}"',
  "{i}Token = '{s}'",
  '{i}Token = "{s}"',
  'System.setProperty("{I}_TOKEN", "{s}")',
  '  "{i}Token" => "{s}"',
  '{i}_TOKEN = "{s}"',
  '{i}_TOKEN := "{s}"',
  '{i}_TOKEN ::= "{s}"',
  '{i}_TOKEN :::= "{s}"',
  '{i}_TOKEN ?= "{s}"',
];
const fill = (tpl: string, id: string, s: string) =>
  tpl.replaceAll("{i}", id).replaceAll("{I}", id.toUpperCase()).replaceAll("{s}", s);

// ---------------------------------------------------------------- a tiny Go expression evaluator

type Tok = { k: "str" | "id" | "num" | "op"; v: string };

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === "/" && src[i + 1] === "/") {
      while (i < src.length && src[i] !== "\n") i++;
    } else if (c === "/" && src[i + 1] === "*") {
      i = src.indexOf("*/", i + 2) + 2;
    } else if (/\s/.test(c)) i++;
    else if (c === "`") {
      const end = src.indexOf("`", i + 1);
      out.push({ k: "str", v: src.slice(i + 1, end) });
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      while (src[j] !== '"') j += src[j] === "\\" ? 2 : 1;
      out.push({ k: "str", v: JSON.parse(src.slice(i, j + 1).replace(/\\x([0-9a-fA-F]{2})/g, "\\u00$1")) });
      i = j + 1;
    } else if (c === "'") {
      let j = i + 1;
      while (src[j] !== "'") j += src[j] === "\\" ? 2 : 1;
      out.push({ k: "num", v: src.slice(i, j + 1) });
      i = j + 1;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i, i + 200))!;
      out.push({ k: "id", v: m[0] });
      i += m[0].length;
    } else if (/[0-9]/.test(c)) {
      const m = /^[0-9][0-9a-fA-FxX._]*/.exec(src.slice(i, i + 100))!;
      out.push({ k: "num", v: m[0] });
      i += m[0].length;
    } else {
      const three = src.slice(i, i + 3);
      const two = src.slice(i, i + 2);
      const op = three === "..." ? three : [":=", "==", "!=", "&&", "||", "+=", "<-"].includes(two) ? two : c;
      out.push({ k: "op", v: op });
      i += op.length;
    }
  }
  return out;
}

type Val = string | number | Val[] | { regex: string } | null;
class Unsupported extends Error {}

function b64(s: string, url: boolean, pad: boolean): string {
  let out = Buffer.from(s, "latin1").toString("base64");
  if (url) out = out.replaceAll("+", "-").replaceAll("/", "_");
  if (!pad) out = out.replace(/=+$/, "");
  return out;
}

function sprintf(fmt: string, a: Val[]): string {
  let k = 0;
  return fmt.replace(/%[-+# 0-9.]*([sdvqx%])/g, (_m, verb: string) => {
    if (verb === "%") return "%";
    const v = a[k++];
    const s = typeof v === "object" && v && !Array.isArray(v) ? v.regex : String(v);
    return verb === "q" ? JSON.stringify(s) : s;
  });
}

const asStr = (v: Val): string => {
  if (typeof v === "string") return v;
  if (typeof v === "number") return String(v);
  if (v && typeof v === "object" && !Array.isArray(v)) return v.regex;
  throw new Unsupported("not a string");
};

class Evaluator {
  pos = 0;
  constructor(
    readonly toks: Tok[],
    readonly env: Map<string, Val>,
  ) {}
  peek(o = 0) {
    return this.toks[this.pos + o];
  }
  eat(v?: string): Tok {
    const t = this.toks[this.pos++];
    if (!t || (v !== undefined && t.v !== v)) throw new Unsupported(`expected ${v} got ${t?.v}`);
    return t;
  }
  expr(): Val {
    let v = this.primary();
    while (this.peek()?.v === "+") {
      this.eat("+");
      v = asStr(v) + asStr(this.primary());
    }
    return v;
  }
  args(): Val[] {
    this.eat("(");
    const out: Val[] = [];
    while (this.peek()?.v !== ")") {
      const v = this.expr();
      if (this.peek()?.v === "...") {
        this.eat("...");
        if (!Array.isArray(v)) throw new Unsupported("spread");
        out.push(...v);
      } else out.push(v);
      if (this.peek()?.v === ",") this.eat(",");
    }
    this.eat(")");
    return out;
  }
  /** `{ a, b, }` or `{ "k": v, }` -> the values. */
  composite(): Val[] {
    this.eat("{");
    const out: Val[] = [];
    while (this.peek()?.v !== "}") {
      let v = this.expr();
      if (this.peek()?.v === ":") {
        this.eat(":");
        v = this.expr();
      }
      out.push(v);
      if (this.peek()?.v === ",") this.eat(",");
    }
    this.eat("}");
    return out;
  }
  primary(): Val {
    const t = this.peek();
    if (!t) throw new Unsupported("eof");
    if (t.k === "str") {
      this.pos++;
      return t.v;
    }
    if (t.k === "num") {
      this.pos++;
      return Number(t.v);
    }
    if (t.v === "[" && this.peek(1)?.v === "]") {
      this.pos += 2;
      const ty = this.eat().v;
      if (ty === "byte") return asStr(this.args()[0]!);
      return this.composite();
    }
    if (t.v === "map") {
      while (this.peek()?.v !== "{") this.pos++;
      return this.composite();
    }
    if (t.k !== "id") throw new Unsupported(`token ${t.v}`);
    let name = this.eat().v;
    while (this.peek()?.v === "." && this.peek(1)?.k === "id") {
      this.pos++;
      name += `.${this.eat().v}`;
    }
    if (this.peek()?.v === "(") return this.call(name, this.args());
    if (this.env.has(name)) return this.env.get(name)!;
    throw new Unsupported(`unknown ${name}`);
  }
  call(name: string, a: Val[]): Val {
    const short = name.replace(/^(utils|secrets|regexp|config)\./, "");
    const s = (k: number) => asStr(a[k]!);
    switch (short) {
      case "NewSecret":
      case "newPlausibleSecret":
        return newSecret(s(0));
      case "Numeric":
        return { regex: `[0-9]{${s(0)}}` };
      case "Hex":
        return { regex: `[a-f0-9]{${s(0)}}` };
      case "AlphaNumeric":
        return { regex: `[a-z0-9]{${s(0)}}` };
      case "AlphaNumericExtendedShort":
        return { regex: `[a-z0-9_-]{${s(0)}}` };
      case "AlphaNumericExtended":
        return { regex: `[a-z0-9=_\\-]{${s(0)}}` };
      case "AlphaNumericExtendedLong":
        return { regex: `[a-z0-9\\/=_\\+\\-]{${s(0)}}` };
      case "Hex8_4_4_4_12":
        return { regex: "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}" };
      case "GenerateSampleSecrets": {
        const id = s(0);
        const secret = s(1);
        return SAMPLE_TEMPLATES.map((tpl) => JSON.stringify({ sample: fill(tpl, id, secret), secret }));
      }
      case "GenerateSampleSecret":
      case "generateSampleSecret":
        return JSON.stringify({ sample: `${s(0)}_api_token = "${s(1)}"`, secret: s(1) });
      case "fmt.Sprintf":
        return sprintf(s(0), a.slice(1));
      case "strings.Repeat":
        return s(0).repeat(Number(a[1]));
      case "strings.ToUpper":
        return s(0).toUpperCase();
      case "strings.ToLower":
        return s(0).toLowerCase();
      case "append": {
        const base = a[0];
        if (!Array.isArray(base)) throw new Unsupported("append base");
        return [...base, ...a.slice(1)];
      }
      case "MustCompile":
        return { regex: s(0) };
      case "GenerateUniqueTokenRegex":
        return { regex: `${a[1] ? "(?i)" : ""}\\b(${s(0)})(?:[\\x60'"\\s;]|\\\\[nr]|$)` };
      case "GenerateSemiGenericRegex": {
        const ids = (a[0] as Val[]).map(asStr).join("|");
        const pre = a[2] ? `(?i)[\\w.-]{0,50}?(?:${ids})` : `[\\w.-]{0,50}?(?i:${ids})`;
        return {
          regex: `${pre}(?:[ \\t\\w.-]{0,20})[\\s'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'"\\s=]{0,5}(${s(1)})(?:[\\x60'"\\s;]|\\\\[nr]|$)`,
        };
      }
      case "MergeRegexps":
        return { regex: a.map(asStr).join("|") };
    }
    const m = /^(?:base64|b64)\.(Std|RawStd|URL|RawURL)Encoding\.EncodeToString$/.exec(name);
    if (m) return b64(s(0), m[1]!.includes("URL"), !m[1]!.startsWith("Raw"));
    throw new Unsupported(`call ${name}`);
  }
}

// ---------------------------------------------------------------- Go regex -> JS regex (best effort)

function toJsRegex(go: string): RegExp | null {
  let src = go;
  let flags = "";
  if (/\(\?i\)|\(\?i:/.test(src)) flags += "i";
  src = src
    .replace(/\(\?s:\.\)/g, "[\\s\\S]")
    .replace(/\(\?i\)/g, "")
    .replace(/\(\?-?[is]+:/g, "(?:")
    .replace(/\(\?s\)/g, "")
    .replace(/\(\?P</g, "(?<")
    .replace(/\\z/g, "$(?![\\s\\S])")
    .replace(/\\A/g, "^")
    .replace(/\[\[:alnum:\]\]/g, "[A-Za-z0-9]")
    .replace(/\[:alnum:\]/g, "A-Za-z0-9")
    .replace(/\[:digit:\]/g, "0-9")
    .replace(/\\x60/g, "`");
  try {
    return new RegExp(src, `${flags}m`);
  } catch {
    return null;
  }
}

function secretFrom(re: RegExp | null, group: number, sample: string): string | null {
  if (!re) return null;
  const m = re.exec(sample);
  if (!m) return null;
  let v = m[0];
  if (group > 0 && m[group]) v = m[group]!;
  else
    for (let k = 1; k < m.length; k++)
      if (m[k]) {
        v = m[k]!;
        break;
      }
  // The value, not its quotes.
  const q = /^(["'`])([\s\S]*)\1$/.exec(v.trim());
  return q ? q[2]! : v.trim();
}

// ---------------------------------------------------------------- per file, per function

type Row = { group: string; rule: string; sample: string; secret?: string | null };
const tp: Row[] = [];
const fp: Row[] = [];
let skipped = 0;

const rulesDir = join(checkout, "cmd/generate/config/rules");
for (const file of readdirSync(rulesDir).sort()) {
  if (!file.endsWith(".go") || file === "stopwords.go") continue;
  const group = file.replace(/\.go$/, "");
  const text = readFileSync(join(rulesDir, file), "utf8");
  // Helper functions (generateTestValues and the like) are evaluated as needed, by name.
  const funcs = text.split(/\n(?=func )/);
  for (const fn of funcs) {
    const ruleId = /RuleID:\s*"([^"]+)"/.exec(fn)?.[1];
    if (!ruleId) continue;
    const toks = tokenize(fn);
    const env = new Map<string, Val>();
    for (const [k, v] of Object.entries({ true: 1, false: 0 })) env.set(k, v);
    let regex: RegExp | null = null;
    const secretGroup = Number(/SecretGroup:\s*(\d+)/.exec(fn)?.[1] ?? 0);
    for (let i = 0; i < toks.length - 2; i++) {
      const t = toks[i]!;
      // `Regex: <expr>,` inside the rule literal
      if (t.v === "Regex" && toks[i + 1]!.v === ":" && !regex) {
        try {
          const ev = new Evaluator(toks, env);
          ev.pos = i + 2;
          regex = toJsRegex(asStr(ev.expr()));
        } catch {}
        continue;
      }
      const op = toks[i + 1]!.v;
      if (t.k !== "id" || (op !== ":=" && op !== "=") || toks[i - 1]?.v === ".") continue;
      const ev = new Evaluator(toks, env);
      ev.pos = i + 2;
      try {
        env.set(t.v, ev.expr());
      } catch (err) {
        if (!(err instanceof Unsupported)) throw err;
        if (t.v === "tps" || t.v === "fps") skipped++;
      }
    }
    const flat = (v: Val | undefined): string[] =>
      v === undefined || v === null ? [] : Array.isArray(v) ? v.flatMap(flat) : [asStr(v)];
    for (const raw of flat(env.get("tps"))) {
      let sample = raw;
      let secret: string | null = null;
      if (raw.startsWith('{"sample":')) ({ sample, secret } = JSON.parse(raw));
      else secret = secretFrom(regex, secretGroup, sample);
      // Kubernetes' rule matches `key: value` under data:; the secret is the value.
      const kv =
        secret && ruleId.startsWith("kubernetes") ? /^[\w.-]+:\s*(?:[|>][-+]?\s+)?([\s\S]+)$/.exec(secret) : null;
      if (kv) secret = kv[1]!.replace(/^(["'])([\s\S]*)\1$/, "$2");
      if (sample.trim()) tp.push({ group, rule: ruleId, sample, secret });
    }
    for (const raw of flat(env.get("fps"))) {
      const sample = raw.startsWith('{"sample":') ? JSON.parse(raw).sample : raw;
      if (sample.trim()) fp.push({ group, rule: ruleId, sample });
    }
  }
}

const jsonl = (rows: Row[]) => `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`;
writeFileSync(join(outDir, "gitleaks-tp.jsonl"), jsonl(tp));
writeFileSync(join(outDir, "gitleaks-fp.jsonl"), jsonl(fp));
const groups = new Set(tp.map((r) => r.group));
console.log(
  `true positives: ${tp.length} (${tp.filter((r) => r.secret).length} with a known secret) in ${groups.size} groups; ` +
    `false positives: ${fp.length}; statements skipped: ${skipped}`,
);
