import type * as Crypto from 'node:crypto';

// node:crypto, loaded at the first call into it rather than with the module that uses it: loading it
// costs ~2 ms of CPU (36 of Node's modules), which a gateway's start paid before its first list
// though nothing there needs it unless a server lists an outputSchema (docs/performance.md,
// "Round 19: start"). Each function is node:crypto's own, called through.
let loaded: typeof Crypto | undefined;

function crypto(): typeof Crypto {
  return (loaded ??= process.getBuiltinModule('node:crypto'));
}

export function createHash(algorithm: string, options?: Crypto.HashOptions): Crypto.Hash {
  return crypto().createHash(algorithm, options);
}

export function hash(algorithm: string, data: Crypto.BinaryLike): string {
  return crypto().hash(algorithm, data);
}

export function createHmac(algorithm: string, key: Crypto.BinaryLike | Crypto.KeyObject): Crypto.Hmac {
  return crypto().createHmac(algorithm, key);
}

export function randomBytes(size: number): Buffer {
  return crypto().randomBytes(size);
}

export function randomUUID(): string {
  return crypto().randomUUID();
}

export function timingSafeEqual(a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView): boolean {
  return crypto().timingSafeEqual(a, b);
}

export function hkdfSync(digest: string, key: Crypto.BinaryLike, salt: Crypto.BinaryLike, info: Crypto.BinaryLike, length: number): ArrayBuffer {
  return crypto().hkdfSync(digest, key, salt, info, length);
}

export function createCipheriv(algorithm: Crypto.CipherGCMTypes, key: Crypto.CipherKey, iv: Crypto.BinaryLike): Crypto.CipherGCM {
  return crypto().createCipheriv(algorithm, key, iv);
}

export function createDecipheriv(algorithm: Crypto.CipherGCMTypes, key: Crypto.CipherKey, iv: Crypto.BinaryLike): Crypto.DecipherGCM {
  return crypto().createDecipheriv(algorithm, key, iv);
}
