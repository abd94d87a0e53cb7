import { head } from './code-points.js';
import { isPlainObject } from './values.js';

/**
 * What is a secret, for logs and the audit alike (docs/design.md#records, what is recognised and
 * what is not: docs/threat-model.md "Secrets in records"):
 * - the value of any key that looks like one, at any depth;
 * - every value inside an `env`, `environment` or `headers` object or list (a server's config, a
 *   tool's request), keeping the names (`Authorization: [redacted]`, `KEY=[redacted]`);
 * - the `value` of a `{name|key: <secret name>, value}` pair;
 * - inside any string (`redactText`): private key blocks, URL passwords, secret-named values
 *   (`GITHUB_TOKEN=…`, `Authorization: Bearer …`, `?sig=…`, `--password x`, `mysql -pX`,
 *   `curl -u user:pass`), `Bearer`/`Basic` credentials, and well-known token shapes.
 * The person's prompt shows the call as it is: this is for records at rest only.
 */
const SECRET_KEY = /(?:token|passw(?:or)?d|secret|api[-_]?key|authorization|auth|credential|private[-_]?key|cookie|session[-_]?id|bearer)|(?:pass|pwd|passphrase|passcode|creds|sig|signature|jwt|(?:access|signing|encryption|master|client|app|license|ssh|account)[-_]?key|key[-_]?data)$|(?:^|[-_.])(?:pin|otp|totp|mfa|pat)(?:[-_]?code)?$/i;
/** Keys whose every value is a secret when they hold an object or a list. */
const ALL_VALUES = /^(?:env|environment|headers)$/i;
/** Either of the above: one test per key on the path with nothing to redact. */
const MARKED_KEY = new RegExp(`${SECRET_KEY.source}|${ALL_VALUES.source}`, 'i');
const REDACTED = '[redacted]';
/** The characters of an argument's string, and of a key, the audit keeps (past it: `…[N more]`). */
const MAX_STRING = 300;
/**
 * The characters of one text the recognisers below read (a command, a path, a reason); past it the
 * text is cut, `…[N more characters; redaction reads 16384]`. With every recogniser linear this is
 * the bound on one text's work however long it is: a text of one recogniser's prefix repeated held
 * the gateway's one thread for seconds a few KB (round 26 review, review26p P1/P2; docs/threat-model.md
 * "Secrets in records", docs/performance.md "Round 26: redaction's worst case").
 */
export const MAX_REDACTED_TEXT = 16_384;
/** The characters of each string of a log record kept (docs/threat-model.md "Secrets in records"). */
export const MAX_LOG_STRING = 4096;

/**
 * What a key is in a record, remembered: its text with secrets redacted (`redactText`), and whether
 * it leaves its value as it is (not secret-named or `env`/`headers`, MARKED_KEY, and nothing in its
 * own text to redact). A tool's calls repeat the same few keys, and every key of every call's
 * arguments is looked at (round 18 review, L4 f; the plain test was MARKED_KEY's long alternation
 * every time, ~0.6k instructions a call: docs/performance.md "Round 23: 16 in flight"). Only keys of
 * up to MAX_REMEMBERED_KEY characters, at most 4,096 of them, emptied when full: a model may write a
 * key as long as a message, and 60 denied calls with one 4 MB key each held ~250 MB (round 24 review F7).
 */
const MAX_REMEMBERED_KEY = 256;
const MAX_REMEMBERED_KEYS = 4096;
interface KeyFacts {
  text: string;
  plain: boolean;
  /** A command's standard input (STDIN_KEY): a secret when the object's command reads one there. */
  stdin: boolean;
}
const keyFacts = new Map<string, KeyFacts>();
function factsOf(key: string): KeyFacts {
  let facts = keyFacts.get(key);
  if (facts === undefined) {
    // A key is cut as a value is (a model may write a key as long as a message; round 26 review P1).
    const text = key.length > MAX_STRING ? redactCut(key, MAX_STRING, `…[${key.length - MAX_STRING} more]`) : redactText(key);
    facts = { text, plain: text === key && !MARKED_KEY.test(key), stdin: STDIN_KEY.test(key) };
    if (key.length <= MAX_REMEMBERED_KEY) {
      if (keyFacts.size >= MAX_REMEMBERED_KEYS) keyFacts.clear();
      keyFacts.set(key, facts);
    }
  }
  return facts;
}

/** The characters of the keys remembered, for the test that they stay bounded (test/redact.test.ts). */
export const rememberedKeyChars = (): number => {
  let chars = 0;
  for (const key of keyFacts.keys()) chars += key.length;
  return chars;
};

/** A key longer than two cuts is looked at where the record shows it and where its name ends: its first and last MAX_STRING characters (round 26). */
function isSecretKey(key: string): boolean {
  return key.length <= 2 * MAX_STRING ? SECRET_KEY.test(key) : SECRET_KEY.test(key.slice(0, MAX_STRING)) || SECRET_KEY.test(key.slice(-MAX_STRING));
}

/**
 * A name in text whose value is a secret, by how it ends (`GITHUB_TOKEN`, `X-Api-Key`,
 * `X-Amz-Signature`, `DB_PASSWORD`, `client_secret`, `sig`), maybe then a suffix from a short list
 * (`SECRET_KEY_BASE`, `GITHUB_TOKEN_PROD`, `DB_PASSWORD_OLD`, `PASSWORD1`, `API_KEY_2`: round 18
 * review, L4): ends rather than contains, and a listed suffix rather than any, so `token_count` or
 * `author` are kept. `nonce` is for the approval page's one-time links (`?nonce=…`,
 * approval-page/link.ts; round 19). Round 32 (review S32-5): `jwt`, a personal access token's `pat`
 * as a word of its own (`GH_PAT`, not `compat`), and kubeconfig's `client-key-data` (a private
 * key, base64).
 */
const SECRET_NAME = /(?:token|secret|passw(?:or)?d|pwd|pass(?:phrase|code)?|key(?:[-_.]?data)?|sig(?:nature)?|auth(?:orization)?|credentials?|creds|cookie|session[-_.]?id|nonce|jwt|(?<![a-z0-9])pat)(?:[-_.]?(?:prod|production|dev|development|test|testing|live|old|new|base|stage|staging|qa|local|v?\d{1,3}))?$/i;

/**
 * Text that may hold something `redactText` replaces, in two tests. Every recogniser below needs one
 * of these characters or words: most strings (a message, a path, a sentence) have none and are
 * returned after this one test, a single character class V8 scans quickly; the audit runs it on
 * every string of every call's arguments (docs/performance.md "Round 12: redacting values").
 * Round 30 (review S30-1): `passw` and `bw ` for `bw unlock P`, `nmcli … password P`, `openssl
 * passwd P`, `passwd <<< P`, which have none of the others. Last, and not `nmcli`: put first, or
 * with `nmcli`, irregexp's scan of a text with none took ~1.5–2× as long (docs/performance.md
 * "Round 30: redaction's trigger"); round 31's words are a second test (PROSE_TRIGGER).
 */
const TRIGGER = /[=:@_-]|<\/|eyJ|[Bb]earer|BEARER|[Bb]asic|BASIC|A[BCKS][CI]A|AIza|ya29\.|SG\.|hv[sbr]\.|config|git[ \t]|hooks\.slack|passw|bw[ \t]/;
/**
 * Round 31 (review S31-3): the words of a secret in a sentence (PROSE: `Password is P`, `the secret
 * is P`, `api key K`, `my PIN is 4821`) and of two readers of one on stdin (`cryptsetup open D N <<<
 * P`, `echo P | kinit me`), none of which has a TRIGGER character. A second test, of a text TRIGGER
 * passed over, long enough to hold one (`pin is 1` is 8) and holding a blank, which every one of
 * these forms has after its word (a path or a name has none, and is not read again). In TRIGGER
 * the words cost every text ~50 instructions a character (its alternatives are tried at each
 * position); here ~20, on a text with a blank only, the blank looked for with `includes` (~260
 * instructions a path, a regular expression's test ~500; docs/performance.md "Round 31: redaction's prose").
 */
const PROSE_TRIGGER = /pass|secret|token|api[ \t]key|pin[ \t]|cryptsetup|kinit/i;
/**
 * Then one of the recognisers' own substrings, grouped by their first letter (case-insensitive). The
 * same alternatives as one flat list (`token|secret|pass|…`) cost ~11 ns a character of a text with a
 * trigger and none of them, the grouped ~4.4 (irregexp tries each top-level alternative at each
 * position: 79 then, 27 now; A/B in turns at load 23, docs/performance.md "Round 33: redaction's
 * candidates"). A new recogniser's word goes under its first letter.
 */
