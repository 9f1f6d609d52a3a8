/**
 * One test per syntax issue 13 lists, with the exact output: the name and the punctuation stay,
 * the whole value (and nothing else) becomes [redacted]; `:=` keeps no part of the value.
 */
import { describe, expect, test } from "bun:test";
import { describeFound, scrub } from "../../src/scrub/index";

const CASES: [string, string, string][] = [
  ["go :=", 'apiToken := "Zq8vR2mK9xLw4Tn7Bc3Hd6Fg"', 'apiToken := "[redacted]"'],
  ["go := unquoted", "token := Zq8vR2mK9xLw4Tn7Bc3Hd6Fg", "token := [redacted]"],
  ["go var string =", 'var apiKey string = "k9F2mQ7xV4bN8cL1zR6t"', 'var apiKey string = "[redacted]"'],
  ["make ?=", "DEPLOY_TOKEN ?= 3f9a1c7e5b2d8f0a6c4e", "DEPLOY_TOKEN ?= [redacted]"],
  ["make ::=", "API_SECRET ::= 7Hq2Wm9Xk4Tz1Lp6Rn3V", "API_SECRET ::= [redacted]"],
  ["make :::=", 'SIGNING_KEY :::= "Yb5Nc8Md2Qe7Rf1Sg4Th"', 'SIGNING_KEY :::= "[redacted]"'],
  ["php .=", '$apiToken .= "Jd8Ks2Lq5Mw9Nx3Pv7Rz";', '$apiToken .= "[redacted]";'],
  ["ruby =>", 'config = { :api_key => "Vq2Wr5Xs8Yt1Zu4Av7Bw" }', 'config = { :api_key => "[redacted]" }'],
  ["logstash =>", '  "password" => "c0rrect-H0rse-Battery"', '  "password" => "[redacted]"'],
  [
    "setProperty",
    'System.setProperty("AWS_SECRET_ACCESS_KEY", "q7Vd2Lx/9KpTz3Wm8RbN/4hYc6JfG1sE0uAaQ5oI")',
    'System.setProperty("AWS_SECRET_ACCESS_KEY", "[redacted]")',
  ],
  ["xml attribute", '<add key="Password" value="Kq8Wm3Xn7Vb2Lp"/>', '<add key="Password" value="[redacted]"/>'],
  [
    "xml attribute direct",
    '<connection user="app" password="Xy7!pQ2z#Lk9" host="db"/>',
    '<connection user="app" password="[redacted]" host="db"/>',
  ],
  ["xml element", "<password>Wq5Er6Ty7Ui8</password>", "<password>[redacted]</password>"],
  [
    "xml element multiline",
    "<clientSecret>\n    Lo9Ki8Ju7Hy6Gt5Fr4\n</clientSecret>",
    "<clientSecret>\n    [redacted]\n</clientSecret>",
  ],
  [
    "cli --token",
    "huggingface-cli login --token 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",
    "huggingface-cli login --token [redacted]",
  ],
  ["cli --token=", "vault login --token=s.Xk9Lm2Np5Qr8St1Uv4Wx", "vault login --token=[redacted]"],
  [
    "cli -ClientSecret",
    "Connect-AzAccount -ServicePrincipal -ClientSecret 'Bq4~Tz8.Mx2_Kp6-Lr0Ws' -TenantId abc",
    "Connect-AzAccount -ServicePrincipal -ClientSecret '[redacted]' -TenantId abc",
  ],
  ["cli mysql -p", "mysql -u root -pS3cr3tR00t! -h 127.0.0.1 shop", "mysql -u root -p[redacted] -h 127.0.0.1 shop"],
  ["cli sshpass -p", "sshpass -p 'Ssh!Pass9x' ssh deploy@10.0.0.5", "sshpass -p '[redacted]' ssh deploy@10.0.0.5"],
  [
    "cli curl -u",
    "curl -u admin:Adm1nP4ss! https://jenkins.example.com/api/json",
    "curl -u [redacted] https://jenkins.example.com/api/json",
  ],
  [
    "prose stripe",
    "my key is sk_live_51HxyzQ7Rk2mVx9Lp4Tz8Wn3J and it keeps failing",
    "my key is [redacted] and it keeps failing",
  ],
  [
    "prose npm",
    "the publish token npm_Qm3Zr8Tx2Lp9Vb4Nc7Wd1Hs6Jf0Kg5Ya8Xe2Ru expired",
    "the publish token [redacted] expired",
  ],
  ["prose aws secret", "aws secret is Hj8Kl2Mn4Bv6Cx8Zq1Wr3Et5Yu7Io9Pa2Sd4Fg6", "aws secret is [redacted]"],
  [
    "slack webhook",
    "post to https://hooks.slack.com/services/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J when done",
    "post to https://hooks.slack.com/services/[redacted] when done",
  ],
  [
    "jwt empty signature",
    "unsigned: eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiIsInJvbGUiOiJyb290In0. accepted?!",
    "unsigned: [redacted]. accepted?!",
  ],
  [
    "azure AccountKey",
    "DefaultEndpointsProtocol=https;AccountName=shop;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdo==;EndpointSuffix=core.windows.net",
    "DefaultEndpointsProtocol=https;AccountName=shop;AccountKey=[redacted];EndpointSuffix=core.windows.net",
  ],
  [
    "authorization token",
    "Authorization: Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b",
    "Authorization: Token [redacted]",
  ],
  ["bearer without digit", "Authorization: Bearer AbCdEfGhIjKlMnOpQrStUvWxYz", "Authorization: Bearer [redacted]"],
  [
    "redis no user",
    "REDIS_URL=redis://:Rd5Pw8Qx2Zm@cache.internal:6379/0",
    "REDIS_URL=redis://:[redacted]@cache.internal:6379/0",
  ],
  [
    "dsn tcp",
    'dsn := "app:Dsn5ecret!@tcp(127.0.0.1:3306)/shop?parseTime=true"',
    'dsn := "app:[redacted]@tcp(127.0.0.1:3306)/shop?parseTime=true"',
  ],
  [
    "docker auth",
    '{"auths":{"ghcr.io":{"auth":"dXNlcjpnaHBfQWJDZEVmR2hJaktsTW5PcFFyU3RVdld4WXo="}}}',
    '{"auths":{"ghcr.io":{"auth":"[redacted]"}}}',
  ],
  ["pgpass", "db.example.com:5432:shop:app:Pgp4ssW0rd9", "db.example.com:5432:shop:app:[redacted]"],
  [
    "k8s secret",
    "kind: Secret\ndata:\n  password: UzNjcjN0UGFzc3dvcmQxMjM=",
    "kind: Secret\ndata:\n  password: [redacted]",
  ],
  [
    "private span",
    "deploy notes <private>the vault unseal phrase is orange-lamp-42</private> done",
    "deploy notes  done",
  ],
  [
    "pem",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7b3Qw8xZQw8xZ7b3MIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\nnext",
    "[redacted]\nnext",
  ],
];

