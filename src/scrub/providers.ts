/**
 * Provider tokens: one entry per family, each with the literal keywords that must appear for its
 * patterns to run (one pass of a keyword regex decides which families run at all).
 *
 * Every pattern is linear: it starts with a literal prefix behind a left boundary (so a long run of
 * prefixes is tried once, not at every position), every repetition is bounded, and adjacent
 * repetitions are separated by a literal their classes do not contain. A match is redacted whole
 * (or group 1 when the pattern has one), then extended over any further token characters.
 */
import { alphabetRun, looksFake, randomLetters } from "./values";

export type ProviderRule = {
  family: string;
  keywords: string[];
  /**
   * Sources without flags; compiled with "g" (+ "i" when `ci`). A plain string is a loose pattern:
   * its match must also pass `check` (default: not a made-up value, has a digit). `{ exact }` is a
   * pattern precise enough (fixed length, checksum-like suffix) to be trusted as is.
   */
  patterns: (string | { exact: string })[];
  ci?: boolean;
  check?: (token: string) => boolean;
};

/**
 * Left boundary: not inside a word or a file name. A `/` is a boundary like a space (`ci/ghp_…`,
 * `https://github.com/ghp_…`, `keys/AKIA…/id`); inside a base64 blob it is not, which the scrubber
 * decides from what precedes the slash (insideBase64).
 */
const B = "(?<![A-Za-z0-9_+.-])";
const R = "(?![A-Za-z0-9])"; // right boundary for fixed-length tokens
const UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";

