/**
 * Adversarial inputs for the scrubber: about 1 MB each, built to make a backtracking pattern
 * or a naive scan go quadratic. Shared by test/scrub/linear.test.ts and scripts/bench/clean.ts.
 */
import { PROVIDERS } from "../../src/scrub/providers";

const MB = 1 << 20;
const fill = (unit: string, size = MB) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

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
  ];
  for (const rule of PROVIDERS) {
    const kw = rule.keywords[0]!;
    out.push({ name: `${rule.family}: keyword repeated`, text: fill(kw) });
    out.push({ name: `${rule.family}: keyword + long body`, text: `${kw}${fill("a1B2")}` });
  }
  return out;
}
