/** The JSON dialects agents' config files use, and reading one file's value without editing it. */
import { readFileSync } from "node:fs";
import { type ParseError, parse } from "jsonc-parser";

/** What a host accepts: strict JSON, JSON with comments, or JSONC (comments + trailing commas). */
export type Dialect = "json" | "json-comments" | "jsonc";

/** jsonc-parser's options for a dialect. */
export function dialectOptions(dialect: Dialect) {
  return { disallowComments: dialect === "json", allowTrailingComma: dialect === "jsonc", allowEmptyContent: false };
}

/** The parsed value of a JSON/JSONC file, or undefined when it is missing, empty or unreadable. */
export function readJsonValue(path: string, dialect: Dialect): unknown {
  try {
    const text = readFileSync(path, "utf8");
    if (text.trim() === "") return undefined;
    const errors: ParseError[] = [];
    const value = parse(text, errors, dialectOptions(dialect));
    return errors.length ? undefined : value;
  } catch {
    return undefined;
  }
}
