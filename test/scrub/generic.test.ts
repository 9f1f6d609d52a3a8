/**
 * Issue 26: secrets of providers nobody listed. One test per shape the issue names, with the exact
 * output (the made-up provider names `acme`, `zentrix`, `quillpay` match no provider rule), the
 * placeholders and ordinary values that must stay, and the generic-shape corpus as a whole.
 */
import { describe, expect, test } from "bun:test";
import { scrub } from "../../src/scrub/index";
import {
  contexts,
  heldoutContexts,
  heldoutNearMisses,
  heldoutSecrets,
  inContext,
  leaked,
  shapeCases,
  shapeNegatives,
} from "./corpus";

const CASES: [string, string, string][] = [
  // connection strings with ';' and '&'
  [
    "azure connection string",
    "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3A=;EndpointSuffix=core.windows.net",
    "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=[redacted];EndpointSuffix=core.windows.net",
  ],
  [
    "service bus SharedAccessKey",
    "Endpoint=sb://zentrix.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=q8Vd2Lx9KpTz3Wm8RbN4hYc6JfG1sE0uAaQ5oIw=",
    "Endpoint=sb://zentrix.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=[redacted]",
  ],
  [
    "jdbc ;",
    "jdbc:sqlserver://db.acme.net:1433;databaseName=shop;user=sa;password=Xk9mP2vLq7Rt;encrypt=true",
    "jdbc:sqlserver://db.acme.net:1433;databaseName=shop;user=sa;password=[redacted];encrypt=true",
  ],
  [
    "jdbc &",
    "jdbc:postgresql://db.acme.io:5432/app?user=app&password=Hq7sLm2Kx9Pw&ssl=true",
    "jdbc:postgresql://db.acme.io:5432/app?user=app&password=[redacted]&ssl=true",
  ],
  [
    "odbc",
    "Driver={ODBC Driver 18};Server=tcp:db.acme.net,1433;Uid=admin;Pwd=Hq7sLm2Kx9Pw;",
    "Driver={ODBC Driver 18};Server=tcp:db.acme.net,1433;Uid=admin;Pwd=[redacted];",
  ],
  // URL query and userinfo
  [
    "url query",
    "GET https://api.zentrix.com/v2/data?apikey=4f9d2c8b7a6e5f4d3c2b1a09e8f7&format=json",
    "GET https://api.zentrix.com/v2/data?apikey=[redacted]&format=json",
  ],
  [
    "SAS signature",
    "https://acme.blob.core.windows.net/c/x.txt?sv=2022-11-02&sp=r&sig=a0nQOe7WgI11xf%2Fhkr4T2HzWTpf7URuKYN2LNBq11V%3D",
    "https://acme.blob.core.windows.net/c/x.txt?sv=2022-11-02&sp=r&sig=[redacted]",
  ],
  ["url userinfo", "amqp://app:Rb7xQ2mLp9Zt@mq.acme.net:5672/", "amqp://app:[redacted]@mq.acme.net:5672/"],
  // CLI flags
  ["--token X", "zentrix login --token 8f7e6d5c4b3a29181f2e3d4c", "zentrix login --token [redacted]"],
  [
    "--apiKey X (Octopus)",
    "octo list-projects --server https://octopus.acme.com --apiKey API-ABCDEFGHIJKLMNOPQRSTUVWXY1",
    "octo list-projects --server https://octopus.acme.com --apiKey [redacted]",
  ],
  [
    "vault -token X",
    "vault write -address=https://vault.acme.com -token s.Xk9Lm2Np5Qr8St1Uv4Wx auth/x",
    "vault write -address=https://vault.acme.com -token [redacted] auth/x",
  ],
  ["-u USER -p X", "quillpay connect -u deploy -p tfov-7967-Vlyt", "quillpay connect -u deploy -p [redacted]"],
  ["-p X alone", "acmectl sync -p Hx7mPq2sW9", "acmectl sync -p [redacted]"],
  // HTTP auth headers
  [
    "Authorization: Bearer in curl",
    'curl -H "Authorization: Bearer NjQ4MTIzNDU2Nzg5OkZvb0JhcjEyMzQ1Njc4OUFCQ0RFRg" https://jira.acme.com/rest/api/2/myself',
    'curl -H "Authorization: Bearer [redacted]" https://jira.acme.com/rest/api/2/myself',
  ],
  [
    "Authorization with any scheme",
    'curl -H "Authorization: Acme-Key 36DWTEBNG12Q6MBO6LYLNCR38FENVRXX" https://acme.com/x',
    'curl -H "Authorization: Acme-Key [redacted]" https://acme.com/x',
  ],
  [
    "custom header in curl",
    "curl -H 'X-Zentrix: 2A4uuRhcYCRxbbaw0ASMcy7S1pZbkwM9' https://api.zentrix.com/v1/me",
    "curl -H 'X-Zentrix: [redacted]' https://api.zentrix.com/v1/me",
  ],
  [
    "cookie",
    "Cookie: acme_session=KraG8TFaLWz36oDd08ttWFdx25YVhkcS; theme=dark",
    "Cookie: acme_session=[redacted]; theme=dark",
  ],
  // environment exports
  ["export", 'export ZENTRIX_AUTH="c2cf1c85-4922-4d63-9b2a-b558fa167c34"', 'export ZENTRIX_AUTH="[redacted]"'],
  ["powershell $env:", '$env:ACME_API_KEY = "b93b72612d8f9128668703dd6aa937cc"', '$env:ACME_API_KEY = "[redacted]"'],
  ["setx", "setx ACME_API_KEY e00cd53021793c78ecd972ae518f331eea1b0d0a", "setx ACME_API_KEY [redacted]"],
  ["Dockerfile ENV", "ENV QUILLPAY_TOKEN 6cdb1103a185a4d4d8cff8f05cb5235b", "ENV QUILLPAY_TOKEN [redacted]"],
  ["#define", '#define IO_KEY "Zq8vR2mK9xLw4Tn7Bc3Hd6Fg"', '#define IO_KEY "[redacted]"'],
  // JSON / YAML / TOML / INI / XML
  [
    "json pass beside user",
    '{"auth": {"user": "deploy", "pass": "f5fW5G8gaf"}}',
    '{"auth": {"user": "deploy", "pass": "[redacted]"}}',
  ],
  ["yaml list", "api_keys:\n  - 526eaaf9e82510acc6146d8d5ca80ba5\n  - dev", "api_keys:\n  - [redacted]\n  - dev"],
  ["inline list", 'api_keys = ["bf6cab7d4d7e7433563c7c03a16b60d1", "x"]', 'api_keys = ["[redacted]", "x"]'],
  ["yaml block", "private_key: |\n  6cc05605a665506b7acf4ddd8d8f46b3", "private_key: |\n  [redacted]"],
  ["toml", '[zentrix]\ntoken = "9ed8fc3a9231eb581a8737bad14dd78c"', '[zentrix]\ntoken = "[redacted]"'],
  [
    "xml settings",
    '<setting name="AcmeSecret" serializeAs="String"><value>J3MCa6EaSBwmGEYP-3KUydsEVTXjb2H0U</value></setting>',
    '<setting name="AcmeSecret" serializeAs="String"><value>[redacted]</value></setting>',
  ],
  [
    "postman key/value",
    '{"key": "X-Acme-Api-Key", "value": "px6MbgyW.j6WFim2G3eX5epraYC4VNClv", "type": "text"}',
    '{"key": "X-Acme-Api-Key", "value": "[redacted]", "type": "text"}',
  ],
  ["sql", "CREATE USER 'app'@'%' IDENTIFIED BY 'Qzzib648hxt';", "CREATE USER 'app'@'%' IDENTIFIED BY '[redacted]';"],
  ["setter call", 'client.setApiKey("ed8ada3e2df4607b114e1ab96f381ec6");', 'client.setApiKey("[redacted]");'],
  // provider-style prefixes, whatever the body's entropy
  [
    "<word>_live_ with a plain body",
    "2024-05-01 12:00:01 INFO client init token=acme_live_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "2024-05-01 12:00:01 INFO client init token=[redacted]",
  ],
  ["<word>_test_ in prose", "try zentrix_test_q9mo2EjG0yH5iEYCk3LYf2GL instead", "try [redacted] instead"],
  ["<word>pat_", '"quillpaypat_YY6J5LXUDA17DVMBpOm0hP0pSrjT"', '"[redacted]"'],
  ["pk_", "the key pk_live_8ozLGcOs1Ke0FTolamOFihgj works", "the key [redacted] works"],
  ["sk-", "use the key sk-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "use the key [redacted]"],
  [
    "a provider key with digits in a row",
    "Rotate sk-ant-api03-fakeAbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMn today",
    "Rotate [redacted] today",
  ],
  // high-entropy tokens near a credential word or a provider's host name
  [
    "api key as words",
    "my acme api key is 5f4dcc3b5aa765d61d8327deb882cf99 please",
    "my acme api key is [redacted] please",
  ],
  [
    "token further on",
    "zentrix access token for the prod board 2510b1df75c72092fecfff295724a353ca4b2403",
    "zentrix access token for the prod board [redacted]",
  ],
  ["value on the next line", "Acme API key:\n8b746480-5f9c-461f-95b6-4c942226a144", "Acme API key:\n[redacted]"],
  [
    "value before the name",
    "use zwDK9iUNyeGDJva8yP3HckKkqNYo as the access token",
    "use [redacted] as the access token",
  ],
  ["table", "| quillpay | api key | c9QM1uvvpHQo8aaJoiCpaJ |", "| quillpay | api key | [redacted] |"],
  [
    "secret beside the provider's host",
    "server=prod-xyz.online.zentrix.com\nsecret=YMqNbX2kPq9LzT0v8RaWcE==:KTamQ7xL2pN9vB4sD6fH",
    "server=prod-xyz.online.zentrix.com\nsecret=[redacted]",
  ],
  [
    "generic name beside the provider's host",
    "[acme]\nserver = prod-2.online.acme.com\nclient = FMZ3lGgpL59Z3SyuRh21Y1GWkG8q9YZJ",
    "[acme]\nserver = prod-2.online.acme.com\nclient = [redacted]",
  ],
  // names glued to their values, and the words ACCESS / PRIVATE
  ["value glued with '-'", "codakey-123e4567-e89b-42d3-a456-426614174000", "codakey-[redacted]"],
  ["value glued after SECRET", "zentrixSECRET-3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c", "zentrixSECRET-[redacted]"],
  ["glued name words", "acme-PRIVATE-key-LaKSDJF98ALSkfj9823JDfj3JKd8Jhfa==", "acme-PRIVATE-key-[redacted]"],
  ["ACCESS beside the value", "zentrixACCESS 9afd45ea93b219fd0f2b8e6d99c7d3c0", "zentrixACCESS [redacted]"],
  ["PRIVATE KEY=", "quillpay PRIVATE KEY=Asdf1234asdf1234asdf1234asdf1234", "quillpay PRIVATE KEY=[redacted]"],
  ["name:value with no space", "acme_token:12345ABCDEFGHIJKLMNOPQRSTUVWXYZ789", "acme_token:[redacted]"],
  ["SECRET and a made-up value", "acme SECRET 1234567890abcdef1234567890abcdef", "acme SECRET [redacted]"],
  // tokens in a URL's path
  [
    "webhook path",
    "https://outlook.office.com/webhook/9da5da9c-4218-4c22-aed6-b5c8baebfff5@2f2b54b7-0141-4ba7-8fcd-ab7d17a60547/IncomingWebhook/1bf66ccbb8e745e791fa6e6de0cf465b/4361420b-8fde-48eb-b62a-0e34fec63f5c",
    "https://outlook.office.com/webhook/[redacted]/IncomingWebhook/[redacted]/[redacted]",
  ],
  [
    "token after /api/v1/",
    "curl https://zentrix.cloud/api/v1/354u1g321kcqc1oad3w7/telemetry",
    "curl https://zentrix.cloud/api/v1/[redacted]/telemetry",
  ],
  ["telegram bot token", "tgram://12345678:ulTK_HG7-Sb3_zcz5CV2VjFyoNH0cZoGM1r", "tgram://[redacted]"],
  [
    "a Cloudflare-style key is not a version",
    "X-Auth-User-Service-Key = v1.0-e26de050e02ddeaeef6de8d5ee267df5e78f68666ddd0ee76f22d26a0d20756f",
    "X-Auth-User-Service-Key = [redacted]",
  ],
];

describe("secrets of providers nobody listed, in every syntax", () => {
  for (const [name, input, expected] of CASES)
    test(name, () => {
      expect(scrub(input).text).toBe(expected);
    });
});

describe("placeholders and ordinary values stay", () => {
  for (const line of [
    "API_TOKEN=<your-token>",
    "export ACME_TOKEN=${TOKEN}",
    "token: xxxxxxxxxxxxxxxxxxxxxxxx",
    "password=changeme",
    "acme_live_xxxxxxxxxxxxxxxxxxxxxxxx",
    "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
    "curl -H 'Authorization: Bearer <token>' https://api.acme.com/v1/me",
    'curl -H "X-Request-Id: 3f94b812-2133-44a7-8973-673d453b20c8" https://api.acme.com/health',
    "api_key: ${{ secrets.ACME_API_KEY }}",
    "git show 3f2a9c1d8e7b6a5f4c3d2e1f0a9b8c7d6e5f4a3b -- src/auth/token.ts",
    "fixed in commit 3f2a9c1d8e7b6a5f4c3d2e1f0a9b8c7d6e5f4a3b, the token check is back",
    "expected fixture id 123e4567-e89b-42d3-a456-426614174000 in tokens.test.ts",
    '"version": "4.17.21", "tokenizer": "cl100k_base"',
    "ACME_API_KEY_PATH=/etc/acme/api.key",
    "--token-file ~/.config/acme/token.json",
    "mkdir -p build/acme && tsc -p tsconfig.build.json",
    "docker run -p 8080:80 -e API_KEY=$API_KEY acme/api:1.2",
    "ssh -p 2222 deploy@acme.io",
    "kubectl logs -p web-7d9f8c6b5-x2x4z --tail 50",
    "cargo test -p acme-core-2 --features tls",
    "def auth_test_login_flow_with_expired_token():",
    "my_test_fixture_data_2024_v2 = load()",
    "the charge ch_3MmlLrLkdIwHu7ix0snN0B15 failed with card_declined",
    "tool_use_id: toolu_01A09q90qw90lq917835lqX9",
    "gpg --keyserver hkps://keys.openpgp.org --recv-keys 5BE8A3F6C8A5C01D106C0AD820B1A390B168D356",
    "const tokenCount = countTokens(prompt);",
    'const token = getToken("acme-prod");',
    "Idempotency-Key: 3f94b812-2133-44a7-8973-673d453b20c8",
    '"integrity": "sha512-Zz0YMqN3kPq9LzT0v8RaWcEKTamQ7xL2pN9vB4sD6fH1Js5Kp0Qa2WzZ0YMqN3kPq9LzT0v8RaWcEKTamQ7xL2pN9vA=="',
    "[acme]\nserver = prod-2.online.acme.com\nregion = eu-west-1\ntimeout = 30",
    "secretKeyRef:\n  name: acme-secrets\n  key: api-key",
    "sk-learn-pipeline-utils is a package name",
    "test_live_reload_enabled_flag = true",
    "Cache restored from key: node-modules-f135bd5178d25fc55cee6188ae25b8620267cd9ad303370f5d60d47a9a363756",
    "The token endpoint returned 401 for client 677ec6f3-4a04-442b-a7ec-990db3cb6342; the secret was rotated.",
    "go: downloading golang.org/x/crypto v0.55.0 h1:G+RVmuWnKuJjO9z3Q1GrMLTtIuaNtZsOlOP3sb0O/1P=",
    'private_subnets = ["subnet-0a1b2c3d4e5f67890", "subnet-0f9e8d7c6b5a43210"]',
    "GET https://api.acme.com/v1/keys/3f94b812-2133-44a7-8973-673d453b20c8/rotate",
    "access_log /var/log/nginx/access.log main;",
    "token-service-7d9f8c6b5-x2x4z   1/1   Running   0   3d",
    "private-registry.example.com:5000/team/api:1.4.2",
    "The secret manager path is projects/123456789012/secrets/db-password/versions/latest.",
    "The private key fingerprint is SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8 (public information).",
  ])
    test(line, () => {
      const r = scrub(line);
      expect(r.text).toBe(line);
      expect(r.redactions).toBe(0);
    });
});

describe("the generic-shape corpus (test/fixtures/secrets/shapes*.jsonl)", () => {
  test(">= 99% of its secrets are removed in every chat context, none of its negatives is altered", () => {
    let total = 0;
    let removed = 0;
    for (const r of shapeCases())
      for (const c of contexts()) {
        total++;
        if (!r.secrets.some((s) => leaked(scrub(inContext(c, r.sample)).text, s))) removed++;
      }
    expect(removed / total).toBeGreaterThanOrEqual(0.99);
    const altered = shapeNegatives().filter((r) => scrub(r.sample).text !== r.sample);
    expect(altered.map((r) => r.sample)).toEqual([]);
  });
});

describe("the scrubber keeps no state between calls", () => {
  test("a text scrubs the same after any other text", () => {
    const text = 'auth: (see below)\npassword = "Xk9mP2vLq7Rt"';
    const alone = scrub(text).text;
    // a long value read by the last call must not make this one skip ahead
    scrub(`password = "${"a".repeat(3000)}`);
    expect(scrub(text).text).toBe(alone);
    expect(alone).toBe('auth: (see below)\npassword = "[redacted]"');
  });
});

describe("the held-out corpus (test/fixtures/secrets/heldout): a floor, not a target", () => {
  // Measured at the end of issue 26 (test half never looked at): 78.2% removed overall, 2.2% of near
  // misses altered. These floors catch a regression; raising the figure means more general rules,
  // never rules written for its samples.
  test("at least 76% of its secrets removed, at most 4% of its near misses altered", () => {
    const ctx = heldoutContexts();
    let removed = 0;
    let total = 0;
    for (const r of heldoutSecrets())
      for (const c of ctx) {
        total++;
        if (!leaked(scrub(inContext(c, r.sample)).text, r.secret)) removed++;
      }
    let altered = 0;
    let near = 0;
    for (const r of heldoutNearMisses())
      for (const c of ctx) {
        near++;
        const input = inContext(c, r.sample);
        if (scrub(input).text !== input) altered++;
      }
    expect(removed / total).toBeGreaterThanOrEqual(0.76);
    expect(altered / near).toBeLessThanOrEqual(0.04);
  }, 120_000);
});
