/**
 * Generate the scrubber's generic-shape corpus (test/fixtures/secrets/shapes*.jsonl): secrets of
 * made-up providers in every common syntax, and the same shapes holding placeholders, references
 * and ordinary values that must stay. The providers are invented on purpose: the scrubber must
 * find these by their shape and the name around them, not by a rule for the provider.
 *
 *   bun scripts/corpus/shapes.ts [--out test/fixtures/secrets] [--seed 26]
 *
 * Output (JSONL, seeded, so a re-run gives the same files):
 *   shapes.jsonl           {"shape","sample","secrets"}   every value in `secrets` must disappear
 *   shapes-negative.jsonl  {"shape","sample"}             must come out byte-identical
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const args = process.argv.slice(2);
const flag = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : def;
};
const outDir = resolve(flag("out", "test/fixtures/secrets"));
let seed = Number(flag("seed", "26")) >>> 0 || 26;
const rand = () => {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 0x100000000;
};
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

const LOWER = "abcdefghijklmnopqrstuvwxyz";
const UPPER = LOWER.toUpperCase();
const DIGIT = "0123456789";
const HEX = "0123456789abcdef";
const ALNUM = LOWER + UPPER + DIGIT;
const B64 = `${ALNUM}+/`;
const draw = (alphabet: string, n: number) => Array.from({ length: n }, () => pick([...alphabet])).join("");
/** A random string of the alphabet with at least one digit and, for mixed alphabets, both cases. */
const token = (alphabet: string, n: number) => {
  for (;;) {
    const t = draw(alphabet, n);
    if (!/\d/.test(t)) continue;
    if (alphabet.includes("A") && alphabet.includes("a") && !(/[a-z]/.test(t) && /[A-Z]/.test(t))) continue;
    return t;
  }
};
const uuid = () =>
  `${draw(HEX, 8)}-${draw(HEX, 4)}-4${draw(HEX, 3)}-${pick(["8", "9", "a", "b"])}${draw(HEX, 3)}-${draw(HEX, 12)}`;

/** Made-up provider names: syllables, so no real provider's rule can match them by name. */
const SYL = ["zen", "tri", "quo", "vel", "mar", "dax", "pli", "sor", "nek", "tuv", "bra", "lum", "fio", "gar", "hix"];
const provider = () => `${pick(SYL)}${pick(SYL)}${pick(["", "io", "ly", "hub", "pay", "ops"])}`;
const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);
const up = (s: string) => s.toUpperCase();

/** Secret values of the shapes providers use. */
const SECRETS: (() => string)[] = [
  () => token(HEX, 32),
  () => token(HEX, 40),
  () => token(HEX, 64),
  () => token(ALNUM, int(20, 48)),
  () => `${token(B64, 42)}==`,
  () => `${token(B64, 43)}=`,
  () => uuid(),
  () => `${token(ALNUM, 8)}.${token(ALNUM, 24)}`,
  () => token(`${UPPER}${DIGIT}`, int(24, 40)),
  () => `${token(ALNUM, 16)}-${token(ALNUM, 16)}`,
];
const secret = () => pick(SECRETS)();
const password = () =>
  pick([
    () => `${cap(draw(LOWER, 5))}${draw(DIGIT, 3)}${pick(["!", "#", "$", "%", "@", ""])}${draw(LOWER, 3)}`,
    () => token(ALNUM, int(10, 18)),
    () => `${draw(LOWER, 4)}-${draw(DIGIT, 4)}-${cap(draw(LOWER, 4))}`,
  ])();
/** Provider-style prefixed tokens: the body may be plain (`_live_aaaa...`), the prefix says enough. */
const prefixed = (p: string) =>
  pick([
    () => `${p}_live_${token(ALNUM, 32)}`,
    () => `${p}_test_${token(ALNUM, 28)}`,
    () => `${p}pat_${token(ALNUM, 36)}`,
    () => `${p}_live_${pick(LOWER.split("").filter((c) => c !== "x")).repeat(32)}`,
    () => `sk-${token(ALNUM, 40)}`,
    () => `pk_${pick(["live", "test"])}_${token(ALNUM, 24)}`,
    () => `${p.slice(0, 3)}_sk_${token(ALNUM, 30)}`,
    () => `${p}-pat-${token(ALNUM, 30)}`,
  ])();

