import { existsSync } from "node:fs";
import { parse as parseToml } from "smol-toml";
import * as v from "valibot";
import { CofferError } from "../lib/errors";
import { CLI_PROVIDERS, HOSTS, type Host } from "../lib/hosts";
import { paths } from "../lib/paths";
import { readOwnText } from "../lib/small-file";

type KeySpec = {
  /** Built when a value is checked: building ~50 schemas when the module loads cost every process ~0.7 ms. */
  schema: () => v.GenericSchema<unknown, unknown>;
  default?: string | number | boolean;
  /** Human description of the allowed values, used in error messages. */
  allowed: string;
};

// Schemas are built when a value is checked, not when the module loads: every hook loads this
// module and most never see a config.toml.
const int = (min: number, max: number) => () => v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));
const pick = <T extends string>(...values: T[]) => ({
  schema: () => v.picklist(values),
  allowed: values.join(", "),
});
const str = (allowed: string) => ({ schema: () => v.pipe(v.string(), v.minLength(1)), allowed });
const bool = () => v.boolean();

export const READ_MODES = ["startup", "auto", "always", "manual", "off"] as const;
export const PROOF_MODES = ["off", "compact"] as const;
/** The host names live in lib/hosts.ts (the registry is src/hosts/index.ts); re-exported for older imports. */
export { HOSTS, type Host };

const keepOff = () => ({ ...pick("keep", "off"), default: "keep" });

/** `native_memory.<host>` for every host, typed per key (Object.fromEntries would lose the names). */
function nativeMemoryKeys() {
  return Object.fromEntries(HOSTS.map((h) => [`native_memory.${h}`, keepOff()])) as {
    [H in Host as `native_memory.${H}`]: ReturnType<typeof keepOff>;
  };
}