export const PROVIDERS: ProviderRule[] = [
  {
    family: "anthropic",
    keywords: ["sk-ant-"],
    patterns: [
      { exact: `${B}sk-ant-(?:api03|admin01)-[A-Za-z0-9_-]{93}AA(?![A-Za-z0-9_-])` },
      `${B}sk-ant-[a-z]{2,8}\\d{2}-[A-Za-z0-9_-]{20,400}`,
    ],
  },
  { family: "openrouter", keywords: ["sk-or-"], patterns: [`${B}sk-or-v\\d-[A-Za-z0-9]{40,100}`] },
  {
    family: "openai",
    keywords: ["sk-"],
    patterns: [
      { exact: `${B}sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,160}T3BlbkFJ[A-Za-z0-9_-]{20,160}` },
      `${B}sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,400}`,
    ],
  },
  {
    family: "stripe",
    keywords: ["sk_test", "sk_live", "sk_prod", "rk_test", "rk_live", "rk_prod", "whsec_"],
    patterns: [`${B}(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,255}`, `${B}whsec_[A-Za-z0-9]{20,100}`],
  },
  {
    family: "github",
    keywords: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    patterns: [`${B}gh[pousr]_[A-Za-z0-9]{30,255}`, `${B}github_pat_[A-Za-z0-9_]{22,255}`],
  },
  {
    family: "gitlab",
    keywords: [
      "glpat-",
      "gldt-",
      "glrt-",
      "glptt-",
      "glft-",
      "glimt-",
      "gloas-",
      "glsoat-",
      "glffct-",
      "glagent-",
      "glcbt-",
      "GR1348941",
      "_gitlab_session=",
    ],
    patterns: [
      `${B}gl(?:pat|dt|rt|ptt|ft|imt|oas|soat|ffct|agent|cbt)-[A-Za-z0-9_.-]{20,300}`,
      `${B}GR1348941[A-Za-z0-9_-]{20,100}`,
      "_gitlab_session=([0-9a-z]{32})",
    ],
  },
  {
    family: "slack",
    keywords: ["xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxo-", "xoxe-", "xoxe.", "xapp-", "hooks.slack.com"],
    patterns: [
      `${B}xoxe\\.xox[bp]-\\d-[A-Za-z0-9]{40,400}`,
      `${B}xoxe-\\d-[A-Za-z0-9]{40,400}`,
      `${B}xox[bpe](?:-[0-9]{6,14}){1,3}-[A-Za-z0-9-]{8,400}`,
      `${B}xox[ar]-(?:\\d-)?[0-9a-zA-Z]{8,48}`,
      `${B}xox[os]-\\d{1,20}-\\d{1,20}-\\d{1,20}-[a-fA-F0-9]{8,100}`,
      `${B}xapp-\\d-[A-Za-z0-9-]{10,400}`,
      "hooks\\.slack\\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/_-]{12,300})",
    ],
  },
  {
    family: "aws",
    keywords: [
      "AKIA",
      "ASIA",
      "ABIA",
      "ACCA",
      "A3T",
      "AGPA",
      "AIDA",
      "AROA",
      "ANPA",
      "ANVA",
      "AIPA",
      "ABSK",
      "bedrock-api-key-",
    ],
    patterns: [
      `${B}(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}(?![A-Za-z0-9])`,
      `${B}ABSK[A-Za-z0-9+/]{40,400}={0,2}`,
      { exact: `${B}bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=]{0,4000}` },
    ],
    check: (t) => !looksFake(t),
  },
  {
    family: "google",
    keywords: ["AIza", "ya29.", "GOCSPX-"],
    patterns: [`${B}AIza[A-Za-z0-9_-]{30,60}`, `${B}ya29\\.[A-Za-z0-9_-]{20,2048}`, `${B}GOCSPX-[A-Za-z0-9_-]{20,60}`],
  },
  {
    family: "huggingface",
    keywords: ["hf_", "api_org_"],
    patterns: [`${B}hf_[A-Za-z0-9]{30,100}`, `${B}api_org_[A-Za-z0-9]{30,100}`],
    check: (t) => {
      const body = t.replace(/^(?:hf|api_org)_/, "");
      return /^[A-Za-z]+$/.test(body) ? randomLetters(body) : /\d/.test(body) && !looksFake(body);
    },
  },
  { family: "npm", keywords: ["npm_"], patterns: [`${B}npm_[A-Za-z0-9]{36,100}`] },
  // AI and developer platforms with well-known prefixes
  { family: "xai", keywords: ["xai-"], patterns: [`${B}xai-[A-Za-z0-9]{60,100}`] },
  { family: "groq", keywords: ["gsk_"], patterns: [`${B}gsk_[A-Za-z0-9]{40,60}`] },
  { family: "pinecone", keywords: ["pcsk_"], patterns: [`${B}pcsk_[A-Za-z0-9_]{40,120}`] },
  { family: "langsmith", keywords: ["lsv2_"], patterns: [`${B}lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}`] },
  { family: "replicate", keywords: ["r8_"], patterns: [`${B}r8_[A-Za-z0-9]{30,50}`] },
  { family: "fireworks", keywords: ["fw_"], patterns: [`${B}fw_[A-Za-z0-9]{20,60}`] },
  { family: "nvidia", keywords: ["nvapi-"], patterns: [`${B}nvapi-[A-Za-z0-9_-]{40,100}`] },
  { family: "tavily", keywords: ["tvly-"], patterns: [`${B}tvly-(?:dev-|prod-)?[A-Za-z0-9]{24,60}`] },
  { family: "docker", keywords: ["dckr_pat_", "dckr_oat_"], patterns: [`${B}dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,60}`] },
  { family: "render", keywords: ["rnd_"], patterns: [`${B}rnd_[A-Za-z0-9]{24,60}`] },
  { family: "figma", keywords: ["figd_"], patterns: [`${B}figd_[A-Za-z0-9_-]{30,100}`] },
  { family: "hubspot", keywords: ["pat-na1-", "pat-eu1-"], patterns: [`${B}pat-(?:na|eu)1-${UUID}`] },
  { family: "netlify", keywords: ["nfp_"], patterns: [`${B}nfp_[A-Za-z0-9]{30,60}`] },
  {
    family: "tailscale",
    keywords: ["tskey-"],
    patterns: [`${B}tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{6,20}-[A-Za-z0-9]{20,60}`],
  },
  { family: "supabase", keywords: ["sbp_"], patterns: [`${B}sbp_[a-f0-9]{40}`] },
  { family: "posthog", keywords: ["phx_"], patterns: [`${B}phx_[A-Za-z0-9]{30,60}`] },
  { family: "bitbucket", keywords: ["ATBB"], patterns: [`${B}ATBB[A-Za-z0-9]{24,60}`] },
  { family: "crates", keywords: ["cio"], patterns: [`${B}cio[A-Za-z0-9]{32}(?![A-Za-z0-9])`] },
  { family: "pypi", keywords: ["pypi-"], patterns: [`${B}pypi-[A-Za-z0-9_-]{50,2000}`] },
  {
    family: "sendgrid",
    keywords: ["SG."],
    patterns: [`${B}SG\\.[A-Za-z0-9_=-]{16,32}\\.[A-Za-z0-9_=.-]{20,80}`, `${B}SG\\.[A-Za-z0-9_=.-]{60,80}`],
  },
  {
    family: "brevo",
    keywords: ["xkeysib-", "xsmtpsib-"],
    patterns: [`${B}x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}`],
  },
  {
    family: "digitalocean",
    keywords: ["dop_v1_", "doo_v1_", "dor_v1_"],
    patterns: [`${B}do[opr]_v1_[A-Za-z0-9]{32,128}`],
  },
  {
    family: "shopify",
    keywords: ["shpat_", "shpca_", "shppa_", "shpss_"],
    patterns: [`${B}shp(?:at|ca|pa|ss)_[A-Fa-f0-9]{32}`],
  },
  { family: "twilio", keywords: ["SK"], patterns: [`${B}SK[0-9a-fA-F]{32}(?![A-Za-z0-9])`] },
  { family: "mailgun", keywords: ["key-"], patterns: [`${B}key-[a-f0-9]{32}(?![A-Za-z0-9])`] },
  { family: "mailchimp", keywords: ["-us"], patterns: [`${B}[a-f0-9]{32}-us\\d{1,2}(?![A-Za-z0-9])`] },
  { family: "databricks", keywords: ["dapi"], patterns: [`${B}dapi[a-f0-9]{32}(?:-\\d)?`] },
  {
    family: "doppler",
    keywords: ["dp."],
    patterns: [`${B}dp\\.(?:pt|st|sa|ct|scim|audit)\\.[A-Za-z0-9]{40,50}`],
  },
  { family: "duffel", keywords: ["duffel_"], patterns: [`${B}duffel_(?:test|live)_[A-Za-z0-9_=-]{40,50}`] },
  { family: "dynatrace", keywords: ["dt0c01."], patterns: [`${B}dt0c01\\.[A-Za-z0-9]{24}\\.[A-Za-z0-9]{64}`] },
  { family: "easypost", keywords: ["EZAK", "EZTK"], patterns: [`${B}EZ[AT]K[A-Za-z0-9]{54}`] },
  {
    family: "facebook",
    keywords: ["EAAM", "EAAC"],
    patterns: [`${B}EAA[MC][A-Za-z0-9]{100,1000}`],
  },
  {
    family: "square",
    keywords: ["EAAA", "sq0atp-", "sq0csp-"],
    patterns: [`${B}EAAA[A-Za-z0-9_-]{22,100}`, `${B}sq0(?:atp|csp)-[A-Za-z0-9_\\\\-]{22,60}`],
  },
  {
    family: "flutterwave",
    keywords: ["FLWSECK", "FLWPUBK"],
    patterns: [`${B}FLW(?:PUBK|SECK)_TEST-[A-Za-z0-9]{12,40}(?:-X)?`],
  },
  {
    family: "flyio",
    keywords: ["fo1_", "fm1", "fm2_"],
    patterns: [`${B}fo1_[A-Za-z0-9_-]{40,50}`, `${B}fm[12][ar]?_[A-Za-z0-9+/]{100,2000}={0,3}`],
  },
  { family: "frameio", keywords: ["fio-u-"], patterns: [`${B}fio-u-[A-Za-z0-9_=-]{64}`] },
  {
    family: "grafana",
    keywords: ["glc_", "glsa_", "eyJrIjoi"],
    patterns: [
      `${B}glc_[A-Za-z0-9+/]{32,400}={0,3}`,
      `${B}glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}`,
      `${B}eyJrIjoi[A-Za-z0-9]{50,400}={0,3}`,
    ],
  },
  {
    family: "harness",
    keywords: ["pat.", "sat."],
    patterns: [`${B}(?:pat|sat)\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9]{24}\\.[A-Za-z0-9]{20}`],
  },
  {
    family: "hashicorp",
    keywords: [".atlasv1.", "hvs.", "hvb.", "hvr."],
    patterns: [`${B}[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_=-]{60,70}`, `${B}hv[sbr]\\.[A-Za-z0-9_-]{20,400}`],
  },
  { family: "heroku", keywords: ["HRKU-"], patterns: [`${B}HRKU-[A-Za-z0-9_-]{40,80}`] },
  { family: "infracost", keywords: ["ico-"], patterns: [`${B}ico-[A-Za-z0-9]{32}`] },
  { family: "intra42", keywords: ["s-s4t2"], patterns: [`${B}s-s4t2(?:ud|af)-[A-Fa-f0-9]{64}`] },
  { family: "linear", keywords: ["lin_api_", "lin_oauth_"], patterns: [`${B}lin_(?:api|oauth)_[A-Za-z0-9]{40}`] },
  { family: "maxmind", keywords: ["_mmk"], patterns: [`${B}[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk`] },
  {
    family: "notion",
    keywords: ["ntn_", "secret_"],
    patterns: [`${B}ntn_[0-9]{11}[A-Za-z0-9]{35}`, `${B}secret_[A-Za-z0-9]{43}(?![A-Za-z0-9])`],
  },
  { family: "octopus", keywords: ["API-"], patterns: [`${B}API-[A-Z0-9]{26}(?![A-Za-z0-9])`] },
  { family: "openshift", keywords: ["sha256~"], patterns: [`${B}sha256~[A-Za-z0-9_-]{43}`] },
  { family: "perplexity", keywords: ["pplx-"], patterns: [`${B}pplx-[A-Za-z0-9]{48}`] },
  { family: "planetscale", keywords: ["pscale_"], patterns: [`${B}pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}`] },
  { family: "postman", keywords: ["PMAK-"], patterns: [`${B}PMAK-[A-Fa-f0-9]{24}-[A-Fa-f0-9]{34}`] },
  { family: "prefect", keywords: ["pnu_"], patterns: [`${B}pnu_[A-Za-z0-9]{36}`] },
  { family: "pulumi", keywords: ["pul-"], patterns: [`${B}pul-[a-f0-9]{40}`] },
  { family: "readme", keywords: ["rdme_"], patterns: [`${B}rdme_[a-z0-9]{70}`] },
  { family: "rubygems", keywords: ["rubygems_"], patterns: [`${B}rubygems_[a-f0-9]{48}`] },
  { family: "scalingo", keywords: ["tk-us-"], patterns: [`${B}tk-us-[A-Za-z0-9_-]{48}`] },
  {
    family: "sentry",
    keywords: ["sntrys_", "sntryu_"],
    patterns: [
      { exact: `${B}sntrys_eyJpYXQiO[A-Za-z0-9+/=]{10,1000}_[A-Za-z0-9+/]{43}(?![A-Za-z0-9+/])` },
      { exact: `${B}sntryu_[a-f0-9]{64}${R}` },
    ],
  },
  {
    family: "settlemint",
    keywords: ["sm_aat_", "sm_pat_", "sm_sat_"],
    patterns: [`${B}sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}`],
  },
  { family: "shippo", keywords: ["shippo_"], patterns: [`${B}shippo_(?:live|test)_[A-Fa-f0-9]{40}`] },
  {
    family: "sidekiq",
    keywords: ["CONTRIBSYS", "contribsys"],
    patterns: [
      { exact: `BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM[ \\t]{0,5}[=:][ \\t]{0,5}["']?([a-f0-9]{8}:[a-f0-9]{8})` },
    ],
    ci: true,
  },
  {
    family: "1password",
    keywords: ["A3-", "ops_eyJ"],
    patterns: [
      `${B}A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}`,
      `${B}ops_eyJ[A-Za-z0-9+/]{200,4000}={0,3}`,
    ],
  },
  { family: "adobe", keywords: ["p8e-"], patterns: [`${B}p8e-[A-Za-z0-9]{32}`] },
  {
    family: "age",
    keywords: ["AGE-SECRET-KEY-1"],
    patterns: [{ exact: "AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}" }],
  },
  { family: "airtable", keywords: ["pat"], patterns: [`${B}pat[A-Za-z0-9]{14}\\.[a-f0-9]{64}`] },
  { family: "alibaba", keywords: ["LTAI"], patterns: [`${B}LTAI[A-Za-z0-9]{20}`] },
  {
    family: "artifactory",
    keywords: ["AKCp", "cmVmd"],
    patterns: [`${B}AKCp[A-Za-z0-9]{69}`, `${B}cmVmd[A-Za-z0-9]{59}`],
  },
  { family: "atlassian", keywords: ["ATATT3", "ATCTT3"], patterns: [`${B}AT[AC]TT3[A-Za-z0-9_=-]{150,300}`] },
  {
    family: "authress",
    keywords: [".acc_", ".acc-"],
    patterns: [
      `${B}(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\\.[A-Za-z0-9]{4,6}\\.acc[_-][A-Za-z0-9-]{10,32}\\.[A-Za-z0-9+/_=-]{30,120}`,
    ],
  },
  {
    family: "azure",
    keywords: ["Q~"],
    patterns: [{ exact: "(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\\dQ~[A-Za-z0-9_~.-]{31,34}(?=$|[\\\\'\"`\\s<),;])" }],
  },
  { family: "clickhouse", keywords: ["4b1d"], patterns: [`${B}4b1d[A-Za-z0-9]{38}`] },
  { family: "clojars", keywords: ["CLOJARS_", "clojars_"], patterns: [`${B}CLOJARS_[A-Za-z0-9]{60}`], ci: true },
  { family: "cloudflare", keywords: ["v1.0-"], patterns: [`${B}v1\\.0-[a-f0-9]{24}-[a-f0-9]{146}`] },
  {
    family: "discord",
    keywords: ["discord"],
    patterns: ["discord(?:app)?\\.com/api/webhooks/[0-9]{5,30}/([A-Za-z0-9_-]{40,100})"],
  },
  {
    family: "teams",
    keywords: ["webhook.office.com"],
    patterns: ["webhook\\.office\\.com/webhookb2/([A-Za-z0-9@/_-]{20,400})"],
  },
  {
    family: "newrelic",
    keywords: ["NRAK-", "NRII-", "NRJS-", "NRAA-"],
    patterns: [`${B}NR(?:AK|II|JS|AA)-[A-Za-z0-9_-]{19,40}`],
  },
  {
    family: "gocardless",
    keywords: ["live_", "sandbox_"],
    patterns: [`${B}(?:live|sandbox)_[A-Za-z0-9_=-]{40}(?![A-Za-z0-9_=-])`],
  },
  {
    family: "lob",
    keywords: ["live_", "test_"],
    patterns: [`${B}(?:live|test)_(?:pub_)?[a-f0-9]{31,35}(?![A-Za-z0-9])`],
  },
  { family: "mapbox", keywords: ["sk.eyJ"], patterns: [`${B}sk\\.eyJ[A-Za-z0-9_-]{20,400}\\.[A-Za-z0-9_-]{10,200}`] },
  {
    family: "plaid",
    keywords: ["access-sandbox-", "access-development-", "access-production-"],
    patterns: [`${B}access-(?:sandbox|development|production)-${UUID}`],
  },
  {
    family: "telegram",
    // a bot token is `<bot id>:<35 characters>`; beside the provider's name the 35 may start with any letter
    keywords: [":A", "telegram", "Telegram", "TELEGRAM", "tgram", "/bot"],
    patterns: [
      "(?<![0-9])[0-9]{5,16}:A[A-Za-z0-9_-]{34}(?![A-Za-z0-9_-])",
      "(?<![0-9])[0-9]{8,10}:[A-Za-z][A-Za-z0-9_-]{34}(?![A-Za-z0-9_-])",
    ],
    check: (t) => /\d/.test(t.slice(t.indexOf(":"))) && !looksFake(t),
  },
  {
    family: "twitter",
    keywords: ["AAAAAAAAAAAAAAAAAAAAA"],
    patterns: [{ exact: `${B}AAAAAAAAAAAAAAAAAAAAA[A-Za-z0-9%]{30,300}` }],
  },
  { family: "typeform", keywords: ["tfp_"], patterns: [`${B}tfp_[A-Za-z0-9_.=-]{59}`] },
  {
    family: "yandex",
    keywords: ["AQVN", "YC", "t1."],
    patterns: [
      `${B}AQVN[A-Za-z0-9_-]{35,38}`,
      `${B}YC[A-Za-z0-9_-]{38}(?![A-Za-z0-9_-])`,
      `${B}t1\\.[A-Za-z0-9_-]{1,100}={0,2}\\.[A-Za-z0-9_-]{86}={0,2}`,
    ],
  },
  {
    family: "sourcegraph",
    keywords: ["sgp_"],
    patterns: [`${B}sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}`],
  },
  { family: "sonar", keywords: ["sqp_", "squ_", "sqa_"], patterns: [`${B}sq[pua]_[A-Za-z0-9]{40}`] },
  { family: "dropbox", keywords: ["sl."], patterns: [`${B}sl\\.(?:u\\.)?[A-Za-z0-9_-]{130,1500}`] },
  { family: "contentful", keywords: ["CFPAT-"], patterns: [`${B}CFPAT-[A-Za-z0-9_-]{43}`] },
  { family: "defined-networking", keywords: ["dnkey-"], patterns: [`${B}dnkey-[a-z0-9=_-]{26}-[a-z0-9=_-]{52}`] },
  { family: "launchdarkly", keywords: ["api-", "sdk-", "mob-"], patterns: [`${B}(?:api|sdk|mob)-${UUID}`] },
  { family: "nuget", keywords: ["oy2"], patterns: [`${B}oy2[a-z0-9]{43}`] },
  { family: "vault", keywords: ["s."], patterns: [`${B}s\\.[A-Za-z0-9]{24}(?![A-Za-z0-9])`] },
  {
    family: "facebook",
    keywords: ["|", "%7C"],
    patterns: [`(?<![0-9])[0-9]{15,16}(?:\\||%7C)[0-9A-Za-z_-]{27,40}${R}`],
  },
];

