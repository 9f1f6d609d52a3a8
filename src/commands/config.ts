import { defineCommand } from "citty";
import { CONFIG_KEYS, type ConfigKey, isConfigKey, loadConfig, unknownKeyError } from "../config/config";
import { writeOut } from "../lib/output";
import { paths } from "../lib/paths";
import { asUsage, setConfigValue, unsetConfigValue } from "./_config";
import { withExamples } from "./_run";
import { consola, jsonArg, printJson } from "./_shared";

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
