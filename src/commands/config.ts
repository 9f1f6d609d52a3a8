import { existsSync, readFileSync } from "node:fs";
import { defineCommand } from "citty";
import { writeFileAtomic } from "../lib/atomic";
import { CofferError, usageError } from "../lib/errors";
import { writeOut } from "../lib/output";
import { paths } from "../lib/paths";
import { deleteTomlKey, setTomlKey } from "../lib/toml-edit";
import { audit } from "../scrub/write";
import {
  CONFIG_KEYS,
  type ConfigKey,
  coerceCliValue,
  isConfigKey,
  loadConfig,
  parseTomlStrict,
  unknownKeyError,
  validateConfigDoc,
} from "../store/config";
import { withExamples } from "./_run";
import { consola, jsonArg, printJson } from "./_shared";

/** A key or value typed on the command line that config.toml would not take is a usage error (exit 2). */
function asUsage(err: unknown): unknown {
  if (!(err instanceof CofferError) || err.exitCode !== 1) return err;
  return usageError(err.message.replace(/^config\.toml: /, ""), err.hint);
}

/** Set one key in config.toml, keeping the rest of the file (comments included) as it was. */
export function setConfigValue(key: string, raw: string): string | number | boolean {
  let value: string | number | boolean;
  try {
    value = coerceCliValue(key, raw);
  } catch (err) {
    throw asUsage(err);
  }
  const file = paths.config();
  const current = existsSync(file) ? readFileSync(file, "utf8") : "";
  if (current) validateConfigDoc(parseTomlStrict(current, file), file); // never build on a broken file
  const [section, name] = key.split(".") as [string, string];
  const next = setTomlKey(current, [section, name], value);
  validateConfigDoc(parseTomlStrict(next, file), file);
  if (next !== current) {
    writeFileAtomic(file, next);
    audit({ event: "config_set", key, actor: "user" });
  }
  return value;
}

/** Remove one key from config.toml (its default applies again), keeping every other byte. False when it was not set. */
export function unsetConfigValue(key: string): boolean {
  if (!isConfigKey(key)) throw asUsage(unknownKeyError(key));
  const file = paths.config();
  const current = existsSync(file) ? readFileSync(file, "utf8") : "";
  if (!current) return false;
  validateConfigDoc(parseTomlStrict(current, file), file);
  const next = deleteTomlKey(current, key.split("."));
  if (next === current) return false;
  validateConfigDoc(parseTomlStrict(next, file), file);
  writeFileAtomic(file, next);
  audit({ event: "config_unset", key, actor: "user" });
  return true;
}

const get = withExamples(
  defineCommand({
    meta: { name: "get", description: "Print one key's effective value, or every key" },
    args: { key: { type: "positional", description: "section.key", required: false }, ...jsonArg },
    run({ args }) {
      const config = loadConfig();
      if (args.key) {
        if (!isConfigKey(args.key)) throw asUsage(unknownKeyError(args.key));
        const value = config[args.key];
        if (args.json) return printJson({ key: args.key, value: value ?? null });
        writeOut(`${value ?? "(unset)"}\n`);
        return;
      }
      if (args.json) return printJson(config);
      for (const k of Object.keys(CONFIG_KEYS) as ConfigKey[])
        writeOut(`${k} = ${config[k] === undefined ? "(unset)" : JSON.stringify(config[k])}\n`);
    },
  }),
  ["coffer config get", "coffer config get hook.read", "coffer config get --json"],
);

const set = withExamples(
  defineCommand({
    meta: { name: "set", description: "Set one key in config.toml (validated)" },
    args: {
      key: { type: "positional", description: "section.key", required: true },
      value: { type: "positional", description: "The value", required: true },
    },
    run({ args }) {
      const value = setConfigValue(args.key, args.value);
      consola.success(`${args.key} = ${JSON.stringify(value)}`);
    },
  }),
  [
    "coffer config set load.max_tokens 2000",
    "coffer config set model.provider openai",
    "coffer config set native_memory.claude off",
  ],
);

const unset = withExamples(
  defineCommand({
    meta: { name: "unset", description: "Remove one key from config.toml (its default applies again)" },
    args: { key: { type: "positional", description: "section.key", required: true } },
    run({ args }) {
      if (unsetConfigValue(args.key)) consola.success(`${args.key} unset`);
      else consola.info(`${args.key} was not set in config.toml`);
    },
  }),
  ["coffer config unset model.provider"],
);

const path = defineCommand({
  meta: { name: "path", description: "Print the path of config.toml" },
  run() {
    writeOut(`${paths.config()}\n`);
  },
});

export default withExamples(
  defineCommand({
    meta: { name: "config", description: "Read or change config.toml (get, set, unset, path)" },
    subCommands: { get, set, unset, path },
    default: "get",
  }),
  [
    "coffer config get hook.read",
    "coffer config set hook.proof compact",
    "coffer config unset model.provider",
    "coffer config path",
  ],
);
