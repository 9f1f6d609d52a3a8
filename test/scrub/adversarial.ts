/**
 * Adversarial inputs for the scrubber: about 1 MB each, built to make a backtracking pattern
 * or a naive scan go quadratic. Shared by test/scrub/linear.test.ts and scripts/bench/clean.ts.
 */
import { PROVIDERS } from "../../src/scrub/providers";

const MB = 1 << 20;
const fill = (unit: string, size = MB) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
/** About 1 MB of lines, each its own. */
function distinct(line: (i: number) => string): string {
  const parts: string[] = [];
  for (let i = 0, n = 0; n < MB; i++) {
    parts.push(line(i));
    n += parts[i]!.length;
  }
  return parts.join("").slice(0, MB);
}

export function adversarialInputs(): { name: string; text: string }[] {
  const b64 = fill("AbCd0123EfGh4567IjKl89-_");
  const out: { name: string; text: string }[] = [
    { name: "token= + base64url blob", text: `token=${b64}` },
    { name: "token + base64url blob", text: `token ${b64}` },
    { name: "a-a-a-", text: fill("a-") },
    { name: "a.a.a.", text: fill("a.") },
    { name: "token repeated", text: fill("token") },
    { name: "password= repeated", text: fill("password=") },
    { name: "password: x repeated", text: fill("password: x\n") },
    { name: "key=key=", text: fill("key=") },
    { name: "quote never closed", text: `password = "${fill("a")}` },
    { name: "eyJ repeated", text: fill("eyJ") },
    { name: "eyJ + long segment", text: `eyJ${fill("a")}` },
    { name: "eyJx.eyJx. repeated", text: fill("eyJabcdefghij.") },
    { name: "ZXlK repeated", text: fill("ZXlK") },
    { name: "-----BEGIN repeated", text: fill("-----BEGIN ") },
    { name: "PEM header repeated", text: fill("-----BEGIN RSA PRIVATE KEY-----") },
    { name: ":// repeated", text: fill("a://") },
    { name: "url userinfo without @", text: `https://${fill("a:")}` },
    { name: "@tcp( repeated", text: fill("a:b@tcp(") },
    { name: "pgpass-like fields", text: fill("a:1:b:c:") },
    { name: "kind: Secret + data lines", text: `kind: Secret\n${fill("data:\n  a: b\n")}` },
    { name: "curl repeated", text: fill("curl ") },
    { name: "curl -u repeated", text: `curl ${fill(" -u a:")}` },
    { name: "mysql -p repeated", text: `mysql ${fill(" -p")}` },
    { name: "<private> repeated", text: fill("<private>") },
    { name: "Bearer repeated", text: fill("Bearer ") },
    { name: "Bearer + blob", text: `Bearer ${b64}` },
    { name: "the password is x repeated", text: fill("the password is ") },
    { name: "--token -- repeated", text: fill("--token ") },
    { name: "XML element open", text: `<password>${fill(" ")}` },
    { name: "setProperty( repeated", text: fill('("TOKEN", ') },
    { name: "long identifier", text: fill("secret_") },
    { name: "auth=( repeated", text: fill('auth=("a", ') },
    { name: "Private-Lines: repeated", text: fill("Private-Lines: 1\n") },
    { name: "name/value repeated", text: fill("name: TOKEN\n value: ") },
    { name: "password 'quoted' repeated", text: fill("password 'x' ") },
    { name: "url with # and no @", text: `https://${fill("a#")}` },
    { name: "whitespace", text: fill(" ") },
    { name: "newlines", text: fill("\n") },
    { name: "digits", text: fill("1234567890") },
    // issue 26's generic shapes
    { name: "glued key-key-", text: fill("key-") },
    { name: "glued SECRET- + long body", text: `acmeSECRET-${fill("a1B2")}` },
    { name: "inline list repeated", text: fill("key=[key, ") },
    { name: "yaml list repeated", text: fill("api_keys:\n  - a\n") },
    { name: "-p repeated on one line", text: fill(" -u a -p x") },
    { name: "cookie pairs", text: `Cookie: ${fill("a=b; ")}` },
    { name: "host names repeated", text: fill("a.com b=c ") },
    { name: "url path segments", text: `https://a.com${fill("/hooks")}` },
    { name: "urls with webhook paths", text: fill("https://a.io/webhook/x ") },
    { name: "word_ prefix + long body", text: ` ab_${fill("A1b2")}` },
    { name: "sk- markers", text: fill("sk-a ") },
    { name: "X is the api key repeated", text: fill("x is the api key ") },
    { name: "name:value glued repeated", text: fill("acme_token:") },
    { name: "the token is on the next line", text: fill("token\n") },
    { name: "setter call repeated", text: fill('setToken("') },
    // issue 36: every occurrence of a found value (echo.ts)
    { name: "many distinct secrets", text: distinct((i) => `password=Zq8${(i * 7919).toString(36)}Lw4Tn7Bc\n`) },
    { name: "many secrets with one prefix", text: distinct((i) => `password=Zq8vR2mK9x${i.toString(36)}\n`) },
    { name: "a secret echoed", text: `password=Zq8vR2mK9xLw4Tn7\n${fill("Zq8vR2mK9xLw4Tn7 ")}` },
    { name: "a secret almost echoed", text: `password=Zq8vR2mK9xLw4Tn7\n${fill("Zq8vR2mK9xLw4Tn ")}` },
    { name: "a secret echoed over line breaks", text: `password=Zq8vR2mK9xLw4Tn7\n${fill("Zq8vR2mK\n  9xLw4Tn7 ")}` },
    {
      name: "a secret's base64 in one blob",
      text: `password=Zq8vR2mK9xLw4Tn7\n${Buffer.from(fill("Zq8vR2mK9xLw4Tn7", (MB * 3) / 4)).toString("base64")}`,
    },
  ];
  for (const rule of PROVIDERS) {
    const kw = rule.keywords[0]!;
    out.push({ name: `${rule.family}: keyword repeated`, text: fill(kw) });
    out.push({ name: `${rule.family}: keyword + long body`, text: `${kw}${fill("a1B2")}` });
  }
  return out;
}
