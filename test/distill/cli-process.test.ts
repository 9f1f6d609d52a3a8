/**
 * How an agent CLI's run is read (issue 36 item 7): its output is parsed in one pass whatever it
 * prints. The real CLIs: test/agents/headless.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { headless as claude } from "../../src/hosts/claude/headless";
import { headless as gemini } from "../../src/hosts/gemini/headless";
import { jsonObjectIn } from "../../src/hosts/headless";

const claudeOk = (text: string) =>
  JSON.stringify({
    type: "result",
    subtype: "success",
    is_error: false,
    result: text,
    usage: { input_tokens: 1200, output_tokens: 80 },
  });

describe("the CLI's output is parsed in one pass (issue 36 item 7)", () => {
  // Lines that each open an object: trying the rest of the output from every one took 44 s for 80,000.
  const noise = Array.from({ length: 30_000 }, (_, i) => `{"progress": ${i}, "note": "working"`).join("\n");

  test("30,000 lines opening an object before the answer: parsed at once, the answer found", () => {
    const started = performance.now();
    const a = claude.parse({ stdout: `${noise}\n${claudeOk("[]")}\n`, stderr: "", code: 0 });
    const g = gemini.parse({ stdout: `${noise}\n${JSON.stringify({ response: "[]" })}`, stderr: noise, code: 0 });
    const none = claude.parse({ stdout: noise, stderr: noise, code: 1 });
    expect(performance.now() - started).toBeLessThan(1500);
    expect(a).toMatchObject({ ok: true, text: "[]" });
    expect(g).toMatchObject({ ok: true, text: "[]" });
    expect(none.ok).toBe(false);
  });

  test("the same document as before: alone, after notices, after a notice with a lone brace or quote", () => {
    const doc = { type: "result", result: 'a "}" and\n{ inside', n: [1, { b: "[" }] };
    const pretty = JSON.stringify(doc, null, 2);
    for (const before of [
      "",
      "  ",
      "Warning: something\n",
      "{ not json\n",
      '{"half": "open\n',
      "{]\n",
      '{"a": 1}\n',
      "}\n[\n",
      '  {"nested": {\n',
    ]) {
      expect(jsonObjectIn(`${before}${JSON.stringify(doc)}\n`)).toEqual(doc);
      expect(jsonObjectIn(`${before}${pretty}`)).toEqual(doc);
    }
    for (const text of [
      "",
      "prose only",
      "[1, 2]",
      `${JSON.stringify(doc)}\nmore after it`,
      `x ${JSON.stringify(doc)}`,
      `${JSON.stringify(doc)}}`,
      '{"a": 1, "b": }',
    ])
      expect(jsonObjectIn(text)).toBeUndefined();
  });
});