/** Every key `config.toml` may hold, as `section.key`. One place: validation, defaults, `config get|set`. */
export const CONFIG_KEYS = {
  "limits.body_max": { schema: int(64, 32768), default: 8192, allowed: "an integer 64..32768" },
  "load.max_tokens": { schema: int(100, 100000), default: 1600, allowed: "an integer 100..100000" },
  "load.prompt_max_chars": { schema: int(200, 50000), default: 1500, allowed: "an integer 200..50000" },
  "hook.read": { ...pick(...READ_MODES), default: "auto" },
  "hook.proof": { ...pick(...PROOF_MODES), default: "off" },
  "hook.deadline_ms": { schema: int(100, 10000), default: 1500, allowed: "an integer 100..10000" },
  /** Sentence similarity (src/retrieval/embed/) fused with the word match in the prompt hook and recall; off = words only. */
  "routing.similarity": { ...pick("on", "off"), default: "on" },
  /**
   * Whether the agents' use of an entry (issue 41: judged from finished sessions) nudges the prompt
   * hook's order: often used rises, delivered often and never used sinks, by at most USE_PRIOR_BOUND.
   * Off until the use signal's measured precision earns it (scripts/bench/use-signal.ts).
   */
  "ranking.use_prior": { ...pick("on", "off"), default: "off" },
  /** Entries delivered this many times (judged) and never used are offered in the inbox for review. */
  "inbox.unused_after": { schema: int(1, 100000), default: 30, allowed: "an integer 1..100000" },
  /** The team lane: each repository's committed `.coffer/` (entries, rules) read as scope `team`. */
  "team.read": { ...pick("on", "off"), default: "on" },
  /** Who team entries name as their author: "git" = the git user.name (read from git config files); off = user / agent:<host> only. */
  "team.author": { ...pick("off", "git"), default: "off" },
  ...nativeMemoryKeys(),
  /** Import what the agents remember natively (auto memory, GEMINI.md, Codex memories) at session start and in the sweep. */
  "native_memory.harvest": { schema: bool, default: true, allowed: "true or false" },
  /** An API, an agent's own CLI run headless, or "none" (distillation off). Unset: the first linked agent's CLI. */
  "model.provider": pick("openai", "anthropic", ...CLI_PROVIDERS, "none"),
  "model.base_url": str("an http(s) URL, e.g. http://127.0.0.1:11434/v1"),
  "model.model": str("a model name, e.g. gpt-4o-mini"),
  "model.api_key_env": str("the name of an environment variable holding the key, e.g. OPENAI_API_KEY"),
  "model.timeout_ms": { schema: int(1000, 600000), default: 60000, allowed: "an integer 1000..600000" },
  /** Routing keywords: "enrich" = in the distillation call and `coffer enrich`; "on-write" = also on remember/import. */
  "model.keywords": { ...pick("enrich", "on-write"), default: "enrich" },
  "distill.settle_minutes": { schema: int(0, 10080), default: 15, allowed: "an integer 0..10080" },
  "distill.recency_days": { schema: int(1, 365), default: 7, allowed: "an integer 1..365" },
  "distill.max_sessions_per_sweep": { schema: int(1, 1000), default: 20, allowed: "an integer 1..1000" },
  /** The older name of distill.max_sessions_per_sweep, still read (no default: the new key's applies). */
  "distill.max_per_pass": {
    schema: int(1, 1000),
    allowed: "an integer 1..1000 (older name of max_sessions_per_sweep)",
  },
  "distill.daily_token_budget": {
    schema: int(0, 1_000_000_000),
    default: 200_000,
    allowed: "an integer 0..1000000000 (tokens per day; 0 = no limit)",
  },
  "distill.budget_chars": { schema: int(1000, 200000), default: 12000, allowed: "an integer 1000..200000" },
  /**
   * The sweep in the background (a session-start hook starts it, `coffer serve` runs it), whenever
   * a model is available; false turns it off (`coffer distill sweep` by hand still runs).
   */
  "distill.sweep": { schema: bool, default: true, allowed: "true or false" },
  /** A session-start hook starts a background sweep when the last sweep started longer ago than this. */
  "distill.sweep_interval_minutes": { schema: int(1, 1440), default: 30, allowed: "an integer 1..1440" },
  "inbox.max_files": { schema: int(1, 100000), default: 100, allowed: "an integer 1..100000" },
  "sync.auto": { schema: bool, default: false, allowed: "true or false" },
  "sync.interval_minutes": { schema: int(1, 1440), default: 15, allowed: "an integer 1..1440" },
  "serve.port": { schema: int(1, 65535), default: 26333, allowed: "a port 1..65535" },
  "serve.worker_interval_seconds": { schema: int(5, 86400), default: 300, allowed: "an integer 5..86400" },
} satisfies Record<string, KeySpec>;

export type ConfigKey = keyof typeof CONFIG_KEYS;
type Specs = typeof CONFIG_KEYS;
/** A key's value as its schema outputs it (`hook.deadline_ms` -> number, `hook.read` -> the read modes). */
type ConfigValue<K extends ConfigKey> = v.InferOutput<ReturnType<Specs[K]["schema"]>>;
/**
 * The effective configuration: file values over defaults, flattened by `section.key`. A key
 * with a default always has a value; one without (the model keys) may be undefined.
 */
export type Config = {
  [K in ConfigKey]: Specs[K] extends { default: unknown } ? ConfigValue<K> : ConfigValue<K> | undefined;
};
/** Only what a file sets. */
export type ConfigFile = Partial<Config>;

const SPECS = CONFIG_KEYS as Record<ConfigKey, KeySpec>;

export function isConfigKey(key: string): key is ConfigKey {
  return Object.hasOwn(SPECS, key);
}

function sectionKeys(section: string): string[] {
  return Object.keys(SPECS)
    .filter((k) => k.startsWith(`${section}.`))
    .map((k) => k.slice(section.length + 1));
}

/**
 * Keys Coffer once read and no longer does, with why. A config.toml that still holds one loads as
 * if it did not (nothing fails); `coffer doctor` notes it, and `config get|set` of it says why.
 */
