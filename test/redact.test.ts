import { describe, expect, test } from 'vitest';
import { cutAtWord, MAX_LOG_STRING, MAX_REDACTED_TEXT, redactedStart, redactLogRecord, redactSecrets, redactText, rememberedKeyChars } from '../src/redact.js';
import { hostileTexts, LITERALS } from './fixtures/hostile-texts.mjs';

/**
 * Secrets inside values (round 11 review of the surfaces, finding 14: the audit redacted by key
 * name only). Each example is the one its format's documentation gives, or built to its stated
 * shape; what is kept is what the record needs to stay useful (docs/threat-model.md "Secrets in records").
 */
describe('redactText: secrets inside a string', () => {
  const cases: Array<[source: string, text: string, recorded: string]> = [
    // RFC 6750 §2.1's example.
    ['RFC 6750 Bearer', 'Authorization: Bearer mF_9.B5f-4.1JqM', 'Authorization: Bearer [redacted]'],
    ['RFC 6750 Bearer alone', 'use Bearer mF_9.B5f-4.1JqM here', 'use Bearer [redacted] here'],
    // RFC 7617 §2: Aladdin / open sesame.
    ['RFC 7617 Basic', 'Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==', 'Authorization: Basic [redacted]'],
    ['RFC 7617 Basic alone', 'send Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ== to it', 'send Basic [redacted] to it'],
    ['a word after Basic that is no user:password', 'Basic usage of the tool', 'Basic usage of the tool'],
    ['curl -H, single quotes', "curl -H 'Authorization: Bearer sk-live-123' https://api.example.com", "curl -H 'Authorization: Bearer [redacted]' https://api.example.com"],
    ['a header named for a key', 'curl -H "X-Api-Key: abc123" https://api.example.com', 'curl -H "X-Api-Key: [redacted]" https://api.example.com'],
    ['Cookie header', 'Cookie: sid=31d4d96e407aad42; lang=en', 'Cookie: [redacted]'],
    // RFC 3986 §3.2.1 userinfo (`user:password` is deprecated there, and still sent).
    ['URL userinfo', 'fetch https://user:hunter2@host.example/x', 'fetch https://user:[redacted]@host.example/x'],
    ['URL userinfo of a database', 'postgres://app:pw0rd@db:5432/app', 'postgres://app:[redacted]@db:5432/app'],
    ['a port is no password', 'https://example.com:8080/path', 'https://example.com:8080/path'],
    // Azure Storage SAS (sig), AWS SigV4 query authentication (X-Amz-Signature, X-Amz-Credential).
    ['SAS sig', 'https://a.blob.core.windows.net/c/b?sv=2019-02-02&se=2026-01-01&sig=abc%2Bdef%3D', 'https://a.blob.core.windows.net/c/b?sv=2019-02-02&se=2026-01-01&sig=[redacted]'],
    ['SigV4 query', 'https://b.s3.amazonaws.com/k?X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835', 'https://b.s3.amazonaws.com/k?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]'],
    ['access_token query parameter', 'GET /v1/me?access_token=EAAB1234&fields=id', 'GET /v1/me?access_token=[redacted]&fields=id'],
    // Shell: assignments, options, and the clients that take a password attached.
    ['export', 'export GITHUB_TOKEN=0123abcd; gh repo list', 'export GITHUB_TOKEN=[redacted]; gh repo list'],
    ['assignment before a command', 'PGPASSWORD=s3cret psql -h db', 'PGPASSWORD=[redacted] psql -h db'],
    ['quoted assignment', `export API_KEY="a b c" && run`, `export API_KEY="[redacted]" && run`],
    ['a .env file', 'OPENAI_API_KEY=abc\nDEBUG=1\n', 'OPENAI_API_KEY=[redacted]\nDEBUG=1\n'],
    ['--password=', 'mysqldump --password=s3cret db', 'mysqldump --password=[redacted] db'],
    ['--token VALUE', 'docker login --password hunter2 -u me', 'docker login --password [redacted] -u me'],
    // mysql(1): "-p[password] … no space between the option and the password"; a space means ask.
    ['mysql -pPASSWORD', 'mysql -u root -pmypass db', 'mysql -u root -p[redacted] db'],
    ['mysql -p (asks)', 'mysql -u root -p db', 'mysql -u root -p db'],
    ['sshpass -p', 'sshpass -p s3cret ssh host', 'sshpass -p [redacted] ssh host'],
    // curl(1) -u user:password.
    ['curl -u', 'curl -u user:secret https://example.com', 'curl -u user:[redacted] https://example.com'],
    ['-u of another program', 'docker run -u 1000:1000 img', 'docker run -u 1000:1000 img'],
    ['YAML', 'db:\n  password: hunter2\n  user: app', 'db:\n  password: [redacted]\n  user: app'],
    ['JSON text', '{"password": "hunter2", "user": "me"}', '{"password": "[redacted]", "user": "me"}'],
    ['JSON text in JSON text', '{\\"token\\":\\"abc\\"}', '{\\"token\\":\\"[redacted]\\"}'],
    // AWS: "AKIAIOSFODNN7EXAMPLE" / "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" (IAM user guide's examples).
    ['AWS access key ID', 'key AKIAIOSFODNN7EXAMPLE here', 'key AKIA[redacted] here'],
    ['AWS secret access key, by its name', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'aws_secret_access_key = [redacted]'],
    // GitHub: prefix + 36 base62 characters; fine-grained github_pat_ + 82.
    ['GitHub classic token', 'ghp_0123456789abcdefghijABCDEFGHIJ012345', 'ghp_[redacted]'],
    ['GitHub token in a clone URL', 'git clone https://ghs_0123456789abcdefghijABCDEFGHIJ012345@github.com/o/r', 'git clone https://ghs_[redacted]@github.com/o/r'],
    ['GitHub fine-grained token', `token github_pat_11ABCDEFG0123456789abc_${'x'.repeat(59)}`, 'token github_pat_[redacted]'],
    ['Slack bot token', 'xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy', 'xoxb-[redacted]'],
    ['Slack user token', 'token is xoxp-1234567890-1234567890-1234567890-abcdef0123456789', 'token is xoxp-[redacted]'],
    ['OpenAI project key', 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789', 'sk-proj-[redacted]'],
    ['Anthropic key', 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789-AA', 'sk-ant-api03-[redacted]'],
    ['Stripe secret key', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc', 'sk_live_[redacted]'],
    ['GitLab token', 'glpat-xxxxxxxxxxxxxxxxxxxx', 'glpat-[redacted]'],
    ['Google API key', 'AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe', 'AIza[redacted]'],
    // RFC 7519 §3.1's example JWT.
    ['JWT', 'eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', '[redacted JWT]'],
    // RFC 7468 §10's private key, and OpenSSH's armour; a block cut short is redacted to the end.
    ['PEM private key', '-----BEGIN PRIVATE KEY-----\nMIGEAgEAMBAGByqGSM49AgEGBSuBBAAKBG0wawIBAQQgVcB/UNPxalR9zDYAjQIf\n-----END PRIVATE KEY-----\nafter', '-----BEGIN PRIVATE KEY-----[redacted]-----END PRIVATE KEY-----\nafter'],
    ['OpenSSH key, cut', 'cat > k <<E\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA', 'cat > k <<E\n-----BEGIN OPENSSH PRIVATE KEY-----[redacted]'],
    ['a public key is kept', '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----', '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----'],
    ['words that only contain a name', 'the author wrote token_count=5', 'the author wrote token_count=5'],
    // Round 18 review, L4 (a): a secret word then a suffix from a short list; other suffixes kept.
    ['Rails SECRET_KEY_BASE', 'SECRET_KEY_BASE=9f3a0c1d2e', 'SECRET_KEY_BASE=[redacted]'],
    ['names with a suffix in a .env', 'GITHUB_TOKEN_PROD=a1\nDB_PASSWORD_OLD=a2\nPASSWORD1=a3\nAPI_KEY_2=a4\nSTRIPE_SECRET_KEY_LIVE=a5\nAPI_KEY_V2=a6\nREGION=eu\n', 'GITHUB_TOKEN_PROD=[redacted]\nDB_PASSWORD_OLD=[redacted]\nPASSWORD1=[redacted]\nAPI_KEY_2=[redacted]\nSTRIPE_SECRET_KEY_LIVE=[redacted]\nAPI_KEY_V2=[redacted]\nREGION=eu\n'],
    ['suffixes not on the list are kept', 'token_count=5 author=me key_id=k1 AWS_ACCESS_KEY_ID=x1 password_file=/p', 'token_count=5 author=me key_id=k1 AWS_ACCESS_KEY_ID=x1 password_file=/p'],
    // (b) XML elements named for a secret (Maven's settings.xml).
    ['XML elements', '<server><id>x</id><username>u</username><password>hunter2</password><apiToken>t0k</apiToken></server>', '<server><id>x</id><username>u</username><password>[redacted]</password><apiToken>[redacted]</apiToken></server>'],
    ['an XML element with attributes', '<secret type="a">s3</secret>', '<secret type="a">[redacted]</secret>'],
    ["a plist's <key> names a value and is kept", '<key>Label</key><string>x</string>', '<key>Label</key><string>x</string>'],
    // (c) a name and its value as the next word.
    ['aws configure set', 'aws configure set aws_secret_access_key wJalrXUtnFEMI', 'aws configure set aws_secret_access_key [redacted]'],
    ['git config --global', 'git config --global user.password hunter2', 'git config --global user.password [redacted]'],
    ['git config, no option', 'git config user.password "a b"', 'git config user.password "[redacted]"'],
    ['npm config set', 'npm config set //registry.npmjs.org/:_authToken npmT0k', 'npm config set //registry.npmjs.org/:_authToken [redacted]'],
    ['git config user.name is kept', 'git config user.name "Ada Lovelace" && git config --global user.email a@b.c', 'git config user.name "Ada Lovelace" && git config --global user.email a@b.c'],
    ['reading a config value is kept', 'git config --get user.password', 'git config --get user.password'],
    // Round 19: every form git-config(1) takes a name and a value in, with its options before the name
    // (`-f FILE` took FILE for the name, and the value was kept). `sendemail.smtpPass` is git's own.
    ['git config -f FILE', 'git config -f ~/.gitconfig.local sendemail.smtpPass hunter2', 'git config -f ~/.gitconfig.local sendemail.smtpPass [redacted]'],
    ['git config --file FILE', 'git config --file .git/config user.password hunter2', 'git config --file .git/config user.password [redacted]'],
    ['git config --file=FILE', 'git config --file=.git/config user.password hunter2', 'git config --file=.git/config user.password [redacted]'],
    ['git config --system --add', 'git config --system --add sendemail.smtpPass hunter2', 'git config --system --add sendemail.smtpPass [redacted]'],
    // The value-pattern matches the old value (git-config(1): "only the existing values that match the pattern are updated"): the old secret.
    ['git config --local --replace-all', 'git config --local --replace-all sendemail.smtpPass hunter2 old-pattern', 'git config --local --replace-all sendemail.smtpPass [redacted] [redacted]'],
    ['git config -f FILE --type T --replace-all', 'git config -f "my cfg" --type string --replace-all user.password "a b"', 'git config -f "my cfg" --type string --replace-all user.password "[redacted]"'],
    ['git config set --global', 'git config set --global sendemail.smtpPass hunter2', 'git config set --global sendemail.smtpPass [redacted]'],
    ['git config set --file F --comment C', `git config set --file F --comment 'rotated monthly' --value=old sendemail.smtpPass hunter2`, `git config set --file F --comment 'rotated monthly' --value=[redacted] sendemail.smtpPass [redacted]`],
    ['git -C DIR config --worktree', 'git -C repo config --worktree user.password hunter2 && git push', 'git -C repo config --worktree user.password [redacted] && git push'],
    ['git config -f FILE user.name is kept', 'git config -f F user.name "Ada Lovelace"; git config -f F --get sendemail.smtpPass', 'git config -f F user.name "Ada Lovelace"; git config -f F --get sendemail.smtpPass'],
    ['aws configure set --profile P', 'aws configure set --profile prod aws_secret_access_key wJalrXUtnFEMI', 'aws configure set --profile prod aws_secret_access_key [redacted]'],
    ['gh config set -h HOST', 'gh config set -h github.com oauth_token gho_x1', 'gh config set -h github.com oauth_token [redacted]'],
    // Round 20: git-config(1)'s subcommands (git 2.46) and every option it lists. Options come
    // before the name and every word after it is an operand (builtin/config.c parses with
    // PARSE_OPT_STOP_AT_NON_OPTION); `--value=PATTERN` matches the value ("match only against
    // <pattern>"), `--default` is one ("behave as if <value> were the value assigned").
    ['git config get --value=PATTERN', 'git config get --value=hunter2 user.password', 'git config get --value=[redacted] user.password'],
    ['git config get --value PATTERN', 'git config get --all --fixed-value --value hunter2 sendemail.smtpPass', 'git config get --all --fixed-value --value [redacted] sendemail.smtpPass'],
    ['git config get --value="A B"', 'git config get --value="a b" user.password', 'git config get --value="[redacted]" user.password'],
    ['git config get --default=VALUE', 'git config get --show-origin --default=hunter2 user.password', 'git config get --show-origin --default=[redacted] user.password'],
    ['git config get --url URL --default VALUE', 'git config get --url https://example.com --default hunter2 http.token', 'git config get --url https://example.com --default [redacted] http.token'],
    ['git config unset --value=PATTERN', 'git config unset --all --value=hunter2 user.password', 'git config unset --all --value=[redacted] user.password'],
    ['git config set --value=OLD --all', 'git config set --value=old --all sendemail.smtpPass new', 'git config set --value=[redacted] --all sendemail.smtpPass [redacted]'],
    ['git config set -t TYPE (short --type)', 'git config set -t string user.password hunter2', 'git config set -t string user.password [redacted]'],
    ['git config -tTYPE', 'git config -tstring user.password hunter2', 'git config -tstring user.password [redacted]'],
    ['git config -zf FILE', 'git config -zf F user.password hunter2', 'git config -zf F user.password [redacted]'],
    ["git config --typ TYPE (git takes a unique prefix)", 'git config --typ string user.password hunter2', 'git config --typ string user.password [redacted]'],
    ['git config --defa VALUE --get', 'git config --defa hunter2 --get user.password', 'git config --defa [redacted] --get user.password'],
    ['git config --get NAME VALUE-PATTERN', 'git config --get-all user.password hunter2', 'git config --get-all user.password [redacted]'],
    ['git config --unset NAME VALUE-PATTERN', 'git config --unset-all sendemail.smtpPass hunter2', 'git config --unset-all sendemail.smtpPass [redacted]'],
    ['git config NAME VALUE VALUE-PATTERN', 'git config user.password new old', 'git config user.password [redacted] [redacted]'],
    ['a value led by -', 'git config user.password -hunter2-', 'git config user.password [redacted]'],
    ['git config -- NAME VALUE', 'git config --global -- user.password hunter2', 'git config --global -- user.password [redacted]'],
    ['git-config, the dashed form', 'git-config set user.password hunter2', 'git-config set user.password [redacted]'],
    ['git config get --value=V of a name that is no secret is kept', 'git config get --value=Ada user.name && git config set --value=main --all init.defaultBranch trunk', 'git config get --value=Ada user.name && git config set --value=main --all init.defaultBranch trunk'],
    ['--comment and --file are kept', `git config set --comment 'pass rotated' --file token.key user.name Ada`, `git config set --comment 'pass rotated' --file token.key user.name Ada`],
    ['section names are kept', 'git config rename-section sendemail.token sendemail.tokens; git config --remove-section credential.token', 'git config rename-section sendemail.token sendemail.tokens; git config --remove-section credential.token'],
    ['--get-colorbool and --get-urlmatch take no value', 'git config --get-colorbool color.token true; git config --get-urlmatch http.token https://example.com', 'git config --get-colorbool color.token true; git config --get-urlmatch http.token https://example.com'],
    // (d) programs' short password options.
    ['redis-cli -a', 'redis-cli -h db -a hunter2 ping', 'redis-cli -h db -a [redacted] ping'],
    ['docker login -p', 'docker login -u me -p hunter2 registry.example.com', 'docker login -u me -p [redacted] registry.example.com'],
    ['zip -P', 'zip -P hunter2 out.zip a.txt', 'zip -P [redacted] out.zip a.txt'],
    ['unzip -P', 'unzip -P hunter2 out.zip', 'unzip -P [redacted] out.zip'],
    ['7z -p, attached', '7z a -phunter2 out.7z a.txt', '7z a -p[redacted] out.7z a.txt'],
    ['7z -p alone asks', '7z a -p out.7z a.txt', '7z a -p out.7z a.txt'],
    ['ldapsearch -w', 'ldapsearch -x -D cn=admin -w hunter2 -b dc=x', 'ldapsearch -x -D cn=admin -w [redacted] -b dc=x'],
    ['sqlcmd -P', 'sqlcmd -S db -U sa -P hunter2 -Q "select 1"', 'sqlcmd -S db -U sa -P [redacted] -Q "select 1"'],
    ['smbclient -U user%pass', 'smbclient //srv/share -U admin%hunter2', 'smbclient //srv/share -U admin%[redacted]'],
    ['mongo -p', 'mongosh --host db -u admin -p hunter2', 'mongosh --host db -u admin -p [redacted]'],
    ['mysql -P is a port', 'mysql -h db -P 3306 -u root', 'mysql -h db -P 3306 -u root'],
    ['docker run -p is a port', 'docker run -p 8080:80 nginx', 'docker run -p 8080:80 nginx'],
    // (g) more token shapes, and webhook URLs (the address is the credential).
    ['Hugging Face token', 'hf_abcdefghijklmnopqrstuvwxyzABCDEFGH', 'hf_[redacted]'],
    ['a Hugging Face function name is kept', 'from huggingface_hub import hf_hub_download', 'from huggingface_hub import hf_hub_download'],
    ['PyPI token', `pypi-AgEIcHlwaS5vcmc${'A'.repeat(60)}`, 'pypi-[redacted]'],
    ['Docker Hub token', 'dckr_pat_2b3e36beeb386dfdaacb9b46004', 'dckr_pat_[redacted]'],
    ['Google OAuth access token', 'Authorization header ya29.a0AfH6SMBx3kLmNoPqRsTuVwXyZ0123456789', 'Authorization header ya29.[redacted]'],
    ['Shopify token', 'shpat_0123456789abcdef0123456789abcdef', 'shpat_[redacted]'],
    ['DigitalOcean token', `dop_v1_${'a1'.repeat(32)}`, 'dop_v1_[redacted]'],
    ['SendGrid key', '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', 'SG.[redacted]'],
    ['Slack webhook', 'curl -X POST https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX -d x', 'curl -X POST https://hooks.slack.com/services/[redacted] -d x'],
    ["curl's -b (--cookie)", 'curl -b "session=abcdef123456" https://x', 'curl -b "[redacted]" https://x'],
    ["ssh-keygen's new passphrase", 'ssh-keygen -N hunter2pass -f k', 'ssh-keygen -N [redacted] -f k'],
    // Round 28 (review P27-1's "Left"): every password option of a command, not only the first.
    ["ssh-keygen's old and new passphrase", 'ssh-keygen -p -P old1pass -N new2pass -f k', 'ssh-keygen -p -P [redacted] -N [redacted] -f k'],
    ['each, quoted and attached', `ssh-keygen -P 'old pass' -N"new pass" -f k`, `ssh-keygen -P '[redacted]' -N"[redacted]" -f k`],
    ['each, after other options between', 'ssh-keygen -f k -P oldpassw -q -C me -N newpassw', 'ssh-keygen -f k -P [redacted] -q -C me -N [redacted]'],
    ['a program given one twice', 'mysql -u r -pFirst1 -pSecond2 db', 'mysql -u r -p[redacted] -p[redacted] db'],
    ["curl's two cookies", 'curl -b a=1 -b b=2 https://x', 'curl -b [redacted] -b [redacted] https://x'],
    ['the next command is its own', 'zip -P first1 a.zip x && echo -P kept && zip -P second2 b.zip y', 'zip -P [redacted] a.zip x && echo -P kept && zip -P [redacted] b.zip y'],
    ['Discord webhook', 'https://discord.com/api/webhooks/123456789012345678/AbC-dEf_gHi', 'https://discord.com/api/webhooks/[redacted]'],
    // Round 19: the gateway's own credentials. A team token (team/identity.ts newToken: `mlt_` + 32
    // random bytes in base64url) and a one-time link's nonce (approval-page/link.ts: EXPIRES.RANDOM.MAC).
    ['mcp-latch team token', 'echo mlt_Q2hhbmdlTWVfUTJoaGJtZGxUV1ZmMDEyMzQ1Njc4OWFi-_ > ~/.latch-token', 'echo mlt_[redacted] > ~/.latch-token'],
    ['mcp-latch team token in JSON text', '{"user":"ada","token":"x","note":"mlt_Q2hhbmdlTWVfUTJoaGJtZGxUV1ZmMDEyMzQ1Njc4OWFi-_"}', '{"user":"ada","token":"[redacted]","note":"mlt_[redacted]"}'],
    ['HTTP run secret (team/local-secret.ts: `mls_` + 32 random bytes)', 'export MCP_LATCH_SECRET=mls_Q2hhbmdlTWVfUTJoaGJtZGxUV1ZmMDEyMzQ1Njc4OWFi-_; echo mls_Q2hhbmdlTWVfUTJoaGJtZGxUV1ZmMDEyMzQ1Njc4OWFi-_ | pbcopy', 'export MCP_LATCH_SECRET=[redacted]; echo mls_[redacted] | pbcopy'],
    ['approval page one-time link', "curl 'http://127.0.0.1:43117/?nonce=mi2k9x0a.Qk1yWk5hS3p0dV9fOVZzYw.c2lnbmF0dXJlLW9mLXRoZS1saW5rLWJ5LXRoZS1wYWdl' -c jar", "curl 'http://127.0.0.1:43117/?nonce=[redacted]' -c jar"],
    ['a nonce in a header line', 'nonce: mi2k9x0a.Qk1yWk5hS3p0dV9fOVZzYw.c2ln', 'nonce: [redacted]'],
    // Round 29 review P29-4: programs' own password options and operands, each from its manual, were kept in clear.
    ['keytool (JDK): -storepass, -keypass, -new', 'keytool -keypasswd -alias k -keypass OldKeyPw1 -new NewKeyPw2 -storepass StorePw3 -keystore ks.jks', 'keytool -keypasswd -alias k -keypass [redacted] -new [redacted] -storepass [redacted] -keystore ks.jks'],
    ["keytool's import passwords", 'keytool -importkeystore -srcstorepass SrcPw11 -deststorepass DestPw22 -srckeystore a.p12', 'keytool -importkeystore -srcstorepass [redacted] -deststorepass [redacted] -srckeystore a.p12'],
    ['jarsigner', 'jarsigner -storepass StorePw3 -keypass KeyPw4 app.jar mykey', 'jarsigner -storepass [redacted] -keypass [redacted] app.jar mykey'],
    ["openssl enc's password and key", 'openssl enc -aes-256-cbc -k EncPass5 -in f -out f.enc && openssl enc -d -K 00112233445566778899aabbccddeeff -iv 0a0b -in f.enc', 'openssl enc -aes-256-cbc -k [redacted] -in f -out f.enc && openssl enc -d -K [redacted] -iv 0a0b -in f.enc'],
    ['mosquitto_pub', 'mosquitto_pub -h broker -u dev -P MqttPw6 -t t -m hi', 'mosquitto_pub -h broker -u dev -P [redacted] -t t -m hi'],
    ['influx 1.x', 'influx -username admin -password InfluxPw7 -execute "show databases"', 'influx -username admin -password [redacted] -execute "show databases"'],
    ['cqlsh', 'cqlsh -u cassandra -p CqlPw8 db1', 'cqlsh -u cassandra -p [redacted] db1'],
    ['twine', 'twine upload -u __token__ -p TwinePw9 dist/*', 'twine upload -u __token__ -p [redacted] dist/*'],
    ['useradd', 'useradd -m -p $6$salt$hashedpw10 bob', 'useradd -m -p [redacted] bob'],
    ['doctl', 'doctl auth init -t DoctlToken11', 'doctl auth init -t [redacted]'],
    ['gh secret set -b / --body', 'gh secret set API_TOKEN -b GhBody12 && gh secret set DB_PW --body GhBody13', 'gh secret set API_TOKEN -b [redacted] && gh secret set DB_PW --body [redacted]'],
    ['HTTPie -a', 'http -a dev:HttpiePw14 GET example.org/x', 'http -a dev:[redacted] GET example.org/x'],
    ['lftp -u user,password', 'lftp -u dev,LftpPw15 sftp://host', 'lftp -u dev,[redacted] sftp://host'],
    ['a Vault token', 'vault login hvs.CAESIJabcdefghijklmnopqrstuvwx', 'vault login hvs.[redacted]'],
    ['wpa_passphrase', 'wpa_passphrase my_ssid WifiPass16 > /etc/wpa.conf', 'wpa_passphrase my_ssid [redacted] > /etc/wpa.conf'],
    ['rabbitmqctl add_user', 'rabbitmqctl add_user dev RabbitPw17 && rabbitmqctl change_password dev RabbitPw18', 'rabbitmqctl add_user dev [redacted] && rabbitmqctl change_password dev [redacted]'],
    ['nmcli wifi-sec.psk', 'nmcli con modify home-wifi wifi-sec.psk WifiPsk19', 'nmcli con modify home-wifi wifi-sec.psk [redacted]'],
    ['htpasswd -b FILE USER PASSWORD, -nb USER PASSWORD', 'htpasswd -b .htpasswd dev HtPw20; htpasswd -nb dev HtPw21', 'htpasswd -b .htpasswd dev [redacted]; htpasswd -nb dev [redacted]'],
    // Round 30 review S30-1: texts with none of the trigger characters (`=:@_-`) were returned unread.
    ['bw unlock (Bitwarden CLI: `bw unlock [password]`), no trigger character', 'bw unlock BwPass22', 'bw unlock [redacted]'],
    ['nmcli device wifi connect SSID password PSK (nmcli(1)), no trigger character', 'nmcli dev wifi connect HomeNet password WifiPsk23', 'nmcli dev wifi connect HomeNet password [redacted]'],
    ['openssl passwd (openssl-passwd(1): the password to hash)', 'openssl passwd -6 -salt s4lt OpensslPw24; openssl passwd OpensslPw25', 'openssl passwd -6 -salt s4lt [redacted]; openssl passwd [redacted]'],
    // S30-2: a secret on a reader's standard input: a here-string (bash(1) "Here Strings"), a
    // here-document (POSIX 2.7.4), `echo`/`printf` before a `|`; the readers from their manuals.
    ['docker login --password-stdin, a here-string', 'docker login -u me --password-stdin <<< DockerPw26', 'docker login -u me --password-stdin <<< [redacted]'],
    ['docker login --password-stdin, echo before a pipe', 'echo "DockerPw27" | docker login -u me --password-stdin registry.example.com', 'echo [redacted] | docker login -u me --password-stdin registry.example.com'],
    ['helm registry login --password-stdin, printf', `printf '%s' HelmPw28 | helm registry login r.example.com -u me --password-stdin`, "printf [redacted] | helm registry login r.example.com -u me --password-stdin"],
    ['gh auth login --with-token, a here-string of a token', 'gh auth login --with-token <<< gho_16C7e42F292c6912E7710c838347Ae178B4a', 'gh auth login --with-token <<< [redacted]'],
    ['sudo -S (sudo(8): the password from stdin), echo -n', 'echo -n SudoPw29 | sudo -S systemctl restart nginx; echo done', 'echo -n [redacted] | sudo -S systemctl restart nginx; echo done'],
    ['chpasswd, a here-document', 'cat <<EOF | chpasswd\nroot:ChPw30\nEOF\nls', 'cat <<EOF | chpasswd\n[redacted]\nEOF\nls'],
    ['docker login, a <<- here-document with a quoted delimiter', "docker login --password-stdin <<-'END'\n\tDockerPw31\n\tEND\necho kept", "docker login --password-stdin <<-'END'\n[redacted]\n\tEND\necho kept"],
    ['a here-document left open runs to the end', 'cat <<EOF | docker login --password-stdin\nDockerPw32', 'cat <<EOF | docker login --password-stdin\n[redacted]'],
    ['passwd, gh secret set, wrangler secret put, vault login -', 'passwd <<< "PwdPw33" && echo GhSecret34 | gh secret set API_KEY; echo CfSecret35 | wrangler secret put TOKEN; vault login - <<< VaultTok36', 'passwd <<< "[redacted]" && echo [redacted] | gh secret set API_KEY; echo [redacted] | wrangler secret put TOKEN; vault login - <<< [redacted]'],
    ['the other pipelines of the text are kept', 'echo visible | grep x && docker login --password-stdin <<< DockerPw37 || echo shown', 'echo visible | grep x && docker login --password-stdin <<< [redacted] || echo shown'],
    ['echo into programs that read no secret is kept', 'echo hello | tee /etc/passwd; cat /etc/passwd | grep root; echo x <<< y', 'echo hello | tee /etc/passwd; cat /etc/passwd | grep root; echo x <<< y'],
    // S30-3: a token as a URL's user name, no password (GitHub's and Hugging Face's git over HTTPS).
    ['a token as the user name of a clone URL', 'git clone https://9f3c2a7b1d4e6f8091a2b3c4d5e6f708192a3b4c@github.com/o/r', 'git clone https://[redacted]@github.com/o/r'],
    ['a user name that is no token is kept', 'https://alice@example.com ssh://git@github.com https://my-long-username-here@example.com', 'https://alice@example.com ssh://git@github.com https://my-long-username-here@example.com'],
    // Round 31 review S31-3: a secret in a sentence, with no `=` or `:` after its name (NAMED's), and
    // most with none of the trigger characters: written to the audit and the log in clear before.
    ['prose: the word, `is`, the value', 'my password is Hunter2Secret and the secret was "open sesame 7"; the API key is: K9aZ2kLmq7.', 'my password is [redacted] and the secret was "[redacted]"; the API key is: [redacted].'],
    ['prose: a PIN, a passphrase, tokens', 'My PIN is 4821. Passphrase is correct-horse-battery; tokens are T0kA,T0kB', 'My PIN is [redacted]. Passphrase is [redacted]; tokens are [redacted]'],
    ['prose: the word then a credential-looking value', 'use token 9f3c2a1b4c5d6e7f8a9b, passphrase Hunter2Secret', 'use token [redacted], passphrase [redacted]'],
    ['a server error quoting the token it refused', 'error: authentication failed for token 7Fa9Q2xLm0Zt8Yw3', 'error: authentication failed for token [redacted]'],
    ['prose about a secret, not the secret, is kept', 'the token is expired; the password is not set; if password is None: pass; token count is 5; the secret is out; password is required', 'the token is expired; the password is not set; if password is None: pass; token count is 5; the secret is out; password is required'],
    ['a secret\'s name or a word after the word is kept', 'kubectl get secret db-secret1; kubectl create secret generic mysecret1; grep -r password src/; npm token create; the password file is /etc/shadow', 'kubectl get secret db-secret1; kubectl create secret generic mysecret1; grep -r password src/; npm token create; the password file is /etc/shadow'],
    ['a known shape keeps its prefix in prose', 'the token is xoxp-1234567890-abcdefghij', 'the token is xoxp-[redacted]'],
    // curl(1) -H: a header needs its colon (curl sends none without), but the text holds the value.
    ['curl -H a header without its colon', `curl -H 'X-Api-Key K9aZ2kLmq7' -H "X-Auth-Token abc def" --header='Authorization Basic eHl6' https://h`, `curl -H 'X-Api-Key [redacted]' -H "X-Auth-Token [redacted]" --header='Authorization [redacted]' https://h`],
    ['curl -H of a header that is no secret is kept', `curl -H 'Accept text/plain' https://h`, `curl -H 'Accept text/plain' https://h`],
    // Readers of a secret on stdin with no trigger character: cryptsetup(8) ("the passphrase is read
    // from standard input when it is not a terminal"), gh secret set and wrangler secret put with a
    // name of letters only, MIT kinit(1) (its prompter reads stdin).
    ['cryptsetup open, a here-string, no trigger character', 'cryptsetup open /dev/sdb1 vault <<< Hunter2Secret', 'cryptsetup open /dev/sdb1 vault <<< [redacted]'],
    ['cryptsetup luksOpen, echo before a pipe', 'echo LuksPw38 | cryptsetup luksOpen /dev/sdb1 vault', 'echo [redacted] | cryptsetup luksOpen /dev/sdb1 vault'],
    ['gh secret set NAME and wrangler secret put NAME, no trigger character', 'gh secret set DEPLOYKEY <<< GhSecret39; printf CfSecret40 | wrangler secret put APIKEY', 'gh secret set DEPLOYKEY <<< [redacted]; printf [redacted] | wrangler secret put APIKEY'],
    ['kinit, echo before a pipe', 'echo KrbPw41 | kinit alice', 'echo [redacted] | kinit alice'],
    // Round 32 review S32-5, each kept in clear before. RFC 6749 §4.1.2: the redirect carries `code`
    // (and RFC 5849 §2.2 `oauth_verifier`); CAS's service `ticket`; as a query or fragment parameter only.
    ['an OAuth authorization code in a redirect URL', 'GET https://app.example/cb?code=SplxlOBeZQQYbYS6WxSbIA&state=xyz#oauth_verifier=hfdp7dh39dks9884&ticket=ST-1-abc', 'GET https://app.example/cb?code=[redacted]&state=xyz#oauth_verifier=[redacted]&ticket=[redacted]'],
    ['`code` that is no URL parameter is kept', 'exit code=1; error code: 42; https://x.example/a?codec=h264&q=code&code=US', 'exit code=1; error code: 42; https://x.example/a?codec=h264&q=code&code=US'],
    // A personal access token named so, a JWT by its name, kubeconfig's client key (base64 of a PEM key).
    ['GH_PAT=, a jwt=, client-key-data:', 'GH_PAT=K9aZ2kLmq7xW GITLAB_PAT=glq7 x?jwt=abc.def\n    client-key-data: LS0tLS1CRUdJTg==', 'GH_PAT=[redacted] GITLAB_PAT=[redacted] x?jwt=[redacted]\n    client-key-data: [redacted]'],
    ['a name that only ends in `pat` is kept', 'COMPAT=1 spat=2 --pattern=x', 'COMPAT=1 spat=2 --pattern=x'],
    // PuTTY's PPK format (puttygen's "PPK file format" appendix): `Private-Lines: N` then N lines of base64.
    ['a PuTTY private key', 'PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: me\nPublic-Lines: 2\nAAAAC3Nz\nAAAAIPub\nPrivate-Lines: 1\nAAAAIHprivkeybase64==\nPrivate-MAC: 8a1b', 'PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: me\nPublic-Lines: 2\nAAAAC3Nz\nAAAAIPub\nPrivate-Lines: 1\n[redacted]\nPrivate-MAC: 8a1b'],
    // Issuers' documented prefixes: GitLab's "Token prefixes", Stripe's webhook signing secret, Google's
    // OAuth client secret, age's X25519 identity (age-encryption.org/v1: bech32, upper case).
    ['GitLab, Stripe webhook, Google client secret, age tokens', 'gldt-ZyxW9876abcdEFGH glrt-t1_AbCdEf012345 whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw GOCSPX-1a2B3c4D5e6F7g8H9i AGE-SECRET-KEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQ', 'gldt-[redacted] glrt-[redacted] whsec_[redacted] GOCSPX-[redacted] AGE-SECRET-KEY-1[redacted]'],
    // Round 33 review S33-2, each kept in clear before (round 32's build). The WHATWG URL parser
    // ("authority state": an `@` seen makes the buffer so far the userinfo, so the last `@` before the
    // path ends it) and Python's urlsplit (netloc.rpartition('@')) read `S3c@r3t` as the password.
    ['a URL password holding an unencoded @', 'psql postgres://admin:S3c@r3tPw@db.example.com:5432/app; mongosh "mongodb+srv://u:p@ss@c0.example.net/t"', 'psql postgres://admin:[redacted]@db.example.com:5432/app; mongosh "mongodb+srv://u:[redacted]@c0.example.net/t"'],
    ['a URL with no password is kept, and an @ past the path', 'https://alice@example.com/a@b ssh://git@github.com:o/r https://h.example/x?u=a:b@c', 'https://alice@example.com/a@b ssh://git@github.com:o/r https://h.example/x?u=a:b@c'],
    // The Bot API's documented request URL (core.telegram.org/bots/api, "Making requests"), Databricks'
    // personal access token (`dapi` + 32 hex), Linear's API key (`lin_api_`).
    ['Telegram bot URL, Databricks and Linear tokens', 'curl https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage; wget https://api.telegram.org/file/bot1234:AbC-d_9/photos/p.jpg; echo dapi0123456789abcdef0123456789abcdef-2 lin_api_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd', 'curl https://api.telegram.org/bot[redacted]; wget https://api.telegram.org/file/bot[redacted].jpg; echo dapi[redacted] lin_api_[redacted]'],
    ['words like those shapes are kept', 'dapi_version=3 lin_api_v2 dapiclient api.telegram.org/docs', 'dapi_version=3 lin_api_v2 dapiclient api.telegram.org/docs'],
  ];
  test.each(cases)('%s', (_source, text, recorded) => {
    expect(redactText(text)).toBe(recorded);
    // Redacting again changes nothing: a record read back and written again stays the same.
    expect(redactText(recorded)).toBe(recorded);
  });

  test('text with no candidate is returned as it is', () => {
    for (const text of ['ping 1', '/work/a/b.txt', 'ls -la src', '']) expect(redactText(text)).toBe(text);
  });

  test('texts built to make a scan start again at every character end (the command of a call is recorded whole)', () => {
    // With a scan unbounded from every start each of these takes minutes (the test's timeout ends it).
    // Round 25 review R16: a quoted value's end looked for the line's end first, to the end of a text
    // without one, at every `"secret": "` (4.4 MB: ~28 s at load 30; now one pass to the closing quote).
    for (const text of ['a-'.repeat(100_000), 'sk-'.repeat(100_000), 'mysql '.repeat(50_000), 'curl -x '.repeat(40_000), 'x://y:'.repeat(50_000), 'eyJ.'.repeat(80_000), 'token= '.repeat(50_000), 'config set --a '.repeat(30_000), '<a>'.repeat(100_000), 'smbclient -U '.repeat(30_000), 'mongo -p '.repeat(40_000), 'ya29.'.repeat(60_000), 'config -f x '.repeat(30_000), `config --comment '`.repeat(25_000), 'config set -x="a '.repeat(25_000), 'nonce='.repeat(60_000), 'mlt_'.repeat(80_000), 'git '.repeat(80_000), 'git config '.repeat(30_000), 'git config -f '.repeat(25_000), 'git config "'.repeat(25_000), 'git config user.password '.repeat(15_000), '"secret": "'.repeat(400_000), '"password":"'.repeat(400_000), 'api_key: "'.repeat(400_000), 'ssh-keygen -P x '.repeat(30_000), 'ssh-keygen -P x -N '.repeat(25_000), 'mysql -pX '.repeat(50_000), 'http -a '.repeat(40_000), 'lftp -u '.repeat(40_000), 'nmcli password '.repeat(25_000), 'rabbitmqctl add_user '.repeat(20_000), 'htpasswd -b x '.repeat(25_000), 'keytool -storepass '.repeat(20_000), 'gh secret set -b '.repeat(20_000), 'hvs.'.repeat(80_000), 'docker login --password-stdin <<E\n'.repeat(20_000), 'echo x | sudo -S '.repeat(20_000), 'cat <<E <<F '.repeat(20_000), '<<< '.repeat(50_000), 'https://a1234567890123456'.repeat(20_000), 'bw unlock '.repeat(30_000)]) {
      expect(redactText(text).length).toBeGreaterThan(0);
    }
  });
});

describe('redactSecrets: the arguments of a record', () => {
  test.each<[string, unknown, unknown]>([
    ['an env map', { env: { GITHUB_TOKEN: 'ghp_abc', PATH: '/bin' } }, { env: { GITHUB_TOKEN: '[redacted]', PATH: '[redacted]' } }],
    ['an env list', { environment: ['GITHUB_TOKEN=abc', 'DEBUG'] }, { environment: ['GITHUB_TOKEN=[redacted]', '[redacted]'] }],
    ['a header list', { headers: ['Authorization: Bearer x', 'Accept: text/html'] }, { headers: ['Authorization: [redacted]', 'Accept: [redacted]'] }],
    ['a header object', { request: { headers: { 'X-Custom': 'h1' } } }, { request: { headers: { 'X-Custom': '[redacted]' } } }],
    ['header pairs', { headers: [{ name: 'Authorization', value: 'Bearer sk-live-123' }] }, { headers: [{ name: 'Authorization', value: '[redacted]' }] }],
    ['a name/value pair anywhere', { vars: [{ name: 'GITHUB_TOKEN', value: 'abc' }, { name: 'REGION', value: 'eu' }] }, { vars: [{ name: 'GITHUB_TOKEN', value: '[redacted]' }, { name: 'REGION', value: 'eu' }] }],
    ['a key/value pair', { key: 'Authorization', value: 'Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==' }, { key: 'Authorization', value: '[redacted]' }],
    ['short key names', { pass: 'hunter2', pwd: 'hunter2', bearer: 'abc', sig: 'x' }, { pass: '[redacted]', pwd: '[redacted]', bearer: '[redacted]', sig: '[redacted]' }],
    ['an env string is a value like any', { env: 'production' }, { env: 'production' }],
    ['a command', { command: 'curl -H "Authorization: Bearer sk-live-123" https://api' }, { command: 'curl -H "Authorization: Bearer [redacted]" https://api' }],
    ['a written .env', { path: '/p/.env', content: 'OPENAI_API_KEY=sk-abc\n' }, { path: '/p/.env', content: 'OPENAI_API_KEY=[redacted]\n' }],
    ['a URL', { url: 'https://user:hunter2@host/x' }, { url: 'https://user:[redacted]@host/x' }],
    ['a key that is data', { key: 'users/42', value: 'x' }, { key: 'users/42', value: 'x' }],
    // Round 18 review, L4 (e) and (f).
    ['pin, otp, passcode, creds, mfa', { pin: '1234', otp: '123456', passcode: 'p', creds: 'c', mfa_code: '1', user_pin: '9', pinned: true, spinner: 'x' }, { pin: '[redacted]', otp: '[redacted]', passcode: '[redacted]', creds: '[redacted]', mfa_code: '[redacted]', user_pin: '[redacted]', pinned: true, spinner: 'x' }],
    ['a key holding a secret', { extra: { ghp_0123456789abcdefghijABCDEFGHIJ012345: true, 'GITHUB_TOKEN=abc': 1 } }, { extra: { 'ghp_[redacted]': true, 'GITHUB_TOKEN=[redacted]': '[redacted]' } }],
    // Round 27 review P27-1: a program's words as a list are read together, as in one text.
    ['args beside a command', { command: 'mysql', args: ['-u', 'root', '--password', 'Hunter2Secret'] }, { command: 'mysql', args: ['-u', 'root', '--password', '[redacted]'] }],
    ['an argv list', { argv: ['npx', 'server', '--api-key', 'Zq9v8u7t6s5r4q3p', '--client-secret', 's3'] }, { argv: ['npx', 'server', '--api-key', '[redacted]', '--client-secret', '[redacted]'] }],
    ["a program's own short option, spaced and attached", { a: ['redis-cli', '-a', 'pw123456', 'get', 'k'], b: ['mysql', '-u', 'root', '-pSecret1'], c: ['ssh-keygen', '-N', 'newpass', '-P', 'oldpass'] }, { a: ['redis-cli', '-a', '[redacted]', 'get', 'k'], b: ['mysql', '-u', 'root', '-p[redacted]'], c: ['ssh-keygen', '-N', '[redacted]', '-P', '[redacted]'] }],
    ['a list with both of ssh-keygen\'s passphrases, after the command', { command: 'ssh-keygen', args: ['-p', '-P', 'oldpass1', '-N', 'newpass2', '-f', 'k'] }, { command: 'ssh-keygen', args: ['-p', '-P', '[redacted]', '-N', '[redacted]', '-f', 'k'] }],
    // Round 28 review P28-2: a program's option behind a wrapper (only the word before was read).
    ['a program behind a wrapper, in a list', { a: { command: 'docker', args: ['exec', 'db', 'redis-cli', '-a', 'S3CRETPW'] }, b: { command: 'timeout', args: ['5', 'redis-cli', '-a', 'S3CRETPW'] }, c: { argv: ['sudo', 'sshpass', '-p', 'S3CRETPW', 'ssh', 'h'] }, d: { command: 'kubectl', args: ['exec', 'p', '--', 'redis-cli', '-a', 'S3CRETPW', 'get', 'k'] } }, { a: { command: 'docker', args: ['exec', 'db', 'redis-cli', '-a', '[redacted]'] }, b: { command: 'timeout', args: ['5', 'redis-cli', '-a', '[redacted]'] }, c: { argv: ['sudo', 'sshpass', '-p', '[redacted]', 'ssh', 'h'] }, d: { command: 'kubectl', args: ['exec', 'p', '--', 'redis-cli', '-a', '[redacted]', 'get', 'k'] } }],
    ['a list with no secret after its options', { command: 'ls', args: ['-p', 'x', '--color', 'never'] }, { command: 'ls', args: ['-p', 'x', '--color', 'never'] }],
  ])('%s', (_what, args, recorded) => {
    expect(redactSecrets(args)).toEqual(recorded);
  });

  test('a secret past the cut is not written, and one cut in two is redacted up to the cut', () => {
    const long = `${'x'.repeat(280)} Bearer ${'a'.repeat(100)}`;
    expect(redactSecrets({ text: long })).toEqual({ text: `${'x'.repeat(280)} Bearer [redacted]…[${long.length - 300} more]` });
  });

  test('arguments with nothing to redact are returned as they are (the record then reuses their text)', () => {
    const args = { message: 'ping 7', path: '/work/a.txt', list: [1, 'two'], nested: { token_count: 3 } };
    // token_count is a secret-looking key (contains "token"), as before: copied.
    expect(redactSecrets({ message: 'ping 7', path: '/work/a.txt' })).toStrictEqual({ message: 'ping 7', path: '/work/a.txt' });
    const plain = { message: 'ping 7', path: '/work/a.txt', list: [1, 'two'] };
    expect(redactSecrets(plain)).toBe(plain);
    expect(redactSecrets(args)).not.toBe(args);
  });

  test("each key's verdict is remembered (round 23): a key seen again, and after 5,000 others, is read as the first time", () => {
    // Every key of every call's arguments is looked at; its verdict (secret-named, env/headers, or a
    // text to redact) is now kept per key. The same key in the next call, plain or not, and a key
    // seen again once the memory was emptied (4,096 keys), must give what the first sight gave.
    const plain = { message: 'ping 1' };
    const secret = { api_key: 'k1', env: { A: 'b' }, 'GITHUB_TOKEN=abc': 1 };
    const secretRecorded = { api_key: '[redacted]', env: { A: '[redacted]' }, 'GITHUB_TOKEN=[redacted]': '[redacted]' };
    for (let round = 0; round < 2; round++) {
      expect(redactSecrets(plain)).toBe(plain);
      expect(redactSecrets(secret)).toEqual(secretRecorded);
      for (let index = 0; index < 5000; index++) {
        const many = { [`k${round}_${index}`]: 'v' };
        expect(redactSecrets(many)).toBe(many);
      }
    }
    expect(redactSecrets({ message: 'ping 2', token: 't' })).toEqual({ message: 'ping 2', token: '[redacted]' });
    expect(redactSecrets({ env: 'production' })).toEqual({ env: 'production' });
  });
});

describe('redactLogRecord: a log record', () => {
  test('a value deeper than it looks is written as [nested], as the audit does, not as it is (round 18 review, L10)', () => {
    let data: unknown = { password: 'S3cretDeep' };
    for (let level = 0; level < 9; level++) data = { x: data };
    const text = JSON.stringify(redactLogRecord({ data }));
    expect(text).not.toContain('S3cretDeep');
    expect(text).toContain('[nested]');
  });

  test('a key holding a secret is redacted as a value would be (round 18 review, L4 f)', () => {
    expect(redactLogRecord({ data: { ghp_0123456789abcdefghijABCDEFGHIJ012345: true } })).toEqual({ data: { 'ghp_[redacted]': true } });
  });
});

// Round 20 review (review-diff20, D3): sh removes a backslash-newline before it reads words, so
// each of these sets the secret; the git config readings took the continuation for a word.
describe('a line continuation in a git config text', () => {
  test.each([
    ['git config \\\n sendemail.smtpPass S3cretV4lue11', 'git config  sendemail.smtpPass [redacted]'],
    ['git -c sendemail.smtpPass=\\\nS3cretV4lue12 send-email x', 'git -c sendemail.smtpPass=[redacted] send-email x'],
    ['git config set \\\n --value=S3cretV4lue13 sendemail.smtpPass', 'git config set  --value=[redacted] sendemail.smtpPass'],
  ])('%j is redacted as sh reads it', (text, shown) => {
    expect(redactText(text)).toBe(shown);
  });
  test('a text with a continuation and no secret is kept as written', () => {
    expect(redactText('git config \\\n user.name Ada')).toBe('git config \\\n user.name Ada');
  });
});

// Round 21 review, review-diff21 R2: git reads GIT_CONFIG_KEY_<n>/GIT_CONFIG_VALUE_<n> as `-c
// NAME=VALUE` (git-config(1), ENVIRONMENT), and sh reads `'config'`, `"config"`, `con\fig` and
// `c''onfig` as `config`: each value was kept in clear.
describe('git config: the environment pairs and a config word spelled with quotes', () => {
  test.each([
    ['GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=sendemail.smtpPass GIT_CONFIG_VALUE_0=S3cretV4lue21 git send-email x', 'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=[redacted] GIT_CONFIG_VALUE_0=[redacted] git send-email x'],
    ["export GIT_CONFIG_KEY_1='user.password' GIT_CONFIG_VALUE_1='S3cretV4lue22'", "export GIT_CONFIG_KEY_1='[redacted]' GIT_CONFIG_VALUE_1='[redacted]'"],
    ["git 'config' sendemail.smtpPass S3cretV4lue23", "git 'config' sendemail.smtpPass [redacted]"],
    ['git "config" --global user.password S3cretV4lue24', 'git "config" --global user.password [redacted]'],
    ['git con\\fig user.password S3cretV4lue25', 'git con\\fig user.password [redacted]'],
    ["git -C repo c''onfig set user.password S3cretV4lue26", "git -C repo c''onfig set user.password [redacted]"],
  ])('%j', (text, shown) => {
    expect(redactText(text)).toBe(shown);
  });
  // A value kept: its key is no secret's, or names another pair (the key's own word is redacted as any `…_KEY=` is).
  test.each([
    ['GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0=Ada git commit', 'GIT_CONFIG_VALUE_0=Ada git commit'],
    ['GIT_CONFIG_KEY_0=user.password GIT_CONFIG_VALUE_1=Ada git commit', 'GIT_CONFIG_VALUE_1=Ada git commit'],
    ["git 'config' user.name Ada", "git 'config' user.name Ada"],
    ['git status', 'git status'],
  ])('%j keeps its value', (text, kept) => {
    expect(redactText(text)).toContain(kept);
  });
});

describe('the keys remembered stay small (round 24 review F7)', () => {
  test('a model-written key of 100,000 characters is redacted as any key but not kept; short keys are', () => {
    const before = rememberedKeyChars();
    for (let i = 0; i < 20; i++) {
      const long = `${'k'.repeat(100_000)}${i}`;
      const record = redactSecrets({ [long]: 'v', [`api_key_${long}`]: 'sk-secret', short_key: 1 }) as Record<string, unknown>;
      // Cut as a value is since round 26 (the review's P1); one word no secret, so its start is kept (round 27).
      expect(record).toEqual({ [`${long.slice(0, 300)}…[${long.length - 300} more]`]: 'v', [`api_key_${long.slice(0, 292)}…[${long.length + 8 - 300} more]`]: '[redacted]', short_key: 1 });
    }
    // 20 × 2 long keys would be 4,000,000 characters kept; only `short_key` (9) may be added.
    expect(rememberedKeyChars() - before).toBeLessThanOrEqual('short_key'.length);
  });
});

// Round 26 review, review26p P1/P2: PASSWORD_P's `mariadb[\w-]*` ran to the end of a text of `mariadb-`
// repeated from each of its starts (64 KB: 26 s of the gateway's one thread), and keys, commands,
// paths and every string of a log record (a server's stderr line) were redacted whole. Now every
// recogniser is linear and none reads more than a bound (docs/threat-model.md "Secrets in records").
describe('round 26: what redaction reads is bounded', () => {
  test.each<[string, string]>([
    // The programs' real names still take their password options.
    ['mariadb-dump -u root -pS3cret db', 'mariadb-dump -u root -p[redacted] db'],
    ['mariadb-admin -uroot -pS3cret status', 'mariadb-admin -uroot -p[redacted] status'],
    ['mariadb -h db -pS3cret', 'mariadb -h db -p[redacted]'],
    ['/usr/bin/mariadb-backup --backup -pS3cret --target-dir=/b', '/usr/bin/mariadb-backup --backup -p[redacted] --target-dir=/b'],
    ['mariadb-check -A -pS3cret', 'mariadb-check -A -p[redacted]'],
    ['mysql_upgrade -uroot -pS3cret', 'mysql_upgrade -uroot -p[redacted]'],
    ['mysqladmin -pS3cret ping', 'mysqladmin -p[redacted] ping'],
    ['mariadb-dump -u root -p db', 'mariadb-dump -u root -p db'],
    // A `GIT_CONFIG_KEY_<n>=` inside another's name has that name's verdict; a value word is read once.
    ['GIT_CONFIG_KEY_1=GIT_CONFIG_KEY_2=user.password GIT_CONFIG_VALUE_2=S3cret', 'GIT_CONFIG_VALUE_2=[redacted]'],
    ['GIT_CONFIG_KEY_1=user.password GIT_CONFIG_VALUE_1="[redacted]"GIT_CONFIG_VALUE_1=S3cret', 'GIT_CONFIG_VALUE_1="[redacted]'],
    // git as a command word after options, the operands read on from the words already read.
    ["git -C /r git -c a=b 'config' user.password S3cret", "'config' user.password [redacted]"],
  ])('%j', (text, recorded) => {
    expect(redactText(text)).toContain(recorded);
    expect(redactText(text)).not.toContain('S3cret');
  });

  test('the word a cut splits is replaced: a secret begun before the cut does not leave its start', () => {
    const token = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
    expect(redactSecrets({ text: `${'x'.repeat(290)} ${token}` })).toEqual({ text: `${'x'.repeat(290)} [redacted]…[${token.length - 9} more]` });
    expect(redactSecrets({ url: `${'x'.repeat(280)} https://u:hunter2hunter2@h/` })).toEqual({ url: `${'x'.repeat(280)} https://u:[redacted]…[8 more]` });
    // A cut at a word's end keeps the word.
    expect(redactSecrets({ text: `${'x'.repeat(300)} ${token}` })).toEqual({ text: `${'x'.repeat(300)}…[${token.length + 1} more]` });
    expect(cutAtWord('abc def', 5)).toBe('abc [redacted]');
    expect(cutAtWord('abc def', 4)).toBe('abc ');
    expect(cutAtWord('abcdef', 3)).toBe('[redacted]');
  });

  test("a key is cut as a value is; a log record's string at MAX_LOG_STRING, and a secret at the cut does not leak", () => {
    const key = `GITHUB_TOKEN=${'ghp_'.padEnd(400, 'x')}`;
    expect(Object.keys(redactSecrets({ [key]: 1 }) as object)).toEqual([`GITHUB_TOKEN=[redacted]…[${key.length - 300} more]`]);
    const line = `${'a '.repeat(MAX_LOG_STRING / 2 - 4)}Bearer ${'b'.repeat(100)}`;
    const logged = redactLogRecord({ stderr: line, [line]: 1 });
    expect(logged.stderr).toBe(`${line.slice(0, MAX_LOG_STRING - 1)}[redacted]…[${line.length - MAX_LOG_STRING} more characters; the log keeps ${MAX_LOG_STRING} of a string]`);
    expect(JSON.stringify(logged)).not.toContain('bbb');
  });

  test("every recogniser's literal repeated to 1 MB: each regex reads at most MAX_REDACTED_TEXT characters of a text, MAX_LOG_STRING of a log string, 300 of a key", () => {
    // The bound is what makes the work per text bounded (docs/performance.md "Round 26: redaction's
    // worst case" measures it over this corpus, bench/redact-worst.js); on round 25's code the
    // `mariadb-` texts alone take hours, and the test's timeout ends it.
    expect(LITERALS.length).toBeGreaterThan(200);
    let texts = 0;
    for (const { name, text } of hostileTexts(1 << 20, [''], ['-', '.', ':', ' ', '=', '"', '/'])) {
      const more = text.length - MAX_REDACTED_TEXT;
      const redacted = redactText(text);
      expect(redacted, name).toBe(`${redactedStart(text, MAX_REDACTED_TEXT)}…[${more} more characters; redaction reads ${MAX_REDACTED_TEXT}]`);
      const logged = redactLogRecord({ stderr: text, [text]: 1 });
      expect(logged.stderr, name).toBe(`${redactedStart(text, MAX_LOG_STRING)}…[${text.length - MAX_LOG_STRING} more characters; the log keeps ${MAX_LOG_STRING} of a string]`);
      expect(Object.keys(logged), name).toContain(`${redactedStart(text, 300)}…[${text.length - 300} more]`);
      texts += 1;
    }
    expect(texts).toBe(LITERALS.length * 7);
  }, 120_000);

  test('the corpus at the bound itself, after each context that arms a recogniser: every text is redacted within the timeout', () => {
    for (const { text } of hostileTexts(MAX_REDACTED_TEXT, undefined, ['-', '.', ':', ' ', '=', '"', '/'])) expect(typeof redactText(text)).toBe('string');
  }, 120_000);
});

// Round 27 (docs/threat-model.md, "Round 27: left by round 26's protocol review"; "Secrets in records").
describe('round 27: keys redacted alike stay distinct', () => {
  // The copy was keyed by each key's redacted text: keys that differ only in a secret, or in the
  // cut word the record replaced, were one key, the later's value in the former's place.
  test('the audit: each key kept, the later numbered', () => {
    const a = `token_${'a'.repeat(400)}`;
    const b = `token_${'b'.repeat(400)}`;
    const ghpA = `ghp_${'A'.repeat(400)}`;
    const ghpB = `ghp_${'B'.repeat(400)}`;
    const record = redactSecrets({ 'GITHUB_TOKEN=ghp_0123456789abcdef': 1, 'GITHUB_TOKEN=ghp_fedcba9876543210': 2, [ghpA]: 3, [ghpB]: 4, [a]: 5, [b]: 6 }) as Record<string, unknown>;
    expect(record).toEqual({
      'GITHUB_TOKEN=[redacted]': '[redacted]',
      'GITHUB_TOKEN=[redacted] (2)': '[redacted]',
      '[redacted]…[104 more]': 3,
      '[redacted]…[104 more] (2)': 4,
      [`${a.slice(0, 300)}…[106 more]`]: '[redacted]',
      [`${b.slice(0, 300)}…[106 more]`]: '[redacted]',
    });
    expect(JSON.stringify(record)).not.toContain('0123456789abcdef');
    expect(JSON.stringify(record)).not.toContain('AAAA');
  });

  test('a log record: the same; a key written like a numbered one is numbered past it', () => {
    const logged = redactLogRecord({ 'x ghp_0123456789abcdef': 1, 'x ghp_[redacted] (2)': 2, 'x ghp_fedcba9876543210': 3, 'x ghp_aaaaaaaaaaaaaaaa': 4 });
    expect(logged).toEqual({ 'x ghp_[redacted]': 1, 'x ghp_[redacted] (2)': 2, 'x ghp_[redacted] (3)': 3, 'x ghp_[redacted] (4)': 4 });
  });

  test('10,000 keys redacted alike: each kept, in one step each', () => {
    const keys = Array.from({ length: 10_000 }, (_, i) => `ghp_${String(i).padStart(12, '0')}`);
    const record = redactSecrets(Object.fromEntries(keys.map((key, i) => [key, i]))) as Record<string, number>;
    expect(Object.keys(record)).toHaveLength(10_000);
    expect(record['ghp_[redacted] (10000)']).toBe(9_999);
  });
});

describe('round 27: a word the cut splits is shown up to the cut when it is no secret', () => {
  const url = `https://example.com/${'segment/'.repeat(100)}`;
  test.each<[string, string, number]>([
    ['a URL (an argument: 300)', url, 300],
    ['one long word', 'w'.repeat(1000), 300],
    ['a word longer than what is read past the cut', 'b'.repeat(5000), 300],
    ['a long name after a secret-free name=', `name=${'n'.repeat(500)}`, 300],
    ['a log string (4,096)', `${'word '.repeat(800)}${'z'.repeat(2000)}`, 4096],
    ['a text (16,384)', `cat ${'/very/long/path'.repeat(2000)}`, MAX_REDACTED_TEXT],
  ])('%s', (_name, text, limit) => {
    expect(redactedStart(text, limit)).toBe(text.slice(0, limit));
  });

  test('through the records: the start of the value and how much was cut', () => {
    expect(redactSecrets({ url })).toEqual({ url: `${url.slice(0, 300)}…[${url.length - 300} more]` });
    const key = 'k'.repeat(400);
    expect(redactSecrets({ [key]: 1 })).toEqual({ [`${'k'.repeat(300)}…[100 more]`]: 1 });
    const line = 'y'.repeat(5000);
    expect(redactLogRecord({ stderr: line }).stderr).toBe(`${'y'.repeat(MAX_LOG_STRING)}…[${5000 - MAX_LOG_STRING} more characters; the log keeps ${MAX_LOG_STRING} of a string]`);
    const command = `echo ${'c'.repeat(20_000)}`;
    expect(redactText(command)).toBe(`${command.slice(0, MAX_REDACTED_TEXT)}…[${command.length - MAX_REDACTED_TEXT} more characters; redaction reads ${MAX_REDACTED_TEXT}]`);
  });

  // Fail closed: a secret the cut splits, known when read on past the cut, keeps nothing of itself.
  // Each secret's own characters are Q (or its base64), so the record must hold no `QQQ`.
  const basic = (length: number) => Buffer.from(`user:${'Q'.repeat(length)}`).toString('base64');
  test.each<[string, (pad: string) => string]>([
    ['a GitHub token', (pad) => `${pad} ghp_${'Q'.repeat(40)}`],
    ['a long GitHub token', (pad) => `${pad} ghp_${'Q'.repeat(3000)}`],
    ['a URL password', (pad) => `${pad} https://u:${'Q'.repeat(40)}@h/`],
    ['a URL password longer than what is read past the cut', (pad) => `${pad} https://u:${'Q'.repeat(3000)}@h/`],
    ['a Basic credential', (pad) => `${pad} Authorization: Basic ${basic(30)}`],
    ['a Basic credential longer than what is read past the cut', (pad) => `${pad} Basic ${basic(3000)}`],
    ['an element', (pad) => `${pad} <password>${'Q'.repeat(40)}</password>`],
    ['an element longer than what is read past the cut', (pad) => `${pad} <password>${'Q'.repeat(3000)}</password>`],
    ['a JWT', (pad) => `${pad} eyJhbGciOiJIUzI1NiJ9.eyJ${'Q'.repeat(60)}.${'Q'.repeat(40)}`],
    ['a Slack webhook', (pad) => `${pad} https://hooks.slack.com/services/T0/B0/${'Q'.repeat(40)}`],
    ['a named value', (pad) => `${pad} API_TOKEN=${'Q'.repeat(3000)}`],
    ['a password option', (pad) => `${pad} mysql -u root -p${'Q'.repeat(3000)}`],
  ])('%s split by the cut', (_name, make) => {
    for (const limit of [300, MAX_LOG_STRING, MAX_REDACTED_TEXT]) {
      // The cut falls a few characters into the secret's word, after its prefix.
      for (const into of [3, 8, 16, 30]) {
        const probe = make('');
        const word = probe.search(/Q|[A-Za-z0-9+/]{20}/);
        const text = make('p'.repeat(Math.max(0, limit - word - into - 1)));
        const recorded = redactedStart(text, limit);
        expect(recorded, `${limit} ${into}`).not.toMatch(/QQQ|UVFR/);
      }
    }
    expect(JSON.stringify(redactSecrets({ a: make('p'.repeat(280)) }))).not.toMatch(/QQQ|UVFR/);
  });
});