type Ctx = { p: string; P: string; s: string; s2: string; pw: string; user: string };
/** Shape -> template; `{s}` `{s2}` `{pw}` are secrets, `{p}` the provider, `{P}` its upper-case form. */
const SHAPES: Record<string, ((c: Ctx) => string)[]> = {
  env: [(c) => `${c.P}_API_KEY=${c.s}`, (c) => `${c.P}_SECRET=${c.s}`, (c) => `${c.P}_ACCESS_TOKEN=${c.s}`],
  "env export": [
    (c) => `export ${c.P}_TOKEN="${c.s}"`,
    (c) => `export ${c.P}_AUTH=${c.s}`,
    (c) => `set ${c.P}_PASSWORD=${c.pw}`,
    (c) => `$env:${c.P}_API_KEY = "${c.s}"`,
    (c) => `setx ${c.P}_API_KEY ${c.s}`,
    (c) => `ENV ${c.P}_TOKEN=${c.s}`,
    (c) => `ENV ${c.P}_TOKEN ${c.s}`,
    (c) => `${c.P}_API_KEY=${c.s} npm run deploy`,
  ],
  "key: value": [
    (c) => `${c.p}_api_key: ${c.s}`,
    (c) => `api key: ${c.s}`,
    (c) => `${cap(c.p)} API Key: ${c.s}`,
    (c) => `Secret Key: ${c.s}`,
    (c) => `access token - ${c.s}`,
  ],
  json: [
    (c) => `{"${c.p}": {"apiKey": "${c.s}", "region": "eu"}}`,
    (c) => `{"client_id": "${c.p}-web", "client_secret": "${c.s}"}`,
    (c) => `"${c.p}_token": "${c.s}",`,
    (c) => `{"auth": {"user": "${c.user}", "pass": "${c.pw}"}}`,
  ],
  yaml: [
    (c) => `${c.p}:\n  api_key: ${c.s}\n  timeout: 30`,
    (c) => `credentials:\n  ${c.p}:\n    secret: "${c.s}"`,
    (c) => `- name: ${c.p}\n  token: '${c.s}'`,
  ],
  "toml ini": [
    (c) => `[${c.p}]\ntoken = "${c.s}"`,
    (c) => `[${c.p}]\nsecret=${c.s}\nregion=us`,
    (c) => `[default]\n${c.p}_access_key = ${c.s}`,
    (c) => `[database]\nuser = app\npassword = ${c.pw}`,
  ],
  xml: [
    (c) => `<${c.p}ApiKey>${c.s}</${c.p}ApiKey>`,
    (c) => `<add key="${cap(c.p)}ApiKey" value="${c.s}" />`,
    (c) => `<credentials user="${c.user}" password="${c.pw}"/>`,
    (c) => `<setting name="${cap(c.p)}Secret" serializeAs="String"><value>${c.s}</value></setting>`,
  ],
  "connection string ;": [
    (c) =>
      `DefaultEndpointsProtocol=https;AccountName=${c.p}store;AccountKey=${token(B64, 86)}==;EndpointSuffix=core.windows.net`,
    (c) =>
      `Endpoint=sb://${c.p}.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${c.s}`,
    (c) => `Server=tcp:${c.p}.database.windows.net,1433;Database=app;User ID=${c.user};Password=${c.pw};Encrypt=true;`,
    (c) => `Driver={ODBC Driver 18 for SQL Server};Server=db.${c.p}.net;Uid=${c.user};Pwd=${c.pw};`,
    (c) => `jdbc:sqlserver://db.${c.p}.net:1433;databaseName=shop;user=${c.user};password=${c.pw};encrypt=true`,
    (c) => `Host=db.${c.p}.net;Port=5432;Username=${c.user};Password=${c.pw};Database=app`,
  ],
  "connection string &": [
    (c) => `jdbc:postgresql://db.${c.p}.io:5432/app?user=${c.user}&password=${c.pw}&ssl=true`,
    (c) => `jdbc:mysql://db.${c.p}.io/app?useSSL=true&user=${c.user}&password=${c.pw}`,
    (c) => `mongodb+srv://cluster0.${c.p}.net/?retryWrites=true&authSource=admin&password=${c.pw}`,
  ],
  "url query": [
    (c) => `https://api.${c.p}.com/v2/data?apikey=${c.s}&format=json`,
    (c) => `GET https://${c.p}.io/feed?access_token=${c.s}`,
    (c) =>
      `https://${c.p}.blob.core.windows.net/c/x.txt?sv=2022-11-02&ss=b&sp=r&se=2030-01-01T00:00:00Z&sig=${token(B64, 43)}%3D`,
    (c) => `wss://stream.${c.p}.com/ws?token=${c.s}`,
  ],
  "url userinfo": [
    (c) => `https://${c.user}:${c.pw}@git.${c.p}.com/team/repo.git`,
    (c) => `amqp://${c.user}:${c.pw}@mq.${c.p}.net:5672/`,
    (c) => `https://${c.s}@o12345.ingest.${c.p}.io/67890`,
    (c) => `redis://:${c.pw}@cache.${c.p}.net:6379/0`,
  ],
  "cli flag": [
    (c) => `${c.p} login --token ${c.s}`,
    (c) => `${c.p}-cli auth --api-key=${c.s}`,
    (c) => `${c.p} deploy --apiKey ${c.s} --env prod`,
    (c) => `${c.p} connect -u ${c.user} -p ${c.pw}`,
    (c) => `${c.p} sync --secret '${c.s}'`,
    (c) => `${c.p}ctl --password "${c.pw}" status`,
    (c) => `./bin/${c.p} --auth-token=${c.s} run`,
  ],
  "http header": [
    (c) => `curl -H "Authorization: Bearer ${c.s}" https://api.${c.p}.com/v1/me`,
    (c) => `curl -s -H 'X-${cap(c.p)}-Token: ${c.s}' https://${c.p}.io/api/items`,
    (c) => `curl -H "Authorization: Token ${c.s}" https://${c.p}.dev/api/`,
    (c) => `curl --header "api-key: ${c.s}" https://${c.p}.com/v3/search`,
    (c) => `curl -H "Authorization: ${cap(c.p)}-Key ${c.s}" https://${c.p}.com/x`,
    (c) => `GET /v1/me HTTP/1.1\nHost: api.${c.p}.com\nAuthorization: Bearer ${c.s}`,
    (c) => `headers = {"X-API-KEY": "${c.s}", "Accept": "application/json"}`,
    (c) => `fetch(url, { headers: { Authorization: \`Bearer ${c.s}\` } })`,
    (c) => `Authorization: Basic ${btoa(`${c.user}:${c.pw}`)}`,
  ],
  "code call": [
    (c) => `client = ${cap(c.p)}Client(api_key="${c.s}")`,
    (c) => `${c.p}.init({ token: '${c.s}' })`,
    (c) => `const ${c.p} = new ${cap(c.p)}({ apiKey: "${c.s}", timeout: 5000 });`,
    (c) => `${cap(c.p)}.configure(secret: "${c.s}")`,
  ],
  prose: [
    (c) => `my ${c.p} api key is ${c.s}`,
    (c) => `Here's the ${c.p} token: ${c.s}`,
    (c) => `use this key for ${c.p}: ${c.s}`,
    (c) => `the secret for ${c.p} is ${c.s}, don't share it`,
    (c) => `${cap(c.p)} key ${c.s} stopped working today`,
    (c) => `I rotated the ${c.p} token, new one is ${c.s}`,
  ],
  "next line": [(c) => `${cap(c.p)} API key:\n${c.s}`, (c) => `Here is my token\n\n    ${c.s}\n`],
  "near a credential word": [
    (c) => `${c.p} access token for the prod board ${c.s}`,
    (c) => `API key for ${c.p} (prod) - ${c.s}`,
    (c) => `gh secret set ${c.P}_TOKEN --body ${c.s}`,
    (c) => `aws configure set ${c.p}_secret_access_key ${c.s}`,
    (c) => `${c.p} secret → ${c.s}`,
  ],
  "tool config": [
    (c) => `machine api.${c.p}.com login ${c.user} password ${c.pw}`,
    (c) => `//registry.${c.p}.com/:_authToken=${c.s}`,
    (c) => `git clone https://oauth2:${c.s}@gitlab.${c.p}.com/team/app.git`,
    (c) => `kubectl create secret generic ${c.p} --from-literal=api-key=${c.s}`,
    (c) => `az login --service-principal -u ${uuid()} -p ${c.pw} --tenant ${c.p}.onmicrosoft.com`,
    (c) => `#define ${c.P}_KEY "${c.s}"`,
    (c) => `vault kv put secret/${c.p} token=${c.s}`,
  ],
  cookie: [
    (c) => `Cookie: ${c.p}_session=${token(ALNUM, 32)}; theme=dark`,
    (c) => `curl -b "sessionid=${token(ALNUM, 32)}" https://${c.p}.com/account`,
    () => `Set-Cookie: sid=${token(ALNUM, 40)}; Path=/; HttpOnly; Secure`,
  ],
  "custom header": [
    (c) => `curl -H "X-${cap(c.p)}: ${token(ALNUM, 32)}" https://api.${c.p}.com/v1/me`,
    (c) => `curl --header '${cap(c.p)}-Client: ${token(ALNUM, 40)}' https://${c.p}.io/api`,
  ],
  "call argument": [
    (c) => `client.setApiKey("${c.s}");`,
    (c) => `${cap(c.p)}Api.builder().apiToken("${c.s}").build()`,
    (c) => `auth.set_password('${c.pw}')`,
  ],
  list: [
    (c) => `api_keys = ["${c.s}", "${c.s2}"]`,
    (c) => `${c.p}:\n  tokens_allowed: 2\n  api_keys:\n    - ${c.s}\n    - ${c.s2}`,
    (c) => `private_key: |\n  ${c.s}`,
  ],
  postman: [(c) => `{"key": "X-${cap(c.p)}-Api-Key", "value": "${c.s}", "type": "text"}`],
  "reverse prose": [(c) => `${c.s} is the ${c.p} api key for staging`, (c) => `use ${c.s} as the access token`],
  sql: [(c) => `CREATE USER '${c.user}'@'%' IDENTIFIED BY '${c.pw}';`],
  "webhook path": [
    (c) => `POST https://hooks.${c.p}.com/hooks/catch/${draw(DIGIT, 7)}/${token(ALNUM, 24)}/`,
    (c) => `https://api.${c.p}.io/webhooks/incoming/${token(ALNUM, 32)}`,
  ],
  possessive: [(c) => `the ${c.p} API key's value is ${c.s}`],
  "short prefix, random body": [
    (c) => `try ${c.p.slice(0, 4)}-${token(ALNUM, 40)} instead`,
    (c) => `the new one is ${c.p}_${token(ALNUM, 36)}`,
  ],
  table: [(c) => `| ${c.p} | api key | ${c.s} |`, (c) => `${c.p}\tprod\ttoken\t${c.s}`],
  "log line": [
    (c) => `2024-06-01 12:00:01 DEBUG ${c.p}.client: using api_key=${c.s}`,
    (c) => `[${c.p}] auth ok token=${c.s} user=42`,
    (c) => `INFO request to ${c.p} headers={'x-api-key': '${c.s}'}`,
  ],
  "host nearby": [
    (c) => `server=prod-${draw(LOWER, 3)}.online.${c.p}.com\nsecret=${token(B64, 30)}==:${token(ALNUM, 24)}`,
    (c) => `host: api.${c.p}.io\nkey: ${c.s}`,
    (c) => `${c.p}_host=eu.${c.p}.com ${c.p}_auth=${c.s}`,
    (c) => `endpoint: https://${c.p}.example.net\ncredential: ${c.s}`,
    (c) => `[${c.p}]\nserver = prod-2.online.${c.p}.com\nclient = ${token(ALNUM, 32)}`,
    (c) => `{"url": "https://hooks.${c.p}.com/in", "code": "${token(ALNUM, 36)}"}`,
  ],
  "provider prefix": [
    (c) => `token=${prefixed(c.p)}`,
    (c) => `2024-05-01 INFO client init key=${prefixed(c.p)}`,
    (c) => `try ${prefixed(c.p)} instead`,
    (c) => `"${prefixed(c.p)}"`,
  ],
};

