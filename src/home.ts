/**
 * `~` for the user's home directory, as people write it in config files, server arguments and tool
 * paths: `~` alone or followed by `/` (or `\` on Windows). `~user` is another user's home and is not
 * this notation.
 */
export function isHomePath(path: string, platform: NodeJS.Platform = process.platform): boolean {
  return path === '~' || path.startsWith('~/') || (platform === 'win32' && path.startsWith('~\\'));
}

/** `path` with a leading `~` replaced by `home`; any other path as written. */
export function expandHome(path: string, home: string, platform: NodeJS.Platform = process.platform): string {
  return isHomePath(path, platform) ? home + path.slice(1) : path;
}