const CANDIDATE =
  /-----BEGIN|:\/\/[^\s/@]*@|[sr]k_|[?&#]code=|t(?:oken|wine|icket=|elegram\.org)|s(?:ecret|ig|ession|qlcmd|mb|udo|k-|G\.|hp(?:at|ss|ca|pa)_)|p(?:ass|wd|sk|ypi-|in[ \t_-]|at['"]?[ \t]*[=:]|rivate-lines)|k(?:ey|init)|a(?:uth|[BCKS][CI]A|Iza)|c(?:red|ookie|url|qlsh|ryptsetup)|b(?:earer|asic|cp|w[ \t])|m(?:ysql|ariadb|ongo|osquitto|l[st]_)|w(?:get|hsec_)|r(?:edis|pcclient|abbitmq)|l(?:ogin|dap|ftp|in_api_)|zip|7z|o(?:penssl|auth_verifier)|user(?:add|mod)|d(?:octl|ckr_pat_|o[opr]_v1_|iscord|api)|h(?:ttps?[ \t]|v[sbr]\.|f_|ooks\.slack)|x(?:hs?[ \t]|ox|app-)|g(?:h[pousr]_|ithub_pat_|lpat-|l[a-z]{2,5}-|ocspx-)|n(?:pm_|once)|ya29\.|eyJ|jwt/i;

/** PEM private keys (RFC 7468; OpenSSH's and OpenPGP's armour alike): the body to the END line, or to the end of a cut text. */
const PEM = /(-----BEGIN ([A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?)-----)[\s\S]*?(?:(-----END \2-----)|$)/g;
/**
 * RFC 3986 userinfo with a password: `scheme://user:password@`. The password runs to the authority's
 * last `@`: RFC 3986 wants an `@` in it percent-encoded, but the WHATWG URL parser (Node's URL,
 * node-postgres) and Python's urlsplit take the last `@` before the path for the end of the userinfo,
 * so `postgres://u:S3c@r3t@db/app` is the password `S3c@r3t` to them; until round 33 (review S33-2)
 * `r3t` was kept. Still linear: the run ends at a `/`, and every start has its `://`.
 */
const USERINFO = /\b([A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/)([^\s/?#@:'"]*):([^\s/?#'"]+)@/g;
/**
 * A URL's user name alone that is a token (round 30 review, S30-3): `https://TOKEN@github.com/o/r`
 * (GitHub's and Hugging Face's git over HTTPS take a token as the user name, no password). A user
 * name of 16 or more letters, digits, `_` and `-` with both a letter and a digit is taken for one;
 * `https://alice@host`, `ssh://git@host` and an email-like `user.name@` are kept.
 */
const USER_TOKEN = /\b((?:[A-Za-z][A-Za-z0-9+.-]{0,31}\+)?(?:https?|ftps?|wss?):\/\/)(?=[A-Za-z_-]{0,200}\d)(?=[\d_-]{0,200}[A-Za-z])([\w-]{16,200})@/g;
/** A name, maybe quoted, then `=` or `:`: each is looked at, and the value after a secret name replaced (see redactNamed). */
const NAMED = /(?<![\w.-])(\\?["']?)(-{0,2}[A-Za-z_][\w.-]{0,63})\1[ \t]{0,16}([:=])[ \t]*/g;
/**
 * Names that are a secret's as a URL's query or fragment parameter only (`?code=…`, `&ticket=…`):
 * OAuth 2.0's authorization code (RFC 6749 §4.1.2) and OAuth 1.0a's `oauth_verifier` (RFC 5849
 * §2.2), CAS's service `ticket`, when the value has 8 characters or more. As any other name (`exit
 * code=1`) they are kept (round 32 review, S32-5).
 */
const QUERY_SECRET = /^(?:code|oauth_verifier|ticket)$/i;
/** A shorter value of one of those is no credential (`?code=US`, a country's). */
const MIN_QUERY_SECRET = 8;
/** HTTP authentication schemes (RFC 9110 §11, IANA's registry): kept before the redacted credentials. */
const SCHEME = /^(?:Bearer|Basic|Digest|Token|Negotiate|NTLM|OAuth|HOBA|Mutual|SCRAM-SHA-\d+|AWS4-HMAC-SHA256)[ \t]+(?=\S)/i;
/** A long option with a secret name and its value as the next word: `--password hunter2`, `--api-key k` (a redirection, `--with-token <<< T`, is no value: redactStdin reads it). */
const LONG_OPTION = /(?<![\w-])(--[A-Za-z][\w-]{0,63})[ \t]+(?![-<>])("[^"\n]*"?|'[^'\n]*'?|[^\s'"]+)/g;
/**
 * Programs' own short password options, from each one's manual: the program, the option, and whether
 * the value is attached (`mysql -pX`: a space means "ask"), after a space, or either. A name is
 * followed by `\b` and the window after it, which takes the rest of `mariadb-dump`:
 * `mariadb[\w-]*` ran to the end of a text of `mariadb-` repeated from each of its starts and back,
 * quadratic (64 KB held the gateway 26 s; round 26 review, review26p P1).
 */
const PASSWORD_OPTIONS: ReadonlyArray<readonly [program: string, option: string, value: 'attached' | 'spaced' | 'either']> = [
  ['mysql\\w*|mariadb\\w*', 'p', 'attached'],
  ['sshpass', 'p', 'either'],
  ['redis-cli', 'a', 'spaced'],
  ['(?:docker|podman|nerdctl|buildah)[ \\t]+login', 'p', 'spaced'],
  ['zip|unzip|zipcloak', 'P', 'spaced'],
  ['7z[arz]?', 'p', 'attached'],
  ['ldap(?:search|add|modify|delete|modrdn|compare|whoami|passwd|exop)', 'w', 'spaced'],
  ['sqlcmd|bcp', 'P', 'either'],
  ['mongo(?:sh|dump|restore|export|import|stat|top|files)?', 'p', 'spaced'],
  // curl's short form of --cookie: the cookie's data (or the file it is read from).
  ['curl', 'b', 'either'],
  // The new and the old passphrase of a key (OpenSSH's ssh-keygen(1)).
  ['ssh-keygen', '[NP]', 'either'],
  // Round 29 (review P29-4), each from its manual: a keystore's and a key's passwords (the JDK's
  // keytool and jarsigner, `-new` keytool's new one), openssl enc's `-k` password and `-K` key (hex),
  // mosquitto's clients' `-P`, influx 1.x's `-password`, cqlsh's and twine's `-p`, useradd's and
  // usermod's `-p` (the encrypted password), doctl's `-t` token, and `gh secret set`'s `-b`/`--body`
  // (the secret's value).
  ['keytool|jarsigner', '(?:(?:src|dest)?(?:store|key)pass|new)', 'spaced'],
  ['openssl', '[kK]', 'spaced'],
  ['mosquitto_(?:pub|sub|rr)', 'P', 'spaced'],
  ['influx', 'password', 'spaced'],
  ['cqlsh|twine', 'p', 'spaced'],
  ['useradd|usermod', 'p', 'spaced'],
  ['doctl', 't', 'spaced'],
  ['gh[ \\t]+secret[ \\t]+set', '(?:b|-body)', 'either'],
];
/** From where a program's name, or its previous password option's value, ends: up to 200 characters of its words, then the option and its value. */
const passwordOption = (option: string, value: 'attached' | 'spaced' | 'either'): string =>
  `[^;&|\\n]{0,200}?\\s-${option}${value === 'attached' ? '' : value === 'spaced' ? '[ \\t]+' : '[ \\t]*'}`;
const PASSWORD_VALUE = `(?=[^\\s-])("[^"\\n]*"?|'[^'\\n]*'?|[^\\s'"]+)`;
const PASSWORD_P = new RegExp(`\\b((?:${PASSWORD_OPTIONS.map(([program, option, value]) => `(?:${program})\\b${passwordOption(option, value)}`).join('|')}))${PASSWORD_VALUE}`, 'g');
/**
 * Each program's name alone, and its password option read on from a value (sticky): `ssh-keygen -P
 * OLD -N NEW` has two, and PASSWORD_P, which needs the name before each, found only the first
 * (round 28; review P27-1's "Left").
 */
const PASSWORD_PROGRAMS: ReadonlyArray<{ name: RegExp; next: RegExp }> = PASSWORD_OPTIONS.map(([program, option, value]) => ({
  name: new RegExp(`^(?:${program})\\b`),
  next: new RegExp(`(${passwordOption(option, value)})${PASSWORD_VALUE}`, 'y'),
}));
/** Samba's clients take `-U user%password` (smbclient(1)): the password after the `%`. */
const SMB_USER = /(\b(?:smbclient|rpcclient|smbcacls|smbget|smbtree)\b[^;&|\n]{0,200}?\s(?:-U|--user)(?:[ \t]*|=)["']?)([^\s%'"]*)%([^\s'"]+)/g;
/**
 * `tool config set NAME VALUE`, `aws configure set NAME VALUE`, `git config --global NAME VALUE`:
 * a name then its value as the next word, no `=` between (NAMED needs one); the value replaced when
 * the name is a secret's (`sendemail.smtpPass`, `aws_secret_access_key`, `//registry/:_authToken`).
 * Before the name up to 6 options, those that take a value as the next word with it: git-config(1)'s
 * `-f FILE`/`--file FILE`, `--blob B`, `--type T`, `--default D`, `--comment C`, `--value V` (and
 * `--file=F`, `--global`, `--system`, `--local`, `--worktree`, `--add`, `--replace-all`, `--unset`
 * as any option), aws's `--profile P`, kubectl's `--kubeconfig F`, npm's `--location L`, gh's
 * `-h HOST`/`--host HOST` (round 19: `git config -f FILE NAME VALUE` took FILE for the name).
 * Not git's: GIT_CONFIG below reads `git config` as git does.
 */
const CONFIG_WORD = `(?:"[^"\\n]{0,200}"|'[^'\\n]{0,200}'|[^\\s;&|'"]{1,200})`;
const CONFIG_OPTIONS = `(?:(?:-f|--file|--blob|--type|--default|--comment|--value|--profile|--kubeconfig|--location|-h|--host)[ \\t]+${CONFIG_WORD}[ \\t]+|-[^\\s;&|'"=]{1,60}(?:=${CONFIG_WORD})?[ \\t]+){0,6}`;
const CONFIG_SET = new RegExp(`(?<!\\bgit(?:-|\\b[^;&|\\n]{0,200}?[ \\t]))(\\bconfig(?:ure)?[ \\t]+(?:set[ \\t]+)?${CONFIG_OPTIONS})([^\\s=;&|'"]{1,200})([ \\t]+)(?![-;&|])("[^"\\n]*"?|'[^'\\n]*'?|[^\\s'";&|]+)`, 'g');
/**
 * git-config(1) (git 2.46's `get`/`set`/`unset`/… subcommands and the older action options): git
 * reads options up to the name and every word after it as an operand (PARSE_OPT_STOP_AT_NON_OPTION
 * in builtin/config.c), a `-`-led word too. With a secret's name, every operand after it is a value
 * or a pattern matched against the value (`set NAME VALUE`, `NAME VALUE VALUE-PATTERN`, `--get NAME
 * VALUE-PATTERN`, `--replace-all NAME VALUE VALUE-PATTERN`), and so are `--value=PATTERN` and
 * `--default=VALUE`. Found where CONFIG_SET cannot: an option value it does not list (`-t T`, `--url
 * U`, an abbreviation git takes, `--typ T`), a pattern, a value led by `-`. Not values: `list`, `edit`,
 * `rename-section`, `remove-section`, `--get-color`, `--get-colorbool`, `--get-urlmatch`'s operands, `--comment`.
 */
const GIT_CONFIG = /\bgit(?:-config|\b[^;&|\n]{0,200}?[ \t]config)(?=[ \t])/g;
/** Long options that take a value (git-config(1)), and those that do not, for git's unique-prefix abbreviations. */
const GIT_CONFIG_VALUED = ['file', 'blob', 'type', 'default', 'comment', 'value', 'url'];
const GIT_CONFIG_FLAGS = ['global', 'system', 'local', 'worktree', 'includes', 'all', 'regexp', 'fixed-value', 'name-only', 'show-origin', 'show-scope', 'show-names', 'null', 'bool', 'int', 'bool-or-int', 'bool-or-str', 'path', 'expiry-date', 'append', 'replace-all', 'add', 'get', 'get-all', 'get-regexp', 'get-urlmatch', 'unset', 'unset-all', 'rename-section', 'remove-section', 'list', 'edit', 'get-color', 'get-colorbool'];
const GIT_CONFIG_SUBCOMMANDS: ReadonlySet<string> = new Set(['list', 'get', 'set', 'unset', 'rename-section', 'remove-section', 'edit']);
/** Modes whose operands are names, a colour slot, a URL: no value. */
const GIT_CONFIG_NO_VALUES: ReadonlySet<string> = new Set(['list', 'edit', 'rename-section', 'remove-section', 'get-color', 'get-colorbool', 'get-urlmatch']);
/** Words looked at after `config`: more than git-config(1) ever takes. */
const MAX_GIT_CONFIG_WORDS = 32;

/** An XML or HTML element named for a secret: `<password>…</password>` (Maven's settings.xml), `<apiToken>`. */
const ELEMENT = /<([A-Za-z_][\w.:-]{0,63})((?:\s[^<>]{0,200})?)>([^<]{1,4000})<\/\1>/g;
/**
 * Webhook URLs: the address is the credential (Slack incoming webhooks, Discord webhooks); round 33
 * (review S33-2), the Telegram Bot API's `https://api.telegram.org/bot<token>/METHOD` (and
 * `/file/bot<token>/PATH`), its token `123456:ABC-DEF…` in the path (core.telegram.org/bots/api,
 * "Making requests").
 */
const WEBHOOK = /(\bhooks\.slack\.com\/(?:services|workflows|triggers)\/|\bdiscord(?:app)?\.com\/api\/webhooks\/|\bapi\.telegram\.org\/(?:file\/)?bot)[\w\/:-]+/g;
/** HTTPie's (`http`, `https`) and xh's `-a user:password`, `--auth`: the password after the first colon (round 29). */
const HTTPIE_AUTH = /(\b(?:https?|xhs?)(?=[ \t])[^;&|\n]{0,200}?\s(?:-a|--auth)(?:[ \t]+|=)["']?)([^\s:'"]*):([^\s'"]+)/g;
/** lftp's `-u user,password` (lftp(1)): the password after the comma (round 29). */
const LFTP_USER = /(\blftp\b[^;&|\n]{0,200}?\s-u[ \t]+["']?)([^\s,'"]*),([^\s'"]+)/g;
/**
 * Passwords given as an operand, each from its manual (round 29, review P29-4): wpa_passphrase's
 * `SSID PASSPHRASE`, rabbitmqctl's `add_user|change_password|authenticate_user USER PASSWORD`,
 * Bitwarden's `bw unlock PASSWORD` and `bw login EMAIL PASSWORD`, nmcli's `password PSK` (and the
 * `wifi-sec.psk` setting), htpasswd's `-b [FILE] USER PASSWORD`; round 30, `openssl passwd [OPTIONS]
 * PASSWORD` (openssl-passwd(1): the password to hash).
 */
const OPERAND_WORD = `(?:"[^"\\n]{0,200}"|'[^'\\n]{0,200}'|[^\\s;&|'"]{1,200})`;
const OPERAND_PASSWORDS = new RegExp(
  `(\\bwpa_passphrase[ \\t]+${OPERAND_WORD}[ \\t]+|\\brabbitmqctl\\b[^;&|\\n]{0,200}?[ \\t](?:add_user|change_password|authenticate_user)[ \\t]+${OPERAND_WORD}[ \\t]+|\\bbw[ \\t]+(?:unlock|login[ \\t]+${OPERAND_WORD})[ \\t]+|\\bnmcli\\b[^;&|\\n]{0,200}?[ \\t](?:password|(?:wifi-sec|802-11-wireless-security)\\.psk)[ \\t]+|\\bhtpasswd[ \\t]+-[A-Za-z]*b[A-Za-z]*[ \\t]+(?:${OPERAND_WORD}[ \\t]+){1,2}|\\bopenssl[ \\t]+passwd(?:[ \\t]+(?:-(?:salt|in)[ \\t]+${OPERAND_WORD}|-[\\w-]{1,16}))*[ \\t]+)(?![-;&|])("[^"\\n]*"?|'[^'\\n]*'?|[^\\s'";&|]+)`,
  'g',
);
/** curl/wget `-u user:password`, `--user`, `--proxy-user` (`-U`): the password after the first colon. */
const USER_PASSWORD = /(\b(?:curl|wget)\b[^;&|\n]{0,200}?\s(?:-[uU]|--user|--proxy-user|--http-user)(?:[ \t]+|=)["']?)([^\s:'"]*):([^\s'"]+)/g;
/** RFC 6750 Bearer credentials (token68), and RFC 7617 Basic ones (base64 of `user:password`). */
const BEARER = /\b(Bearer)[ \t]+([A-Za-z0-9\-._~+/]+=*)/gi;
const BASIC = /\b(Basic)[ \t]+([A-Za-z0-9+/]+=*)/gi;
/**
 * Token shapes, each from its issuer's documentation; the prefix is kept (`ghp_[redacted]`):
 * GitHub (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`), GitLab (`glpat-`), AWS access key
 * IDs (`AKIA`, `ASIA`, `ABIA`, `ACCA` + 16), Slack (`xoxb-`, `xoxp-`, `xoxa-`, `xoxr-`, `xoxe-`,
 * `xoxs-`, `xapp-`), OpenAI and Anthropic (`sk-`, `sk-proj-`, `sk-ant-…`), Stripe (`sk_live_`,
 * `rk_test_` …), Google API keys (`AIza` + 35), npm (`npm_` + 36), Docker Hub (`dckr_pat_`), Shopify
 * (`shpat_`, `shpss_`, `shpca_`, `shppa_`), DigitalOcean (`dop_v1_`, `doo_v1_`, `dor_v1_`); Hugging
 * Face (`hf_` + letters and digits, so `hf_hub_download` is kept), PyPI (`pypi-` + 40 or more),
 * Google OAuth access tokens (`ya29.`), SendGrid (`SG.` + 22 `.` + 43), HashiCorp Vault (`hvs.`,
 * `hvb.`, `hvr.`; round 29); round 32 (review S32-5): GitLab's other tokens (`gloas-`, `gldt-`, `glrt-`,
 * `glcbt-`, `glptt-`, `glft-`, `glimt-`, `glagent-`, `glsoat-`, `glffct-`: its "Token prefixes"), Stripe
 * webhook secrets (`whsec_`), Google OAuth client secrets (`GOCSPX-`), age identities
 * (`AGE-SECRET-KEY-1` + bech32); round 33 (review S33-2): Databricks personal access tokens (`dapi` +
 * 32 hex, an Azure workspace's with `-N`), Linear API keys (`lin_api_`); and the gateway's own team
 * tokens (`mlt_`, team/identity.ts newToken) and an HTTP run's secret (`mls_`, team/local-secret.ts;
 * round 19).
 */
const TOKEN_SHAPES = /(?<![\w-])(?:(gh[pousr]_|github_pat_|ml[st]_|gl(?:pat|oas|dt|rt|cbt|ptt|ft|imt|agent|soat|ffct)-|whsec_|GOCSPX-|xox[abeprs]-|xapp-|sk-(?:ant-(?:api|admin)\d\d-|proj-|svcacct-|admin-)?|[sr]k_(?:live|test)_|npm_|AIza|dckr_pat_|shp(?:at|ss|ca|pa)_|do[opr]_v1_)[A-Za-z0-9_-]{8,}|(hf_)[A-Za-z0-9]{16,}|(pypi-)[\w-]{40,}|(ya29\.)[\w-][\w.-]{19,}|(SG\.)[\w-]{16,32}\.[\w-]{16,64}|(hv[sbr]\.)[\w-]{20,}|(AGE-SECRET-KEY-1)[02-9AC-HJ-NP-Z]{20,}|(dapi)[0-9a-f]{32}(?:-\d{1,2})?|(lin_api_)[A-Za-z0-9]{32,})(?![\w\-[])|\b(AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g;
/**
 * A secret named in a sentence (round 31 review S31-3): `my password is P`, `the secret was "P Q"`,
 * `api key is K`, `my PIN is 4821`, `use token T`, `-H 'X-Api-Key K'`. NAMED needs `=` or `:` after the
 * name, and these have none. The word, maybe plural, then `is`/`was`/`are`/`were` (maybe `:`) and
 * the value, which is replaced unless it is an English word saying something of the secret
 * (`the token is expired`, `the password is not set`: PROSE_KEPT); or the word then the value alone,
 * replaced only when it looks like a credential (PROSE_BARE: a digit, a letter, and 16 or more
 * characters or both cases in 8 or more), so `token count`, `secret generic`, `the password file`,
 * a Kubernetes secret's name `db-secret1` are kept. Over-redaction is preferred to a leak
 * (docs/threat-model.md "Secrets in records").
 */
const PROSE = /\b((?:pass(?:word|wd|phrase|code)|pwd|secret|token|api[ _-]?key|access[ _-]?key|pin(?:[ _-]?code)?)s?(?:[ \t]+(?:is|was|are|were)(?:[ \t]*:)?)?[ \t]+)(?![-<>|;&#]|\[redacted)("[^"\n]{1,200}"|'[^'\n]{1,200}'|[^\s'"<>|;&]{1,200})/gi;
/** Words after `is` that say something of the secret rather than being it. */
const PROSE_KEPT: ReadonlySet<string> = new Set(['a', 'an', 'the', 'not', 'no', 'now', 'still', 'also', 'only', 'just', 'too', 'very', 'being', 'been', 'set', 'unset', 'in', 'at', 'on', 'of', 'for', 'from', 'to', 'by', 'with', 'and', 'or', 'but', 'that', 'this', 'it', 'its', 'your', 'my', 'his', 'her', 'their', 'our', 'same', 'different', 'wrong', 'right', 'correct', 'incorrect', 'invalid', 'valid', 'weak', 'strong', 'empty', 'blank', 'required', 'optional', 'missing', 'unknown', 'null', 'none', 'nil', 'undefined', 'ok', 'okay', 'fine', 'good', 'bad', 'new', 'old', 'long', 'short', 'high', 'low', 'true', 'false', 'yes', 'here', 'there', 'below', 'above', 'secret', 'safe', 'unsafe', 'public', 'private', 'hidden', 'shown', 'visible', 'stored', 'saved', 'kept', 'case-sensitive', 'redacted', 'out', 'up', 'off', 'down', 'over', 'gone', 'used', 'unused', 'due']);
/** A word after `is` that is English (`expired`, `missing`, `likely`) rather than a value. */
const PROSE_ENGLISH = /^[a-z]{2,}(?:ed|ing|ly|able|ible)$/;
/** A value standing alone after the word: a credential's look (a digit and a letter; 16 or more characters, or both cases in 8 or more). */
const PROSE_BARE = /^(?=[^\d]*\d)(?=[^A-Za-z]*[A-Za-z])(?:[^\s]{16,}|(?=[^a-z]*[a-z])(?=[^A-Z]*[A-Z])[^\s]{8,})$/;
/** Punctuation that ends a sentence's value and is kept after it. */
const PROSE_TRAILING = /[.,;:!?)\]]+$/;

/** PROSE's replacement: the value replaced (its quotes and trailing punctuation kept) when it is one. */
function proseRedacted(all: string, before: string, value: string): string {
  const quote = value[0] === '"' || value[0] === "'" ? value[0] : '';
  const trailing = quote === '' ? (PROSE_TRAILING.exec(value)?.[0] ?? '') : '';
  const word = quote === '' ? value.slice(0, value.length - trailing.length) : value;
  if (word === '' || word.includes(REDACTED.slice(0, -1))) return all;
  const stated = /[ \t](?:is|was|are|were)(?:[ \t]*:)?[ \t]+$/i.test(before);
  if (stated ? quote === '' && (PROSE_KEPT.has(word.toLowerCase()) || PROSE_ENGLISH.test(word)) : quote !== '' || !PROSE_BARE.test(word)) return all;
  return `${before}${quote === '' ? REDACTED : quoted(value)}${trailing}`;
}

/**
 * A header given to curl or HTTPie without its colon, `-H 'X-Api-Key K'`, `--header "X-Auth-Token T"`
 * (curl sends no such header, but the text holds the secret; round 31 review S31-3): the rest of
 * the quoted header after a secret's name.
 */
const HEADER_SPACED = /((?:^|[ \t])(?:-H|--header)(?:[ \t]+|=)(["']))([A-Za-z][\w-]{0,63})([ \t]+)([^"'\n]+)\2/g;

/**
 * A PuTTY private key file (PPK, versions 2 and 3): its `Private-Lines: N` header, then N lines of
 * base64, the private key, unencrypted with `Encryption: none` (round 32 review, S32-5). PEM's
 * BEGIN/END lines are not there.
 */
const PPK_PRIVATE = /(Private-Lines:[ \t]*\d{1,4}[ \t]*\r?\n)((?:[A-Za-z0-9+/=]+(?:\r?\n|$))+)/g;

/** A JSON Web Token (RFC 7519: base64url of `{"…` is `eyJ`), whole or cut after its payload. */
const JWT = /(?<![\w-])eyJ[\w-]*\.eyJ[\w-]*(?:\.[\w-]*)?/g;

/**
 * `text` with the secrets it holds replaced, keeping what they were (`Bearer [redacted]`,
 * `https://user:[redacted]@host`, `GITHUB_TOKEN=[redacted]`, `ghp_[redacted]`); `text` itself when
 * there are none.
 */
export function redactText(text: string): string {
  // A record's field that is no text (a path without its real path) is kept as it is, as before the bound: the audit must not fail on it.
  if (typeof text !== 'string') return text;
  if (text.length > MAX_REDACTED_TEXT) return redactCut(text, MAX_REDACTED_TEXT, `…[${text.length - MAX_REDACTED_TEXT} more characters; redaction reads ${MAX_REDACTED_TEXT}]`);
  return redactRead(text);
}

/** redactText of a text the caller bounds: the window redactedStart reads past a cut. */
function redactRead(text: string): string {
  if ((!TRIGGER.test(text) && (text.length < 8 || !(text.includes(' ') || text.includes('\t')) || !PROSE_TRIGGER.test(text))) || !CANDIDATE.test(text)) return text;
  // sh removes a backslash-newline before it reads words, so `git config \<newline> user.password V`
  // sets V: a text that holds one is redacted as sh reads it, and recorded so (round 20 review,
  // review-diff20 D3: the readings below took the continuation for a word and kept V in clear).
  if (text.includes('\\\n')) {
    const joined = text.replace(LINE_CONTINUATION, '');
    const redacted = redactJoined(joined);
    if (redacted !== joined) return redacted;
  }
  return redactJoined(text);
}

/**
 * `text` cut to `limit` characters and redacted (redactedStart), then `marker` (what was cut, and
 * the limit); `text` redacted when it is not longer.
 */
export function redactCut(text: string, limit: number, marker: string): string {
  return text.length <= limit ? redactText(text) : `${redactedStart(text, limit)}${marker}`;
}

/**
 * How far past a cut the word it splits is read, what after that word (a closing tag, `@host`),
 * and what before it (the context of `scheme://user:`, `Basic`, a token's own prefix): a word the
 * cut splits is shown up to the cut only when this stretch around it has nothing replaced up to the
 * cut (round 27).
 */
const SPLIT_WORD_READ = 1024;
const AFTER_SPLIT_WORD = 80;
const BEFORE_SPLIT_WORD = 600;
/**
 * Before a word, what makes it a secret by what comes after it (a URL's password by its `@`, a Basic
 * credential by a `:` in what it decodes to): a split word longer than SPLIT_WORD_READ after one of
 * these is not shown, its end unread.
 */
const SECRET_BY_WHAT_FOLLOWS = /(?:[A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/[^\s/?#@:'"]*:|\bBasic[ \t]+)$/i;
/** An element's open tag and its value so far, up to a split word (ELEMENT's value: 4,000 characters). */
const ELEMENT_OPEN = /^<([A-Za-z_][\w.:-]{0,63})(?:\s[^<>]{0,200})?>[^<]*$/;

/**
 * The first `limit` characters of `text` (longer than `limit`), redacted. The word the cut splits
 * (cutAtWord) may be the start of a secret no recogniser knows once cut (`ghp_0123`, a `user:pass`
 * without its `@`, half a `Basic` credential, `<password>hunt`): it is shown up to the cut only
 * when the stretch around it — BEFORE_SPLIT_WORD characters before it, the word to its end (at most
 * SPLIT_WORD_READ past the cut) and AFTER_SPLIT_WORD after it — read and redacted, has nothing
 * replaced up to the cut, and it is not inside an element named for a secret (whose end tag may be
 * 4,000 characters on), nor, when longer than SPLIT_WORD_READ, after `scheme://user:` or `Basic`;
 * otherwise it is replaced with `[redacted]` (fail closed). The recognisers that know a secret by
 * what follows it (a URL's `@`, a Basic credential's `:`, an element's end tag, a token's length)
 * read no further back than these; the others know a value from what precedes it, and the cut text
 * itself is redacted as before. Until round 27 the word was replaced always, so a value or key of
 * one word longer than the cut was recorded `[redacted]` whole (a long URL path, base64 data, a long
 * name). The stretch costs one more reading of at most ~1,700 characters.
 */
export function redactedStart(text: string, limit: number): string {
  const start = splitWordStart(text, limit);
  // Not half of a character past U+FFFF (round 32 review S32-2; src/code-points.ts).
  const kept = head(text, limit);
  if (start === -1) return redactText(kept);
  let end = limit;
  while (end < text.length && end < limit + SPLIT_WORD_READ && !WORD_END.has(text[end]!)) end += 1;
  const whole = end === text.length || WORD_END.has(text[end]!);
  const from = Math.max(0, start - BEFORE_SPLIT_WORD);
  if ((whole || !SECRET_BY_WHAT_FOLLOWS.test(text.slice(from, start))) && !insideSecretElement(text, start)) {
    const stretch = redactRead(text.slice(from, whole ? Math.min(text.length, end + AFTER_SPLIT_WORD) : end));
    if (stretch.startsWith(text.slice(from, limit))) return redactText(kept);
  }
  return redactText(`${text.slice(0, start)}${REDACTED}`);
}

/** Whether `text` at `at` is inside the value of an element named for a secret (ELEMENT: `<password>…`). */
function insideSecretElement(text: string, at: number): boolean {
  const open = text.lastIndexOf('<', at - 1);
  if (open === -1 || at - open > 4400) return false;
  const tag = ELEMENT_OPEN.exec(text.slice(open, at));
  return tag !== null && tag[1] !== 'key' && SECRET_NAME.test(tag[1]!);
}

/**
 * The first `limit` characters of `text`, the word a cut splits replaced with `[redacted]`: it may be
 * the start of a secret no recogniser knows once cut (`ghp_0123`, a `user:pass` without its `@`, half
 * a `Basic` credential). A server's stderr line is cut so before it is logged; redactedStart shows
 * the word when the text read on says it is no secret.
 */
export function cutAtWord(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const start = splitWordStart(text, limit);
  return start === -1 ? text.slice(0, limit) : `${text.slice(0, start)}${REDACTED}`;
}

/** Where the word a cut of `text` at `limit` splits begins, or -1 when the cut is at a word's end. */
function splitWordStart(text: string, limit: number): number {
  if (WORD_END.has(text[limit]!) || WORD_END.has(text[limit - 1]!)) return -1;
  let start = limit;
  while (start > 0 && !WORD_END.has(text[start - 1]!)) start -= 1;
  return start;
}

/** What ends a word for cutAtWord: white space, quotes, the shell's and JSON's punctuation, and a name's `=` or `:`. */
const WORD_END: ReadonlySet<string> = new Set([' ', '\t', '\n', '\r', '\f', '\v', '"', "'", '`', ',', ';', '&', '|', '<', '>', '(', ')', '[', ']', '{', '}', '=', ':']);

/** A backslash-newline, which sh removes before reading words (POSIX 2.2.1; inside double quotes too). */
const LINE_CONTINUATION = /\\\n/g;

/** redactText for a text whose line continuations, if any, count as written. */
function redactJoined(text: string): string {
  let out = text;
  if (out.includes('-----BEGIN')) out = out.replace(PEM, (_all, begin: string, _label, end: string | undefined) => `${begin}${REDACTED}${end ?? ''}`);
  out = out.replace(USERINFO, `$1$2:${REDACTED}@`);
  if (out.includes('Private-Lines:')) out = out.replace(PPK_PRIVATE, (_all, head: string, body: string) => `${head}${REDACTED}${body.endsWith('\n') ? '\n' : ''}`);
  if (STDIN_WORDS.some((word) => out.includes(word))) out = redactStdin(out);
  if (out.includes('GIT_CONFIG_VALUE_')) out = redactGitConfigEnvironment(out);
  out = redactNamed(out);
  if (out.includes('</')) out = out.replace(ELEMENT, (all, name: string, attributes: string, value: string) => (name !== 'key' && SECRET_NAME.test(name) && value !== REDACTED ? `<${name}${attributes}>${REDACTED}</${name}>` : all));
  if (out.includes('git')) out = redactGitConfig(out);
  out = out.replace(CONFIG_SET, (all, before: string, name: string, space: string, value: string) => (SECRET_NAME.test(name) && !value.startsWith(REDACTED) ? `${before}${name}${space}${quoted(value)}` : all));
  out = out.replace(LONG_OPTION, (all, option: string, value: string) => (option !== '--key' && SECRET_NAME.test(option) && !value.startsWith('[redacted]') ? `${option} ${quoted(value)}` : all));
  out = redactPasswordOptions(out);
  out = out.replace(USER_PASSWORD, `$1$2:${REDACTED}`);
  out = out.replace(SMB_USER, `$1$2%${REDACTED}`);
  out = out.replace(HTTPIE_AUTH, `$1$2:${REDACTED}`);
  out = out.replace(LFTP_USER, `$1$2,${REDACTED}`);
  out = out.replace(OPERAND_PASSWORDS, (all, before: string, value: string) => (value.startsWith(REDACTED) ? all : `${before}${quoted(value)}`));
  if (out.includes('-H') || out.includes('--header')) out = out.replace(HEADER_SPACED, (all, before: string, quote: string, name: string, space: string, value: string) => (SECRET_NAME.test(name) && !value.startsWith(REDACTED) ? `${before}${name}${space}${REDACTED}${quote}` : all));
  out = out.replace(WEBHOOK, `$1${REDACTED}`);
  out = out.replace(BEARER, `$1 ${REDACTED}`);
  out = out.replace(BASIC, (all, scheme: string, credentials: string) => (Buffer.from(credentials, 'base64').toString('latin1').includes(':') ? `${scheme} ${REDACTED}` : all));
  out = out.replace(TOKEN_SHAPES, (_all, ...groups: unknown[]) => `${groups.find((group) => typeof group === 'string') as string}${REDACTED}`);
  out = out.replace(JWT, '[redacted JWT]');
  // After the shapes: a known token keeps its prefix (`https://ghs_[redacted]@`).
  if (out.includes('@')) out = out.replace(USER_TOKEN, `$1${REDACTED}@`);
  // Last: a value a recogniser above knows keeps what it shows (`token is xoxp-[redacted]`).
  return out.replace(PROSE, proseRedacted);
}

/**
 * Programs that read a password or token on standard input, each from its manual (round 30 review,
 * S30-2): `docker|podman|nerdctl|buildah|skopeo|oras|helm registry login --password-stdin`, `gh auth
 * login --with-token`, `gh secret set NAME` (its value from stdin without `--body`), `docker secret
 * create NAME -`, `wrangler secret put NAME`, `sudo -S`/`--stdin`, `passwd --stdin`, `chpasswd`,
 * `smbpasswd -s`, `htpasswd -i`, `vault login -`, `openssl … -pass[in|out] stdin|fd:0`, `gpg
 * --passphrase-fd 0`, `cryptsetup` (a passphrase from stdin when it is no terminal); round 31, MIT
 * Kerberos' `kinit` (its prompter reads the password from stdin: `echo P | kinit user`).
 */
const STDIN_READER = /\b(?:(?:docker|podman|nerdctl|buildah|skopeo|oras|helm[ \t]+registry)\b[^;&|\n]{0,200}?[ \t]--password-stdin|gh[ \t]+auth[ \t]+login\b[^;&|\n]{0,200}?[ \t]--with-token|(?:gh|wrangler)[ \t]+secret[ \t]+(?:set|put)\b|docker[ \t]+secret[ \t]+create\b|sudo\b[^;&|\n]{0,200}?[ \t](?:-[A-Za-z]*S|--stdin)|(?<![\w./-])passwd\b|chpasswd\b|smbpasswd\b[^;&|\n]{0,200}?[ \t]-[A-Za-z]*s|htpasswd\b[^;&|\n]{0,200}?[ \t]-[A-Za-z]*i|vault[ \t]+login\b[^;&|\n]{0,200}?[ \t]-(?![^\s;&|])|openssl\b[^;&|\n]{0,200}?[ \t]-pass(?:in|out)?[ \t]+(?:stdin|fd:0)|gpg2?\b[^;&|\n]{0,200}?[ \t]--passphrase-fd[ \t=]+0|cryptsetup\b|kinit\b)/g;
/** What feeds a pipeline: a here-string's word, a here-document's operator (its delimiter), `echo`/`printf` before a `|`. */
const HERE_STRING = /<<<[ \t]*("[^"\n]*"?|'[^'\n]*'?|[^\s'";&|<>]+)/g;
const HERE_DOC = /<<(-?)[ \t]*(["']?)([\w.-]{1,64})\2/g;
const ECHOED = /^[ \t]*(?:(?:builtin|command)[ \t]+)?(echo|printf)((?:[ \t]+-[neE]{1,3})*)(?=[ \t])/;
/** Here-documents read after one pipeline: more are cut, the rest of the text replaced (fail closed). */
const MAX_HERE_DOCS = 8;

/**
 * A secret fed on standard input to a program that reads one (STDIN_READER): in the reader's pipeline
 * (up to `;`, `&`, `&&`, `||` or a line's end), each here-string's word, each here-document's body and
 * what an `echo`/`printf` before a `|` writes (`echo P | docker login --password-stdin`, `sudo -S cmd
 * <<< P`, `cat <<EOF | chpasswd`). Until round 30 these had no name or option next to them and were
 * written to the audit in clear.
 */
function redactStdin(text: string): string {
  STDIN_READER.lastIndex = 0;
  let match = STDIN_READER.exec(text);
  if (match === null) return text;
  let out = '';
  let copied = 0;
  while (match !== null) {
    const start = pipelineStart(text, match.index, copied);
    const end = pipelineEnd(text, match.index + match[0].length);
    const pipeline = text.slice(start, end);
    let redacted = pipeline.replace(HERE_STRING, (all, word: string) => (word.replace(/^["']/, '').startsWith(REDACTED) ? all : `<<< ${quoted(word)}`));
    redacted = redacted.split(/(?<!\|)\|(?![|&])/).map(echoedRedacted).join('|');
    out += text.slice(copied, start) + redacted;
    copied = end;
    const bodies = hereDocBodies(pipeline, text, end);
    if (bodies !== null) {
      out += text.slice(copied, bodies.start) + (bodies.start < bodies.end ? `${REDACTED}${text[bodies.end - 1] === '\n' ? '\n' : ''}` : '');
      copied = bodies.end;
    }
    STDIN_READER.lastIndex = Math.max(copied, STDIN_READER.lastIndex);
    match = STDIN_READER.exec(text);
  }
  return out + text.slice(copied);
}

/** One of these is in every STDIN_READER match: a text with none is not read for it. */
const STDIN_WORDS = ['pass', 'token', 'secret', 'sudo', 'login', 'cryptsetup', 'kinit'];
/** The same, for a test: does a command read a secret on stdin. */
const READS_STDIN_SECRET = new RegExp(STDIN_READER.source);
/** Tools' arguments that are a command's standard input (subjects/profiles.ts: mcp-server-commands' `stdin`, `stdinText`, `input`). */
const STDIN_KEY = /^(?:stdin(?:[-_]?text)?|input)$/i;

/**
 * Whether an object's `stdin`-like key (STDIN_KEY) is a secret: another of its values (a `command`, a
 * `command_line`, an `argv` list) is a command that reads one there (STDIN_READER), as
 * `{command: "docker login -u me --password-stdin", stdin: "P"}` to mcp-server-commands' run_command
 * (round 30 review, S30-2).
 */
function stdinIsSecret(object: object): boolean {
  let keys = 0;
  for (const key in object) {
    if (++keys > 64) return true;
    if (STDIN_KEY.test(key)) continue;
    const item = (object as Record<string, unknown>)[key];
    const text = typeof item === 'string' ? item.slice(0, MAX_REDACTED_TEXT) : Array.isArray(item) ? item.slice(0, 50).filter((word) => typeof word === 'string').map((word: string) => word.slice(0, MAX_STRING)).join(' ') : null;
    if (text !== null && READS_STDIN_SECRET.test(text)) return true;
  }
  return false;
}

/** A pipeline's part led by `echo`/`printf` with what it writes replaced, its options kept. */
function echoedRedacted(part: string): string {
  const echo = ECHOED.exec(part);
  if (echo === null) return part;
  const rest = part.slice(echo[0].length);
  const trailing = /[ \t]*$/.exec(rest)![0];
  const words = rest.slice(0, rest.length - trailing.length).trim();
  if (words === '' || words === REDACTED) return part;
  return `${echo[0]} ${REDACTED}${trailing === '' ? ' ' : trailing}`;
}

/** Where the pipeline holding `at` begins: after the last `;`, `&`, `||` or line end before it (not before `floor`). */
function pipelineStart(text: string, at: number, floor: number): number {
  for (let index = at - 1; index >= floor; index--) {
    const c = text[index];
    if (c === ';' || c === '\n' || (c === '&' && text[index - 1] !== '|' && text[index - 1] !== '>' && text[index + 1] !== '>') || (c === '|' && text[index - 1] === '|')) return index + 1;
  }
  return floor;
}

/** Where the pipeline from `at` ends: at the next `;`, `&`, `||` or line end. */
function pipelineEnd(text: string, at: number): number {
  for (let index = at; index < text.length; index++) {
    const c = text[index];
    if (c === ';' || c === '\n' || (c === '&' && text[index - 1] !== '|' && text[index - 1] !== '>' && text[index + 1] !== '>') || (c === '|' && text[index + 1] === '|')) return index;
  }
  return text.length;
}

/**
 * The here-documents a pipeline opens, read as sh reads them (POSIX 2.7.4): the bodies in order from
 * the line after the operators, each to a line that is its delimiter (after tabs for `<<-`); the
 * span of all of them, or null when it opens none. One left open runs to the end of the text.
 */
function hereDocBodies(pipeline: string, text: string, end: number): { start: number; end: number } | null {
  const delimiters = [...pipeline.matchAll(HERE_DOC)].filter((doc) => pipeline[doc.index + 2] !== '<' && pipeline[doc.index - 1] !== '<');
  if (delimiters.length === 0) return null;
  const lineEnd = text.indexOf('\n', end);
  if (lineEnd === -1) return null;
  let at = lineEnd + 1;
  for (const [index, doc] of delimiters.entries()) {
    if (index >= MAX_HERE_DOCS) return { start: lineEnd + 1, end: text.length };
    const strip = doc[1] === '-';
    const delimiter = doc[3]!;
    let found = false;
    while (at < text.length) {
      const next = text.indexOf('\n', at);
      const line = text.slice(at, next === -1 ? text.length : next);
      at = next === -1 ? text.length : next + 1;
      if ((strip ? line.replace(/^\t+/, '') : line) === delimiter) {
        found = true;
        break;
      }
    }
    if (!found) return { start: lineEnd + 1, end: text.length };
  }
  // The span ends before the last delimiter's line: the bodies (and the earlier delimiters) replaced as one.
  const last = text.lastIndexOf('\n', at - 2);
  return { start: lineEnd + 1, end: Math.max(lineEnd + 1, last + 1) };
}

/**
 * The programs' short password options (PASSWORD_OPTIONS), every one of a command: after a value is
 * replaced, the same program's next option is looked for from there, as far as its first one may be
 * from its name.
 */
function redactPasswordOptions(text: string): string {
  PASSWORD_P.lastIndex = 0;
  let match = PASSWORD_P.exec(text);
  if (match === null) return text;
  let out = '';
  let last = 0;
  while (match !== null) {
    out += `${text.slice(last, match.index)}${match[1]!}${quoted(match[2]!)}`;
    last = match.index + match[0].length;
    const next = PASSWORD_PROGRAMS.find((program) => program.name.test(match![1]!))?.next;
    for (let more = next !== undefined; more; ) {
      next!.lastIndex = last;
      const option = next!.exec(text);
      more = option !== null;
      if (option !== null) {
        out += `${option[1]!}${quoted(option[2]!)}`;
        last = next!.lastIndex;
      }
    }
    PASSWORD_P.lastIndex = last;
    match = PASSWORD_P.exec(text);
  }
  return out + text.slice(last);
}

/** A shell word of a text: where it is, and its text with the quotes removed. */
interface TextWord {
  start: number;
  end: number;
  raw: string;
  value: string;
}

/** The words from `from` to the end of the command (`;`, `&`, `|`, a newline), at most `max`. */
function shellWords(text: string, from: number, max: number): TextWord[] {
  const words: TextWord[] = [];
  let at = from;
  while (words.length < max) {
    while (text[at] === ' ' || text[at] === '\t') at++;
    if (at >= text.length || ';&|\n'.includes(text[at]!)) break;
    const start = at;
    let value = '';
    while (at < text.length && !' \t;&|\n'.includes(text[at]!)) {
      const c = text[at]!;
      // A run of plain characters at once, not one concatenation a character.
      if (!'"\'\\'.includes(c)) {
        PLAIN_RUN.lastIndex = at;
        PLAIN_RUN.test(text);
        value += text.slice(at, PLAIN_RUN.lastIndex);
        at = PLAIN_RUN.lastIndex;
      } else if (c === '"' || c === "'") {
        // To the closing quote, or the line's end for one left open.
        let close = at + 1;
        while (close < text.length && text[close] !== c && text[close] !== '\n') close += c === '"' && text[close] === '\\' ? 2 : 1;
        value += text.slice(at + 1, Math.min(close, text.length));
        at = text[close] === c ? close + 1 : Math.min(close, text.length);
      } else if (c === '\\' && at + 1 < text.length) {
        value += text[at + 1];
        at += 2;
      } else {
        value += c;
        at += 1;
      }
    }
    words.push({ start, end: at, raw: text.slice(start, at), value });
  }
  return words;
}

/** Characters of a shell word that are themselves (no quote, backslash or word's end). */
const PLAIN_RUN = /[^ \t;&|\n"'\\]+/y;

/** A long option of git config as git reads it: exact, or the one option the prefix names; null when unknown, `ambiguous` when it names several. */
function gitConfigOption(given: string): string | null {
  if (given.startsWith('no-')) return 'no';
  if (GIT_CONFIG_VALUED.includes(given) || GIT_CONFIG_FLAGS.includes(given)) return given;
  const named = [...GIT_CONFIG_VALUED, ...GIT_CONFIG_FLAGS].filter((option) => given !== '' && option.startsWith(given));
  return named.length === 1 ? named[0]! : named.length > 1 ? 'ambiguous' : null;
}

/** `git` as a command word (not `x-git`, `a.git`), for a `config` spelled with quotes or backslashes after it. */
const GIT_WORD = /(?<![\w.-])git(?=[ \t])/g;
/** Words of git's own options looked at before `config` (`-C DIR`, `-c NAME=VALUE`, `--git-dir=D`…). */
const MAX_GIT_OPTION_WORDS = 16;

/**
 * `GIT_CONFIG_KEY_<n>=NAME … GIT_CONFIG_VALUE_<n>=VALUE` (git-config(1), ENVIRONMENT: git reads the
 * pairs as `-c NAME=VALUE`) with VALUE replaced when NAME is a secret's. The key's own word was
 * taken for a secret's value (`…_KEY`) and VALUE kept in clear (round 21 review, review-diff21 R2).
 */
function redactGitConfigEnvironment(text: string): string {
  const secret = new Set<string>();
  // A `GIT_CONFIG_KEY_<n>=` inside the word read for another is part of that one's name (sh assigns
  // the first only): it is given that name's verdict, not read again to the word's end. Read again,
  // a word of `GIT_CONFIG_KEY_1=` repeated was read from each, quadratic (round 26 review P1's family).
  let wordEnd = -1;
  let wordSecret = false;
  for (const match of text.matchAll(GIT_CONFIG_ENV_KEY)) {
    const at = match.index + match[0].length;
    if (match.index < wordEnd) {
      if (wordSecret) secret.add(match[1]!);
      continue;
    }
    const word = text[at] === undefined || ' \t;&|\n'.includes(text[at]!) ? undefined : shellWords(text, at, 1)[0];
    wordEnd = word?.end ?? -1;
    wordSecret = word !== undefined && SECRET_NAME.test(word.value);
    if (wordSecret) secret.add(match[1]!);
  }
  if (secret.size === 0) return text;
  let out = '';
  let copied = 0;
  wordEnd = -1;
  for (const match of text.matchAll(GIT_CONFIG_ENV_VALUE)) {
    const at = match.index + match[0].length;
    // Inside a value word read already (replaced, or `[redacted]` as it is): nothing more to read.
    if (!secret.has(match[1]!) || match.index < wordEnd || at < copied || text[at] === undefined || ' \t;&|\n'.includes(text[at]!)) continue;
    const word = shellWords(text, at, 1)[0]!;
    wordEnd = word.end;
    if (ALREADY_REDACTED.has(word.raw)) continue;
    out += `${text.slice(copied, word.start)}${quoted(word.raw)}`;
    copied = word.end;
  }
  return out + text.slice(copied);
}

/** A word that is a redacted value already, as redactNamed leaves one. */
const ALREADY_REDACTED: ReadonlySet<string> = new Set([REDACTED, `"${REDACTED}"`, `"${REDACTED}`, `'${REDACTED}'`, `'${REDACTED}`]);

const GIT_CONFIG_ENV_KEY = /\bGIT_CONFIG_KEY_(\d+)=/g;
const GIT_CONFIG_ENV_VALUE = /\bGIT_CONFIG_VALUE_(\d+)=/g;

/** Each `git config` command of `text` with the values of a secret's name replaced (see GIT_CONFIG). */
function redactGitConfig(text: string): string {
  const replaced: Array<[start: number, end: number]> = [];
  GIT_CONFIG.lastIndex = 0;
  for (let match = GIT_CONFIG.exec(text); match !== null; match = GIT_CONFIG.exec(text)) {
    const words = shellWords(text, match.index + match[0].length, MAX_GIT_CONFIG_WORDS);
    replaced.push(...gitConfigValues(words));
    if (words.length > 0) GIT_CONFIG.lastIndex = Math.max(GIT_CONFIG.lastIndex, words[words.length - 1]!.end);
  }
  // `git 'config'`, `git "config"`, `git con\fig`, `git c''onfig`: sh reads `config`, GIT_CONFIG above
  // only the word as written (round 21 review, review-diff21 R2: the secret went to the audit).
  GIT_WORD.lastIndex = 0;
  let previous: TextWord[] = [];
  for (let match = GIT_WORD.exec(text); match !== null; match = GIT_WORD.exec(text)) {
    // The options' words first, the operands' only after a `config` written otherwise; a `git` that
    // is one of the words just read goes on from them. Every `git` of a text is read from: 48 words
    // from each of `git ` repeated cost ~40 ms a 16 KB text (round 26, docs/performance.md).
    const from = match.index + match[0].length;
    const seen = previous.findIndex((word) => word.start === match.index && word.end === from);
    const options =
      seen === -1 ? shellWords(text, from, MAX_GIT_OPTION_WORDS) : [...previous.slice(seen + 1), ...(previous.length < MAX_GIT_OPTION_WORDS ? [] : shellWords(text, previous[previous.length - 1]!.end, seen + 1))];
    previous = options;
    const at = options.findIndex((word) => word.value === 'config');
    if (at === -1 || options[at]!.raw === 'config') continue;
    const operands = shellWords(text, options[at]!.end, MAX_GIT_CONFIG_WORDS);
    replaced.push(...gitConfigValues(operands));
    // A `git` among the operands is one (as GIT_CONFIG's loop above).
    GIT_WORD.lastIndex = Math.max(GIT_WORD.lastIndex, operands.length > 0 ? operands[operands.length - 1]!.end : options[at]!.end);
  }
  if (replaced.length === 0) return text;
  let out = '';
  let copied = 0;
  for (const [start, end] of replaced.sort((a, b) => a[0] - b[0])) {
    if (start < copied) continue;
    const raw = text.slice(start, end);
    if (raw === REDACTED || raw.startsWith(`"${REDACTED}`) || raw.startsWith(`'${REDACTED}`)) continue;
    out += `${text.slice(copied, start)}${quoted(raw)}`;
    copied = end;
  }
  return out + text.slice(copied);
}

/** The spans of `words` (after `config`) that hold a secret's value or value pattern. */
function gitConfigValues(words: readonly TextWord[]): Array<[number, number]> {
  let mode: string | null = null;
  const patterns: Array<[number, number]> = [];
  // An abbreviation git finds ambiguous ends the command with an error; its word may be a value or not.
  let unsure = false;
  let at = 0;
  for (; at < words.length; at++) {
    const { value, start, end } = words[at]!;
    if (value === '--') {
      at += 1;
      break;
    }
    if (mode === null && at === 0 && GIT_CONFIG_SUBCOMMANDS.has(value)) {
      mode = value;
      continue;
    }
    if (value.length < 2 || value[0] !== '-') {
      // `git config --global set …`: the subcommand after an option.
      if (mode === null && GIT_CONFIG_SUBCOMMANDS.has(value) && words[at + 1] !== undefined && !words[at + 1]!.value.startsWith('-')) {
        mode = value;
        continue;
      }
      break;
    }
    if (value.startsWith('--')) {
      const eq = value.indexOf('=');
      const option = gitConfigOption(value.slice(2, eq === -1 ? undefined : eq));
      if (option === 'ambiguous') {
        unsure = true;
        continue;
      }
      if (option === null || option === 'no' || !GIT_CONFIG_VALUED.includes(option)) {
        if (option !== null && GIT_CONFIG_NO_VALUES.has(option)) mode ??= option;
        continue;
      }
      // The option's value: after `=` (the whole word when the name is quoted), else the next word.
      const rawEq = words[at]!.raw.indexOf('=');
      const span: [number, number] | null = eq !== -1 ? (/^[\w-]+$/.test(words[at]!.raw.slice(0, rawEq)) ? [start + rawEq + 1, end] : [start, end]) : words[at + 1] ? [words[at + 1]!.start, words[at + 1]!.end] : null;
      if (eq === -1) at += 1;
      if (span && (option === 'value' || option === 'default')) patterns.push(span);
      continue;
    }
    // Short options: `-f FILE` and `-t TYPE` take a value (attached or the next word), `-l`, `-e`, `-z` do not.
    for (let k = 1; k < value.length; k++) {
      if (value[k] === 'l') mode ??= 'list';
      if (value[k] === 'e') mode ??= 'edit';
      if (value[k] === 'f' || value[k] === 't') {
        if (k === value.length - 1) at += 1;
        break;
      }
    }
  }
  const name = words[at];
  if (name === undefined || (mode !== null && GIT_CONFIG_NO_VALUES.has(mode))) return [];
  if (SECRET_NAME.test(name.value)) return [...patterns, ...words.slice(at + 1).map((word): [number, number] => [word.start, word.end])];
  // Unsure whether the word was the ambiguous option's value: the next may be the name.
  const next = words[at + 1];
  if (unsure && next !== undefined && SECRET_NAME.test(next.value)) return [...patterns, ...words.slice(at + 2).map((word): [number, number] => [word.start, word.end])];
  return [];
}

/** `[redacted]` in the quotes `value` had. */
function quoted(value: string): string {
  const quote = value[0] === '"' || value[0] === "'" ? value[0] : '';
  return `${quote}${REDACTED}${quote && value.length > 1 && value.endsWith(quote) ? quote : ''}`;
}

/**
 * `name=value` and `name: value` where the name is a secret's (SECRET_NAME): environment and shell
 * assignments, `.env` lines, query parameters, HTTP header lines, YAML and JSON text. A quoted value
 * is replaced inside its quotes; after `:` the rest of the line (a header's value has spaces) up to
 * a quote; after `=` the word. An HTTP authentication scheme is kept (`Authorization: Bearer [redacted]`).
 * Names are looked at one after the other, so a pair inside a value that is not a secret's
 * (`https://h/x?token=…`) is found too.
 */
function redactNamed(text: string): string {
  NAMED.lastIndex = 0;
  let out = '';
  let copied = 0;
  for (let match = NAMED.exec(text); match !== null; match = NAMED.exec(text)) {
    const [whole, , name, separator] = match as unknown as [string, string, string, string];
    let start = match.index + whole.length;
    // `https://…`: a scheme, not a name.
    const queried = !SECRET_NAME.test(name);
    if ((queried && !(separator === '=' && QUERY_SECRET.test(name) && QUERY_START.has(text[match.index - 1]!))) || (separator === ':' && text.startsWith('//', start))) continue;
    const scheme = SCHEME.exec(text.slice(start, start + 40));
    if (scheme) start += scheme[0].length;
    const end = valueEnd(text, start, separator);
    if (end === start || text.startsWith(REDACTED, start) || (queried && end - start < MIN_QUERY_SECRET)) continue;
    const quote = text.startsWith('\\"', start) ? '\\"' : text[start] === '"' || text[start] === "'" ? text[start]! : '';
    const closed = quote !== '' && end - start > quote.length && text.startsWith(quote, end - quote.length);
    out += `${text.slice(copied, start)}${quote}${REDACTED}${closed ? quote : ''}`;
    copied = end;
    NAMED.lastIndex = Math.max(NAMED.lastIndex, end);
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** What stands before a query or fragment parameter's name. */
const QUERY_START: ReadonlySet<string> = new Set(['?', '&', '#']);

/** Where the value starting at `start` ends: its closing quote, else the line (after `:`) or the word (after `=`). */
function valueEnd(text: string, start: number, separator: string): number {
  const quote = text.startsWith('\\"', start) ? '\\"' : text[start] === '"' || text[start] === "'" ? text[start]! : null;
  if (quote !== null) {
    // One pass to the closing quote or the line's end, whichever comes first: looking for the line's
    // end first scanned to the end of a text without one at every match, quadratic on a key of
    // `"secret": "` repeated (4 MB held the gateway 21 s; round 25 review R16).
    let at = start + quote.length;
    while (at < text.length && text[at] !== '\n') {
      if (quote === '"' && text[at] === '\\' && text[at + 1] !== '\n') at += 2;
      else if (text.startsWith(quote, at)) return at + quote.length;
      else at += 1;
    }
    return Math.min(at, text.length);
  }
  const stop = separator === ':' ? /[\r\n'"`]/g : /[\s'"`&;|<>)]/g;
  stop.lastIndex = start;
  const found = stop.exec(text);
  let end = found ? found.index : text.length;
  // A JSON-escaped quote (`\"`) ends the value too.
  if (end > start && text[end - 1] === '\\' && text[end] === '"') end -= 1;
  while (separator === ':' && end > start && /[ \t]/.test(text[end - 1]!)) end -= 1;
  return end;
}

/**
 * A copy with secrets replaced (above) and long strings shortened (file contents, scripts): what
 * the audit records of arguments. Plain data with nothing to replace is returned as it is, not
 * copied: nearly every call's arguments, and the copy was made for every audited call.
 */
export function redactSecrets(value: unknown): unknown {
  return keptAsIs(value, 0) ? value : redactedCopy(value, 0);
}

/** True when the copy would serialise as `value` does: plain data, nothing to redact, no long string, not too deep. */
function keptAsIs(value: unknown, depth: number): boolean {
  if (depth > 8) return false;
  if (typeof value === 'string') return value.length <= MAX_STRING && redactText(value) === value;
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) {
    if (value.length > 50) return false;
    for (let index = 0; index < value.length; index++) if (!keptAsIs(value[index], depth + 1)) return false;
    return argvRedacted(value, null) === null;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  const keys = Object.keys(value);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    const facts = factsOf(key);
    // The copy drops an own `__proto__` key (assigning it sets the copy's prototype).
    if (key === '__proto__' || !facts.plain || (key === 'value' && secretPair(value)) || (facts.stdin && stdinIsSecret(value)) || !keptAsIs((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  const program = (value as { command?: unknown }).command;
  for (let index = 0; index < keys.length; index++) {
    const item = (value as Record<string, unknown>)[keys[index]!];
    if (typeof program === 'string' && Array.isArray(item) && argvRedacted(item, program) !== null) return false;
  }
  return true;
}

/**
 * A program's words given as a list (`["mysql", "--password", "x"]`, or `args` beside a `command`,
 * as command servers and MCP configs take them) redacted as the same words in one text are: each
 * word read after the program and the word before it, so `--password x`, `--api-key x` and
 * `redis-cli -a x` lose their value, also behind a wrapper (WORDS_BEFORE). Null when no word
 * changes. `program`: the `command` beside the list, else its first word. Until round 27 only a word's own text was looked at, and a secret
 * after an option word was written to the audit in clear (review P27-1).
 */
/**
 * The words before each that argvRedacted reads it after (besides the program): enough for a wrapper
 * and its operands before the program whose option it is (`docker exec db redis-cli -a PW`,
 * `timeout 5 redis-cli -a PW`, `sudo sshpass -p PW`). Until round 28 only the word before was read,
 * so such a password was written to the audit in clear (round 28 review, P28-2).
 */
const WORDS_BEFORE = 6;

function argvRedacted(words: readonly unknown[], program: string | null): unknown[] | null {
  let out: unknown[] | null = null;
  const first = program ?? words[0];
  if (typeof first !== 'string') return null;
  const start = program === null ? 1 : 0;
  for (let index = start; index < words.length; index++) {
    const word = words[index];
    if (typeof word !== 'string' || word.length > MAX_STRING) continue;
    const head = `${first.slice(0, MAX_STRING)} `;
    const previous = index > start ? words[index - 1] : null;
    // After the word before it (a second password option of one program is read so: `-N a -P b`),
    // and after the words before that too (a wrapper's: `sudo redis-cli -a x`).
    let read = wordAfter(`${head}${typeof previous === 'string' ? `${previous.slice(-MAX_STRING)} ` : ''}`, word);
    if (read === null && index - start > 1) {
      let before = head;
      for (let at = Math.max(start, index - WORDS_BEFORE); at < index; at++) {
        const earlier = words[at];
        if (typeof earlier === 'string') before += `${earlier.slice(-MAX_STRING)} `;
      }
      read = wordAfter(before, word);
    }
    if (read === null) continue;
    out ??= words.slice();
    out[index] = read;
  }
  return out;
}

/** `word` redacted as it reads after `before` (redactText), or null when it is unchanged. */
function wordAfter(before: string, word: string): string | null {
  const read = redactText(before + word);
  if (read.endsWith(` ${word}`)) return null;
  return read.startsWith(before) ? read.slice(before.length) : REDACTED;
}

/** `{name: "GITHUB_TOKEN", value: …}`, `{key: "Authorization", value: …}`: a pair whose value is a secret. */
function secretPair(object: object): boolean {
  const name = (object as { name?: unknown }).name ?? (object as { key?: unknown }).key;
  // SECRET_NAME matches at the end, at most ~30 characters: the last 64 are all it reads.
  return typeof name === 'string' && (SECRET_NAME.test(name.length > 64 ? name.slice(-64) : name) || isSecretKey(name));
}

function redactedCopy(value: unknown, depth: number): unknown {
  if (depth > 8) return '[nested]';
  if (typeof value === 'string') return redactCut(value, MAX_STRING, `…[${value.length - MAX_STRING} more]`);
  if (Array.isArray(value)) return wordsCopy(value, null, depth);
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    const pair = secretPair(value);
    const program = (value as { command?: unknown }).command;
    let numbers: Map<string, number> | null = null;
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      // A key is data too: `{"ghp_…": true}` (round 18 review, L4).
      const facts = factsOf(key);
      let name = facts.text;
      if (Object.hasOwn(copy, name)) name = numbered(copy, name, (numbers ??= new Map()));
      if (Array.isArray(item) && typeof program === 'string' && !isSecretKey(key) && !ALL_VALUES.test(key)) {
        copy[name] = wordsCopy(item, program, depth + 1);
        continue;
      }
      if (isSecretKey(key) || (pair && key === 'value') || (facts.stdin && typeof item === 'string' && stdinIsSecret(value))) copy[name] = REDACTED;
      else if (ALL_VALUES.test(key) && typeof item === 'object' && item !== null) copy[name] = everyValue(item, depth + 1);
      else copy[name] = redactedCopy(item, depth + 1);
    }
    return copy;
  }
  return value;
}

/** A list's copy: its first 50 items, a program's words among them read together (argvRedacted). */
function wordsCopy(list: readonly unknown[], program: string | null, depth: number): unknown[] {
  const words = list.slice(0, 50);
  const read = argvRedacted(words, program) ?? words;
  return read.map((item, index) => (item !== words[index] ? item : redactedCopy(item, depth + 1)));
}

/**
 * An `env` or `headers` object or list with every value replaced and the names kept: object keys,
 * the `name`/`key` of a pair, and the name of a `NAME=value` or `Name: value` line.
 */
function everyValue(value: unknown, depth: number): unknown {
  if (depth > 8) return '[nested]';
  if (Array.isArray(value)) return value.slice(0, 50).map((item) => everyValue(item, depth + 1));
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      copy[key] = (key === 'name' || key === 'key') && typeof item === 'string' ? redactedCopy(item, depth + 1) : everyValue(item, depth + 1);
    }
    return copy;
  }
  if (typeof value === 'string') {
    const named = /^[A-Za-z_][\w.-]*[ \t]*[:=][ \t]*/.exec(value);
    return named ? `${named[0]}${REDACTED}` : REDACTED;
  }
  return value === null || value === undefined ? value : REDACTED;
}

/**
 * A log record with secret-looking keys replaced, every value under `env` or `headers` (a server's
 * config), and the secrets inside its strings (redactText). Only plain objects and arrays are
 * copied, and errors: `serializeError` (pino's own, from log.ts) makes each the record pino would
 * write (type, message and stack with their causes), and that is redacted; until round 19 an error
 * was passed on as it was and its message and stack written in clear. Each string is cut to
 * MAX_LOG_STRING characters first (round 26 review P2: a server's stderr line was redacted whole). The
 * message is the gateway's own sentence and is not changed.
 */
export function redactLogRecord(record: Record<string, unknown>, serializeError?: (error: Error) => unknown): Record<string, unknown> {
  return redactKeys(record, 0, false, serializeError) as Record<string, unknown>;
}

function redactKeys(value: unknown, depth: number, all: boolean, serializeError: ((error: Error) => unknown) | undefined): unknown {
  // Past the depth nothing is looked at, so nothing is written (as the audit's redactedCopy; round 18 review, L10).
  if (depth > 8) return '[nested]';
  if (typeof value === 'string') return redactCut(value, MAX_LOG_STRING, `…[${value.length - MAX_LOG_STRING} more characters; the log keeps ${MAX_LOG_STRING} of a string]`);
  if (Array.isArray(value)) return value.map((item) => redactKeys(item, depth + 1, false, serializeError));
  // Its own fields in a plain object: pino's record of an error has a prototype of its own.
  if (value instanceof Error && serializeError) return redactKeys({ ...(serializeError(value) as object) }, depth, false, undefined);
  if (!isPlainObject(value) || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const copy: Record<string, unknown> = {};
  let numbers: Map<string, number> | null = null;
  for (const [key, item] of Object.entries(value)) {
    let name = factsOf(key).text;
    if (Object.hasOwn(copy, name)) name = numbered(copy, name, (numbers ??= new Map()));
    copy[name] = all || isSecretKey(key) ? REDACTED : redactKeys(item, depth + 1, ALL_VALUES.test(key), serializeError);
  }
  return copy;
}

/**
 * A key's redacted text that the copy holds already, numbered: `GITHUB_TOKEN=[redacted] (2)`,
 * `[redacted]…[100 more] (3)`. The copy is keyed by each key's redacted text, and two keys redacted
 * alike — that differ only in a secret (`ghp_…`, `TOKEN=…`) or in the part of a cut word that is
 * replaced (two keys of one word of one length) — were one key, the later's value in the former's
 * place, the other value lost (round 27; docs/threat-model.md "Secrets in records"). `numbers` keeps
 * the last number given to each text, so many keys alike cost one step each.
 */
function numbered(copy: Record<string, unknown>, name: string, numbers: Map<string, number>): string {
  let number = numbers.get(name) ?? 1;
  let candidate: string;
  do candidate = `${name} (${++number})`;
  while (Object.hasOwn(copy, candidate));
  numbers.set(name, number);
  return candidate;
}