/** Placeholders and references (not the held-out corpus's spellings). */
const PLACEHOLDERS = [
  "<API_KEY>",
  "your_api_key_here",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions reference, not a template
  "${{ secrets.DEPLOY_TOKEN }}",
  "%API_TOKEN%",
  "<insert token>",
  "***",
  "[REDACTED]",
  "{token}",
  "XXXXXXXXXXXXXXXXXXXX",
  "changeit",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a PowerShell reference, not a template
  "${env:API_KEY}",
  "$(cat ~/.token)",
  "<%= ENV['API_KEY'] %>",
  "{{ vault_api_key }}",
  "REPLACE_ME",
  "sk_live_xxxxxxxxxxxxxxxxxxxxxxxx",
];

type Tp = { shape: string; sample: string; secrets: string[] };
type Fp = { shape: string; sample: string };
const tps: Tp[] = [];
const fps: Fp[] = [];
for (const [shape, templates] of Object.entries(SHAPES))
  for (const t of templates)
    for (let k = 0; k < 3; k++) {
      const p = provider();
      const c: Ctx = {
        p,
        P: up(p),
        s: secret(),
        s2: secret(),
        pw: password(),
        user: pick(["app", "deploy", "svc_ci"]),
      };
      const sample = t(c);
      // the secrets are what differs between two renderings with different values
      const secrets: string[] = [];
      for (const v of [c.s, c.s2, c.pw]) if (sample.includes(v)) secrets.push(v);
      if (
        [
          "provider prefix",
          "host nearby",
          "cookie",
          "custom header",
          "webhook path",
          "short prefix, random body",
        ].includes(shape) ||
        !secrets.length
      ) {
        // values drawn inside the template: take the tokens it added
        const words = sample.split(/[\s"'=:`,;]+/).filter((w) => w.length >= 16 && /\d|_live_|pat_|^sk-/.test(w));
        secrets.push(...words.filter((w) => !w.includes(".com") && !w.includes(".io")));
      }
      if (shape === "http header" && sample.includes("Basic "))
        secrets.splice(0, secrets.length, sample.split("Basic ")[1]!);
      if (shape === "connection string ;" && sample.includes("AccountKey="))
        secrets.splice(0, secrets.length, sample.split("AccountKey=")[1]!.split(";")[0]!);
      if (shape === "url query" && sample.includes("sig=")) secrets.splice(0, secrets.length, sample.split("sig=")[1]!);
      if (shape === "webhook path")
        secrets.splice(0, secrets.length, ...sample.split("/").filter((x) => x.length >= 20 && /\d/.test(x)));
      tps.push({ shape, sample, secrets: [...new Set(secrets)] });
      if (k === 0) {
        // the same shape with a placeholder instead of each value
        let neg = sample;
        for (const v of secrets) neg = neg.split(v).join(pick(PLACEHOLDERS));
        // (not when two secrets make one value, `secret=A==:B`: two placeholders glued are no placeholder)
        const glued = secrets.some((a) =>
          secrets.some((b) => a !== b && /^[^\s]{0,4}$/.test(sample.split(a)[1]?.split(b)[0] ?? " ")),
        );
        if (!glued) fps.push({ shape: `${shape} (placeholder)`, sample: neg });
      }
    }

/** Ordinary values in the same syntaxes: never secrets. */
const ORDINARY: (() => string)[] = [
  () => `git show ${draw(HEX, 40)} -- src/auth/token.ts`,
  () => `fixed in ${draw(HEX, 7)} (commit ${draw(HEX, 40)})`,
  () => `expected fixture id ${uuid()} in tokens.test.ts`,
  () => `"version": "${int(1, 9)}.${int(0, 20)}.${int(0, 30)}", "tokenizer": "cl100k_base"`,
  () => `ACME_API_KEY_PATH=/etc/${provider()}/api.key`,
  () => `the session_id was ${uuid()} when the token refresh failed`,
  () => `sha256sum: ${draw(HEX, 64)}  release.tar.gz`,
  () => `digest: sha256:${draw(HEX, 64)}`,
  () => `const tokenCount = countTokens(prompt); // ${int(100, 900)} max`,
  () => `${provider()}_secret_name = "prod/${provider()}/api-key"`,
  () => `api_key_id: ${uuid()}`,
  () => `password_min_length: ${int(8, 16)}`,
  () => `--token-file ~/.config/${provider()}/token.json`,
  () => `Set ${up(provider())}_TOKEN in your shell, then run \`${provider()} login\`.`,
  () => `The API key goes in the X-Api-Key header; keys start with "${draw(LOWER, 2)}_".`,
  () => `git log --oneline ${draw(HEX, 7)}..HEAD -- src/secrets/`,
  () => `Bearer tokens expire after ${int(5, 60)} minutes; refresh with POST /oauth/token.`,
  () => `secretName: ${provider()}-credentials`,
  () => `tokenizer.encode("hello world") == [${int(1000, 9999)}, ${int(1000, 9999)}]`,
  () => `keyboard shortcut: Ctrl+Shift+${pick(UPPER.split(""))}`,
  () => `import { ${cap(provider())}Client } from "@${provider()}/sdk"; // v${int(1, 5)}.${int(0, 9)}.${int(0, 9)}`,
  () => `ssh-keygen -t ed25519 -C "dev@${provider()}.com" -f ~/.ssh/id_${provider()}`,
  () => `mkdir -p build/${provider()} && tsc -p tsconfig.build.json`,
  () => `docker run -p 8080:80 -e API_KEY=$API_KEY ${provider()}/api:${int(1, 5)}.${int(0, 9)}`,
  () => `Authorization header missing: expected "Bearer <token>"`,
  () => `The secret is stored in AWS Secrets Manager under ${provider()}/prod/api`,
  () => `password = getpass.getpass("Password for ${provider()}: ")`,
  () => `token = request.headers.get("Authorization", "").removeprefix("Bearer ")`,
  () => `| key | value |\n|-----|-------|\n| timeout | ${int(10, 99)}s |`,
  () => `etag: W/"${draw(HEX, 16)}-${draw(HEX, 8)}"`,
  () => `the charge ch_${token(ALNUM, 24)} failed with card_declined`,
  () => `tool_use_id: toolu_01${token(ALNUM, 22)}`,
  () => `"sessionId": "${uuid()}", "userId": ${int(1000, 9999)}`,
  () => `Idempotency-Key: ${uuid()}`,
  () => `X-Request-Id: ${draw(HEX, 32)}`,
  () => `If-None-Match: "${draw(HEX, 32)}"`,
  () => `https://github.com/${provider()}/${provider()}/commit/${draw(HEX, 40)}`,
  () => `Merge ${draw(HEX, 40)} into ${draw(HEX, 40)}`,
  () => `"integrity": "sha512-${token(B64, 86)}=="`,
  () => `const API_KEY_HEADER = "x-api-key";`,
  () => `token_type: "Bearer", expires_in: ${int(600, 7200)}`,
  () => `Set AUTH_SECRET to a random string (openssl rand -base64 32).`,
  () => `secretKeyRef:\n  name: ${provider()}-secrets\n  key: api-key`,
  () => `apiKey: process.env.${up(provider())}_API_KEY!,`,
  () => `tokens: ${int(1000, 99999)} in, ${int(100, 9999)} out`,
  () => `KeyError: 'api_key'`,
  () => `assert token == expected_token, f"got {token}"`,
  () => `new_password = form.cleaned_data["password1"]`,
  () => `curl -H "Accept: application/json" -H "X-Request-Id: ${uuid()}" https://api.${provider()}.com/health`,
  () => `curl -H "If-None-Match: ${draw(HEX, 40)}" https://${provider()}.io/feed`,
  () => `Cookie: theme=dark; lang=en-US; tz=Europe%2FBerlin`,
  () => `[${provider()}]\nserver = prod-2.online.${provider()}.com\nregion = eu-west-1\ntimeout = 30`,
  () => `host: db.${provider()}.net\ncommit: ${draw(HEX, 40)}\nimage: ${provider()}/api@sha256:${draw(HEX, 64)}`,
  () => `const token = getToken("${provider()}-prod");`,
  () => `response id chatcmpl-${token(ALNUM, 29)} took 2.1s`,
  () => `OpenAI org org-${token(ALNUM, 24)} is the billing one`,
  () => `the sheet 1${token(ALNUM, 43)} has the numbers`,
  () => `Clerk user user_${token(ALNUM, 27)} signed in`,
  () => `deployment dpl_${token(ALNUM, 28)} is ready`,
  () => `key_ids = ["${uuid()}", "${uuid()}"]`,
  () => `GET https://api.${provider()}.com/v1/keys/${uuid()}/rotate`,
  () => `https://hooks.${provider()}.com/docs/webhooks/getting-started`,
  () => `{"key": "timeout", "value": "${int(10, 99)}", "type": "text"}`,
  () => `${draw(HEX, 40)} is the commit that added the token check`,
  () => `the API key's length must be ${int(20, 64)}`,
  () => `password_fields: ["password", "password_confirmation"]`,
  () => `CREATE USER '${provider()}'@'%' IDENTIFIED BY '\${DB_PASSWORD}';`,
];
for (const f of ORDINARY) for (let k = 0; k < 2; k++) fps.push({ shape: "ordinary", sample: f() });

const jsonl = (rows: object[]) => `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`;
writeFileSync(join(outDir, "shapes.jsonl"), jsonl(tps));
writeFileSync(join(outDir, "shapes-negative.jsonl"), jsonl(fps));
console.log(`${tps.length} secret samples in ${Object.keys(SHAPES).length} shapes, ${fps.length} negatives`);
