/**
 * Writing config.toml from the command line (`coffer config set/unset`, and the commands that set
 * one key for the user: link, set-read, set-proof), apart from any one command so that none imports
 * another (each command is its own chunk of the binary).
 */
import { existsSync, readFileSync } from "node:fs";
import { coerceCliValue, isConfigKey, parseTomlStrict, unknownKeyError, validateConfigDoc } from "../config/config";
import { writeFileAtomic } from "../lib/atomic";
import { CofferError, usageError } from "../lib/errors";
import { paths } from "../lib/paths";
import { deleteTomlKey, setTomlKey } from "../lib/toml-edit";
import { audit } from "../scrub/write";

/** A key or value typed on the command line that config.toml would not take is a usage error (exit 2). */
export function asUsage(err: unknown): unknown {
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
