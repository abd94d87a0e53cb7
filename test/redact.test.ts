import { describe, expect, test } from 'vitest';
import { redactSecrets, redactText } from '../src/redact.js';

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
    for (const text of ['a-'.repeat(100_000), 'sk-'.repeat(100_000), 'mysql '.repeat(50_000), 'curl -x '.repeat(40_000), 'x://y:'.repeat(50_000), 'eyJ.'.repeat(80_000), 'token= '.repeat(50_000)]) {
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
});