/**
 * Does the match at `start`, right after a `/`, sit inside a base64 blob (`…9xQ+Lw/AKIA…`)? Yes when
 * 40+ base64 characters run up to the slash with no `.`, `_`, `-` or space between: a path or a
 * URL (`github.com/`, `ci/`, `vault/`) has short segments or punctuation, a blob does not.
 */
export function insideBase64(text: string, start: number): boolean {
  if (text[start - 1] !== "/") return false;
  let s = start - 1;
  while (s > 0 && start - s <= 40 && /[A-Za-z0-9+/=]/.test(text[s - 1]!)) s--;
  return start - s > 40;
}

/** Characters a token may continue with past its pattern's bounded length. */
export const TOKEN_TAIL = /[A-Za-z0-9_-]/;

/** The default check for a loose pattern's match: machine-made, not an example. */
export function plausibleToken(t: string): boolean {
  // a run of ten consecutive letters or digits (`sk-ant-api03-abc123xyz-...-klmnopqrstuvwx`) is a
  // made-up example in a provider's format
  if (looksFake(t) || alphabetRun(t)) return false;
  if (/\d/.test(t) && /[A-Za-z]/.test(t)) return true;
  // no digit: the letters after the prefix must look random
  const body = t.replace(/^[A-Za-z0-9]{1,12}[_.-]/, "").replace(/[^A-Za-z]/g, "");
  return randomLetters(body);
}