const RETIRED_KEYS: Record<string, string> = {
  "routing.learned":
    "routing.learned was removed: the sentence model (routing.similarity) replaced the learned thesaurus",
};

const isRetiredKey = (key: string): boolean => Object.hasOwn(RETIRED_KEYS, key);

/** Name the allowed keys when a key is unknown (or say why, for a retired one). */
export function unknownKeyError(key: string, file = "config.toml"): CofferError {
  if (isRetiredKey(key)) return new CofferError(`${file}: ${RETIRED_KEYS[key]}`);
  const [section] = key.split(".");
  const inSection = section ? sectionKeys(section) : [];
  const allowed = inSection.length
    ? `allowed in [${section}]: ${inSection.join(", ")}`
    : `allowed sections: ${[...new Set(Object.keys(SPECS).map((k) => k.split(".")[0]))].join(", ")}`;
  return new CofferError(`${file}: unknown key "${key}" (${allowed})`);
}

/** Validate one value for a key; returns the value or throws naming the key and the allowed values. */
export function validateValue(key: string, value: unknown, file = "config.toml"): string | number | boolean {
  if (!isConfigKey(key)) throw unknownKeyError(key, file);
  const spec = SPECS[key]!;
  const result = v.safeParse(spec.schema(), value);
  if (!result.success) {
    throw new CofferError(`${file}: bad value for "${key}": ${JSON.stringify(value)} (allowed: ${spec.allowed})`);
  }
  return result.output as string | number | boolean;
}

/** Parse a command-line string into the key's type (`config set hook.deadline_ms 900`). */
export function coerceCliValue(key: string, raw: string): string | number | boolean {
  if (!isConfigKey(key)) throw unknownKeyError(key);
  const spec = SPECS[key]!;
  const sample = spec.default;
  let value: unknown = raw;
  if (typeof sample === "number" || spec.allowed.startsWith("an integer") || spec.allowed.startsWith("a port")) {
    value = /^-?\d+$/.test(raw.trim()) ? Number(raw) : raw;
  } else if (typeof sample === "boolean") {
    value = raw === "true" ? true : raw === "false" ? false : raw;
  }
  return validateValue(key, value);
}

/** Flatten and validate a parsed TOML document. */
export function validateConfigDoc(doc: Record<string, unknown>, file = "config.toml"): ConfigFile {
  const out: Record<string, unknown> = {};
  for (const [section, table] of Object.entries(doc)) {
    if (!table || typeof table !== "object" || Array.isArray(table)) {
      throw unknownKeyError(section, file);
    }
    for (const [name, value] of Object.entries(table as Record<string, unknown>)) {
      const key = `${section}.${name}`;
      if (!isRetiredKey(key)) out[key] = validateValue(key, value, file);
    }
  }
  return out as ConfigFile;
}

/** Parse TOML text (Bun's native parser; smol-toml re-parses a broken file to name the line). */
export function parseTomlStrict(text: string, file: string): Record<string, unknown> {
  try {
    return Bun.TOML.parse(text) as Record<string, unknown>;
  } catch {
    try {
      return parseToml(text) as Record<string, unknown>;
    } catch (err) {
      const e = err as { line?: number; message: string };
      const first = e.message.split("\n")[0];
      throw new CofferError(
        `${file}${e.line ? `:${e.line}` : ""}: ${first}`,
        1,
        "Fix the file by hand (or move it away) and run the command again.",
      );
    }
  }
}

/** config.toml is small; anything bigger is not read. */
const CONFIG_MAX = 1024 * 1024;

/** Only the keys present in the file (no defaults). */
export function readConfigFile(): ConfigFile {
  const file = paths.config();
  if (!existsSync(file)) return {};
  let text: string;
  try {
    text = readOwnText(file, CONFIG_MAX); // never a FIFO or a link: the read must not block
  } catch (err) {
    throw new CofferError(
      `${file} cannot be read: ${(err as Error).message}`,
      1,
      "Make it a regular file (or move it away) and run the command again.",
    );
  }
  return validateConfigDoc(parseTomlStrict(text, file), file);
}

