import { HttpError } from "./errors";

/** Request bodies are capped; larger ones get 413 before anything is parsed. */
export const BODY_MAX = 1024 * 1024;

export function tooLarge(): HttpError {
  return new HttpError(413, "payload_too_large", `request body is larger than ${BODY_MAX} bytes`, { limit: BODY_MAX });
}

/** True when the declared Content-Length is over the cap (checked before reading anything). */
export function declaredTooLarge(req: Request): boolean {
  const len = req.headers.get("content-length");
  return len !== null && /^\d+$/.test(len) && Number(len) > BODY_MAX;
}

/** Read the body as text, stopping (413) as soon as it passes the cap, whatever Content-Length said. */
export async function readBodyText(req: Request): Promise<string> {
  if (declaredTooLarge(req)) throw tooLarge();
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > BODY_MAX) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A JSON body (an empty body reads as `{}`); malformed JSON is a 400 that says where. */
export async function readJsonBody(req: Request): Promise<unknown> {
  const text = await readBodyText(req);
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, "invalid_json", `request body is not valid JSON: ${(err as Error).message}`);
  }
}
