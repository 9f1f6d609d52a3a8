/**
 * `coffer serve --stdio` survives hostile lines (issue 12): one JSON-RPC line over 10 MiB used to
 * end the server ("ReadBuffer exceeded maximum size"). Now it is answered with an error for its
 * id and the next request is served; so is a line that is not JSON.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { BIN, type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
beforeAll(() => {
  sb = sandbox("coffer-rel-mcp-");
});
afterAll(() => sb.cleanup());

test("an 11 MiB line gets an error for its id; garbage gets a parse error; the server keeps serving", async () => {
  const p = Bun.spawn([BIN, "serve", "--stdio"], {
    cwd: sb.home,
    env: sb.env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const replies = new Map<unknown, any>();
  const all: any[] = [];
  let rest = "";
  const reader = (async () => {
    const dec = new TextDecoder();
    for await (const chunk of p.stdout) {
      rest += dec.decode(chunk, { stream: true });
      let nl = rest.indexOf("\n");
      while (nl >= 0) {
        const msg = JSON.parse(rest.slice(0, nl));
        all.push(msg);
        if ("id" in msg) replies.set(msg.id, msg);
        rest = rest.slice(nl + 1);
        nl = rest.indexOf("\n");
      }
    }
  })();
  const send = (o: unknown) => {
    p.stdin.write(`${JSON.stringify(o)}\n`);
    p.stdin.flush();
  };
  const waitFor = async (id: unknown) => {
    for (let i = 0; i < 600 && !replies.has(id); i++) await Bun.sleep(50);
    return replies.get(id);
  };
  send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  expect((await waitFor(1))?.result?.serverInfo?.name).toBe("coffer");
  send({ jsonrpc: "2.0", method: "notifications/initialized" });

  // 11 MiB in one line, written in pieces as a pipe delivers it.
  const huge = JSON.stringify({
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: { name: "coffer__remember", arguments: { text: "x".repeat(11 * 1024 * 1024) } },
  });
  for (let i = 0; i < huge.length; i += 1 << 20) {
    p.stdin.write(huge.slice(i, i + (1 << 20)));
    await p.stdin.flush();
  }
  p.stdin.write("\n");
  await p.stdin.flush();
  const big = await waitFor(7);
  expect(big?.error?.code).toBe(-32600);
  expect(big?.error?.message).toContain("larger than 10 MiB");

  p.stdin.write("this is not json\n");
  send({ jsonrpc: "2.0", id: 8, method: "tools/list" });
  const list = await waitFor(8);
  expect(list?.result?.tools?.length).toBe(7);
  expect(all.some((m) => m.error?.code === -32700 && m.id === null)).toBe(true);

  send({
    jsonrpc: "2.0",
    id: 9,
    method: "tools/call",
    params: { name: "coffer__remember", arguments: { text: "the server still writes after a hostile line" } },
  });
  const saved = await waitFor(9);
  expect(saved?.result?.isError).toBeFalsy();
  expect(p.exitCode).toBeNull();

  p.stdin.end();
  expect(await p.exited).toBe(0);
  await reader;
}, 60_000);