describe("every syntax a secret is written in", () => {
  for (const [name, input, expected] of CASES)
    test(name, () => {
      expect(scrub(input).text).toBe(expected);
    });

  test("`:=` keeps no part of the value (not even a trailing '=' or a quote's content)", () => {
    for (const input of [
      'TOKEN := "Zq8vR2mK9xLw4Tn7Bc3Hd6Fg"',
      "TOKEN:=Zq8vR2mK9xLw4Tn7Bc3Hd6Fg",
      "TOKEN ::= Zq8vR2mK9x",
    ]) {
      const out = scrub(input).text;
      expect(out).toContain("[redacted]");
      expect(out).not.toMatch(/Zq8v|6Fg|R2mK/);
      expect(out.startsWith("TOKEN")).toBe(true);
    }
  });

  test("an empty value does not swallow the next line", () => {
    const text = "PASSWORD=\nDEBUG=true\nAPI_TOKEN=\n";
    expect(scrub(text).text).toBe(text);
  });
});

describe("placeholders and references are not secrets", () => {
  for (const line of [
    "password: string",
    "def verify(password: str)",
    "const token = getAccessToken(session)",
    "{ password, salt }",
    'SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]',
    "NPM_TOKEN=${{ secrets.NPM_TOKEN }}",
    "PARTITION_KEY=",
    "PWD=",
    "OLDPWD=",
    "password: {{ .Values.Password }}",
    "io.jsonwebtoken:jjwt-jackson-0.11.2",
    "API_KEY=<YOUR_API_KEY>",
    "STRIPE_SECRET_KEY=sk_test_xxxxxxxxxxxxxxxxxxxxxxxx",
    "token = process.env.GITHUB_TOKEN",
    "export AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY",
    'curl -u "$USER:$PASS" https://example.com',
    "postgres://user:password@localhost:5432/db",
    "Use a Bearer token in the Authorization header.",
    "password: [redacted]",
  ])
    test(line, () => {
      const r = scrub(line);
      expect(r.text).toBe(line);
      expect(r.redactions).toBe(0);
    });
});

describe("what the caller is told", () => {
  test("found lists each family with its count", () => {
    const r = scrub("STRIPE=sk_live_51HxyzQ7Rk2mVx9Lp4Tz8Wn3J and password=Hunter22x and pwd=Zz9!zz9x");
    expect(r.redactions).toBe(3);
    expect(r.found).toEqual([
      { family: "stripe", count: 1 },
      { family: "password", count: 2 },
    ]);
    expect(describeFound(r.found)).toBe("3 secrets (stripe, password)");
    expect(describeFound([{ family: "stripe", count: 1 }])).toBe("1 secret (stripe)");
  });

  test("a provider token under a secret name counts once, as the provider", () => {
    const r = scrub('GITHUB_TOKEN="ghp_Zq8vR2mK9xLw4Tn7Bc3Hd6Fg1Js5Kp0Qa2W"');
    expect(r.text).toBe('GITHUB_TOKEN="[redacted]"');
    expect(r.found).toEqual([{ family: "github", count: 1 }]);
  });

  test("<private> spans are removed, also when never closed", () => {
    expect(scrub("a <PRIVATE>x</Private> b").text).toBe("a  b");
    expect(scrub("keep <private>drop all of this").text).toBe("keep ");
    expect(scrub("a <private>one</private> b <private>two</private> c").found).toEqual([
      { family: "private", count: 2 },
    ]);
  });

  test("clean text comes back as the same string, with nothing found", () => {
    const text = "The checkout total is computed in integer cents.";
    const r = scrub(text);
    expect(r).toEqual({ text, found: [], redactions: 0 });
  });
});
