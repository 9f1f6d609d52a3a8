/**
 * Issue 36, item 5: a secret found once was redacted only where its context gave it away; the same
 * value a few characters later (`'…' | '…'`), in another field of the same entry, or echoed by the
 * agent a turn after the user pasted it, stayed. Once a value is known to be a secret, every
 * occurrence goes (URL-encoded, base64 and wrapped over lines too); short or placeholder values
 * do not spread.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { scrub, scrubTogether } from "../../src/scrub/index";
import { scrubFields } from "../../src/scrub/write";
import { prepareConversation } from "../../src/transcripts/conversation";
import { sandbox } from "../kit";

const V = "zajmEjyCrhFdm1gQXoZD6r8WKLubC-B2";

describe("in one text", () => {
  test("the issue's sample: both occurrences go, counted as two", () => {
    const r = scrub(`pepipost token = '${V}' | '${V}'`);
    expect(r.text).toBe("pepipost token = '[redacted]' | '[redacted]'");
    expect(r.redactions).toBe(2);
  });

  test("an occurrence before the one with context goes too", () => {
    expect(scrub(`use ${V} for mail.\nexport PEPIPOST_TOKEN=${V}`).text).toBe(
      "use [redacted] for mail.\nexport PEPIPOST_TOKEN=[redacted]",
    );
  });

  test("URL-encoded, JSON-escaped, base64 (alone and inside user:key) and wrapped over a line break", () => {
    const slashy = "Qm3Zr8Tx/2Lp9Vb4+Nc7Wd1Hs6";
    const text = [
      `password = "${slashy}"`,
      `curl 'https://api.acme.io/v1?k=${encodeURIComponent(slashy)}&x=1'`,
      `{"k": "${slashy.replace(/\//g, "\\/")}"}`,
      `b64: ${Buffer.from(slashy).toString("base64")} done`,
      `Authorization: X-Custom ${Buffer.from(`deploy:${slashy}`).toString("base64")} done`,
      `wrapped: ${slashy.slice(0, 11)}`,
      `    ${slashy.slice(11)} end`,
    ].join("\n");
    const out = scrub(text).text;
    expect(out).not.toContain(slashy);
    expect(out).not.toContain(encodeURIComponent(slashy));
    expect(out).not.toContain(Buffer.from(slashy).toString("base64").slice(0, 12));
    expect(out).not.toContain(Buffer.from(`deploy:${slashy}`).toString("base64").slice(12, 30));
    expect(out).not.toContain(slashy.slice(11));
    expect(out).toBe(
      [
        `password = "[redacted]"`,
        `curl 'https://api.acme.io/v1?k=[redacted]&x=1'`,
        `{"k": "[redacted]"}`,
        "b64: [redacted] done",
        "Authorization: X-Custom [redacted] done",
        "wrapped: [redacted] end",
      ].join("\n"),
    );
  });

  test("short and placeholder values do not spread: common words stay", () => {
    expect(scrub("password = hunter2\nthe hunter2 game").text).toBe("password = [redacted]\nthe hunter2 game");
    const text = "DB_PASSWORD=supersecret\nthe supersecret flag is off";
    expect(scrub(text).text).toBe("DB_PASSWORD=[redacted]\nthe supersecret flag is off");
    const placeholder = 'api_key = "<your-api-key>"\nreplace <your-api-key> with yours';
    expect(scrub(placeholder).text).toBe(placeholder);
  });

  test("still idempotent", () => {
    const once = scrub(`token = '${V}' and again ${V}`);
    expect(scrub(once.text)).toEqual({ text: once.text, found: [], redactions: 0 });
  });
});

describe("texts that belong together", () => {
  test("scrubTogether: a value found in one text goes from the others, texts with nothing found stay", () => {
    const r = scrubTogether([`echo ${V}`, `PEPIPOST_TOKEN=${V}`, "nothing here"]);
    expect(r.map((x) => x.text)).toEqual(["echo [redacted]", "PEPIPOST_TOKEN=[redacted]", "nothing here"]);
    expect(r.map((x) => x.redactions)).toEqual([1, 1, 0]);
  });

  test("every field of a write: the title and a tag that repeat the body's secret bare", () => {
    const r = scrubFields(
      {
        title: `Pepipost key ${V}`,
        text: `pepipost token = '${V}'`,
        tags: ["mail", V],
        applies_to: [`mail/${V}/*`],
        id: V, // a field kept as is (an id) is not free text
      },
      false,
      ["id"],
    );
    expect(r.fields).toEqual({
      title: "Pepipost key [redacted]",
      text: "pepipost token = '[redacted]'",
      tags: ["mail", "[redacted]"],
      applies_to: ["mail/[redacted]/*"],
      id: V,
    });
    expect(r.note).toMatch(/^scrubbed 4 secrets \(/);
  });

  test("every turn of a transcript: the agent echoing a key the user pasted a turn earlier", () => {
    const conv = prepareConversation([
      { role: "user", text: `my pepipost token = '${V}', why does sending fail?` },
      { role: "assistant", text: `Let me try it: curl -H 'api_key: ${V}' https://api.pepipost.com/v5/mail/send` },
      { role: "assistant", text: `Retrying with ${V} now.` },
      { role: "user", text: "ok, thanks" },
    ]);
    const all = JSON.stringify(conv.turns);
    expect(all).not.toContain(V);
    expect(conv.turns[2]!.text).toBe("Retrying with [redacted] now.");
    expect(conv.turns[3]!.text).toBe("ok, thanks");
    expect(conv.redactions).toBe(3);
  });
});

describe("through the binary", () => {
  const sb = sandbox("coffer-echo-");
  afterAll(() => sb.cleanup());

  test("remember: the entry file holds no occurrence, in the body or the title", () => {
    const r = sb.run([
      "remember",
      `pepipost token = '${V}' | '${V}'`,
      "--title",
      `Pepipost ${V}`,
      "--scope",
      "global",
      "--json",
    ]);
    expect(r.code).toBe(0);
    const dir = join(sb.cofferHome, "memory", "global", "entries");
    const text = readdirSync(dir)
      .map((n) => readFileSync(join(dir, n), "utf8"))
      .join("\n");
    expect(text).not.toContain(V);
    expect(text).toContain("pepipost token = '[redacted]' | '[redacted]'");
    expect(sb.run(["scan", "--json"]).json().secrets).toBe(0);
  });
});