/**
 * A name that says which provider the value belongs to is judged by that provider's format
 * (`telegram_token = "2488:As4v..."` is not a Telegram token). Word of the name -> whole-value format.
 */
export const NAMED_FORMATS: [RegExp, RegExp][] = [
  [/^telegram$/, /^\d{5,16}:A[\w-]{34}$/],
  [/^meraki$/, /^[0-9a-f]{40}$/],
  [/^sumo(?:logic)?$/, /^(?:su[A-Za-z0-9]{12}|[A-Za-z0-9]{64})$/],
  [/^databricks$/, /^dapi[a-f0-9]{32}(?:-\d)?$/],
];

/** Published example keys (vendor docs, public SDK samples, package-manager constants): not secrets. */
export const KNOWN_PUBLIC = new Set([
  "6fe4476ee5a1832882e326b506d14126", // yarn's public npm token placeholder
  "AKIAIOSFODNN7EXAMPLE", // AWS documentation
  "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  "33f!!lloppa", // NuGet documentation
  "hal+9ooo_da!sY",
  "AIzaSyabcdefghijklmnopqrstuvwxyz1234567",
  "AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs",
  "AIzaSyCkEhVjf3pduRDt6d1yKOMitrUEke8agEM",
  "AIzaSyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU",
  "AIzaSyD3asb-2pEZVqMkmL6M9N6nHZRR_znhrh0",
  "AIzayDNSXIbFmlXbIE6mCzDLQAqITYefhixbX4A",
  "AIzaSyAdOS2zB6NCsk1pCdZ4-P6GBdi_UUPwX7c",
  "AIzaSyASWm6HmTMdYWpgMnjRBjxcQ9CKctWmLd4",
  "AIzaSyANUvH9H9BsUccjsu2pCmEkOPjjaXeDQgY",
  "AIzaSyA5_iVawFQ8ABuTZNUdcwERLJv_a_p4wtM",
  "AIzaSyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ",
  "AIzaSyDSb51JiIcB6OJpwwMicseKRhhrOq1cS7g",
  "AIzaSyBF2RrAIm4a0mO64EShQfqfd2AFnzAvvuU",
  "AIzaSyBcE-OOIbhjyR83gm4r2MFCu4MJmprNXsw",
  "AIzaSyB8qGxt4ec15vitgn44duC5ucxaOi4FmqE",
  "AIzaSyA8vmApnrHNFE0bApF4hoZ11srVL_n0nvY",
]);
