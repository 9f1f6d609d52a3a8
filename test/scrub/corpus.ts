/** Loading the scrubber corpus (test/fixtures/secrets) and judging one output. Shared by tests and scripts. */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const SECRETS_DIR = join(import.meta.dir, "..", "fixtures", "secrets");

export type TruePositive = { group: string; rule: string; sample: string; secret: string };
export type FalsePositive = { group: string; rule: string; sample: string };
export type SyntaxCase = { syntax: string; sample: string; secrets: string[] };

const jsonl = <T>(name: string): T[] =>
  readFileSync(join(SECRETS_DIR, name), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);

export const truePositives = () => jsonl<TruePositive>("gitleaks-tp.jsonl");
export const falsePositives = () => jsonl<FalsePositive>("gitleaks-fp.jsonl");
export const syntaxCases = () => jsonl<SyntaxCase>("syntax.jsonl");
export type ShapeCase = { shape: string; sample: string; secrets: string[] };
export type ShapeNegative = { shape: string; sample: string };
/** Generic shapes with made-up providers (scripts/corpus/shapes.ts). */
export const shapeCases = () => jsonl<ShapeCase>("shapes.jsonl");
export const shapeNegatives = () => jsonl<ShapeNegative>("shapes-negative.jsonl");
export const contexts = (): string[] =>
  JSON.parse(readFileSync(join(SECRETS_DIR, "contexts.json"), "utf8")).contexts as string[];
export const ordinaryLines = (): string[] =>
  readFileSync(join(SECRETS_DIR, "ordinary.txt"), "utf8")
    .split("\n")
    .filter((l) => l.length > 0);

/** The held-out corpus (test/fixtures/secrets/heldout): measured, never tuned on. */
export const HELDOUT_DIR = join(SECRETS_DIR, "heldout");
export type HeldoutSecret = { family: string; rule: string; sample: string; secret: string };
export type NearMiss = { family: string; rule: string; sample: string; kind: string };
const heldoutJsonl = <T>(name: string): T[] => jsonl<T>(join("heldout", name));
export const heldoutSecrets = () => heldoutJsonl<HeldoutSecret>("kingfisher-tp.jsonl");
export const heldoutNearMisses = () => heldoutJsonl<NearMiss>("kingfisher-fp.jsonl");
/**
 * The Kingfisher corpus in two halves by provider family (a fixed hash of the family's name, of the
 * rule for the ordinary near misses): "dev" was looked at after the first full measurement at the
 * end of issue 26's generic work; "test" never was, and stays the held-out figure.
 */
export function heldoutHalf(r: { family: string; rule: string }): "dev" | "test" {
  const key = r.family === "ordinary" ? r.rule : r.family;
  let h = 2166136261;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619) >>> 0;
  return h % 2 === 0 ? "dev" : "test";
}
export const heldoutContexts = (): string[] =>
  JSON.parse(readFileSync(join(HELDOUT_DIR, "contexts.json"), "utf8")).contexts as string[];

/** Place a sample in a chat-message context. */
export const inContext = (context: string, sample: string) => context.replace("{sample}", () => sample);

/**
 * Did any part of `secret` survive in `out`? The whole value, or (for values of 16+ characters)
 * either half: a redaction that keeps half a key has not replaced the whole value. For
 * `user:password` values only the password part counts (the user name may stay); for a URL, the
 * password in it, or (without one) its path and query.
 */
export function leaked(out: string, secret: string): boolean {
  if (out.includes(secret)) return true;
  const colon = secret.indexOf(":");
  const url = /^[a-z][a-z0-9+.-]*:\/\/([^/@\s]*@)?[^/?#\s]*(.*)$/i.exec(secret);
  const value = url
    ? // a URL's credential: the password of its userinfo, else its path and query (a webhook's tokens)
      url[1]
      ? url[1].slice(url[1].indexOf(":") + 1, -1)
      : url[2]!
    : colon > 0 && colon < secret.length - 1
      ? secret.slice(colon + 1)
      : secret;
  if (value !== secret && out.includes(value) && value.length >= 4) return true;
  if (value.length >= 16) {
    const h = Math.floor(value.length / 2);
    if (out.includes(value.slice(0, h)) || out.includes(value.slice(h))) return true;
  }
  return false;
}