/** Every key at its default (keys without one are absent, i.e. undefined). */
export function configDefaults(): Config {
  const out: Record<string, unknown> = {};
  for (const [k, spec] of Object.entries(SPECS)) if (spec.default !== undefined) out[k] = spec.default;
  return out as Config;
}

/** The effective configuration. Throws a CofferError for a malformed or invalid file. */
export function loadConfig(): Config {
  return { ...configDefaults(), ...readConfigFile() };
}

/**
 * What a config file holds, read leniently: every valid key is kept, and each unknown key, bad
 * value or unreadable file is one problem in `problems` (the strict reader stops at the first).
 * `hook.read` fails closed: a file that sets it to something that cannot be read (a bad value, a
 * file that does not parse but assigns `read = "off"`, a file that exists but cannot be opened)
 * gives "off", so a user who turned injection off never gets it back by a typo elsewhere.
 */
export function readConfigLenient(): { values: ConfigFile; problems: string[] } {
  const file = paths.config();
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  if (!existsSync(file)) return { values: {}, problems };
  let text: string;
  try {
    text = readOwnText(file, CONFIG_MAX);
  } catch (err) {
    problems.push(
      `${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); hook.read is off until it can`,
    );
    return { values: { "hook.read": "off" }, problems };
  }
  let doc: Record<string, unknown>;
  try {
    doc = parseTomlStrict(text, file);
  } catch (err) {
    problems.push(`${(err as Error).message} (config.toml ignored: it does not parse; defaults apply)`);
    // Whatever else is broken, an unambiguous read = "off" is honoured.
    if (/^\s*(?:hook\s*\.\s*)?read\s*=\s*["']?off\b/m.test(text)) {
      values["hook.read"] = "off";
      problems.push(`${file}: hook.read = "off" honoured although the file does not parse`);
    }
    return { values: values as ConfigFile, problems };
  }
  for (const [section, table] of Object.entries(doc)) {
    if (!table || typeof table !== "object" || Array.isArray(table)) {
      problems.push(`${unknownKeyError(section, file).message} (skipped; the other keys apply)`);
      continue;
    }
    for (const [name, value] of Object.entries(table as Record<string, unknown>)) {
      const key = `${section}.${name}`;
      if (isRetiredKey(key)) continue; // noted by doctor (retiredKeysNotes), never a problem
      try {
        values[key] = validateValue(key, value, file);
      } catch (err) {
        problems.push(`${(err as Error).message} (skipped; the other keys apply)`);
        if (key === "hook.read") {
          values[key] = "off";
          problems.push(`${file}: hook.read is off until its value is one of: ${READ_MODES.join(", ")}`);
        }
      }
    }
  }
  return { values: values as ConfigFile, problems };
}

/** Why each retired key config.toml still holds is gone (for doctor); nothing for a file that does not load. */
export function retiredKeysNotes(): string[] {
  const file = paths.config();
  if (!existsSync(file)) return [];
  let doc: Record<string, unknown>;
  try {
    doc = parseTomlStrict(readOwnText(file, CONFIG_MAX), file);
  } catch {
    return [];
  }
  const notes: string[] = [];
  for (const [section, table] of Object.entries(doc)) {
    if (!table || typeof table !== "object" || Array.isArray(table)) continue;
    for (const name of Object.keys(table)) {
      const key = `${section}.${name}`;
      if (isRetiredKey(key)) notes.push(RETIRED_KEYS[key]!);
    }
  }
  return notes;
}

/**
 * The effective config for code that must never fail (hooks, the web UI): every valid key of the
 * file over the defaults; each problem goes to `onError` (hook.log, ...). See `readConfigLenient`.
 */
export function loadConfigOrDefaults(onError?: (err: Error) => void): Config {
  const { values, problems } = readConfigLenient();
  for (const p of problems) onError?.(new Error(p));
  return { ...configDefaults(), ...values };
}
