/**
 * The parts of a sed script that reach outside the stream: `e` and `s///e` run shell commands,
 * `w`/`W`/`s///w` write files, `r`/`R` read them. A small scanner, not a full sed parser:
 * addresses, `{}` blocks, text commands (`a`, `i`, `c`) and labels are skipped.
 */
export function scanSedScript(script: string): { exec: boolean; writes: string[]; reads: string[] } {
  const result = { exec: false, writes: [] as string[], reads: [] as string[] };
  const s = script;
  const n = s.length;
  let i = 0;
  const skipDelimited = (from: number, delim: string): number => {
    let j = from;
    while (j < n) {
      if (s[j] === '\\') j += 2;
      else if (s[j] === delim) return j + 1;
      else j++;
    }
    return n;
  };
  const restOfLine = (): string => {
    const end = s.indexOf('\n', i);
    const text = s.slice(i, end === -1 ? n : end).trim();
    i = end === -1 ? n : end + 1;
    return text;
  };
  const skipAddress = (): void => {
    if (s[i] === '/') {
      i = skipDelimited(i + 1, '/');
      while (s[i] === 'I' || s[i] === 'M') i++;
    } else if (s[i] === '\\' && i + 1 < n) {
      i = skipDelimited(i + 2, s[i + 1]!);
      while (s[i] === 'I' || s[i] === 'M') i++;
    } else {
      while (i < n && /[0-9$~+]/.test(s[i]!)) i++;
    }
  };
  while (i < n) {
    while (i < n && /[\s;]/.test(s[i]!)) i++;
    if (i >= n) break;
    skipAddress();
    while (s[i] === ' ' || s[i] === '\t') i++;
    if (s[i] === ',') {
      i++;
      while (s[i] === ' ' || s[i] === '\t') i++;
      skipAddress();
    }
    while (i < n && /[\s!]/.test(s[i]!)) i++;
    const cmd = s[i++];
    switch (cmd) {
      case 'e':
        result.exec = true;
        restOfLine();
        break;
      case 'w':
      case 'W':
        result.writes.push(restOfLine());
        break;
      case 'r':
      case 'R':
        result.reads.push(restOfLine());
        break;
      case 'a':
      case 'i':
      case 'c':
      case '#':
        // Text to the end of the line; a trailing backslash continues it.
        while (i < n) {
          const end = s.indexOf('\n', i);
          if (end === -1) i = n;
          else {
            const continued = s[end - 1] === '\\';
            i = end + 1;
            if (!continued) break;
          }
        }
        break;
      case ':':
      case 'b':
      case 't':
      case 'T':
      case 'v':
        while (i < n && s[i] !== '\n' && s[i] !== ';') i++;
        break;
      case 's':
      case 'y': {
        const delim = s[i];
        if (delim === undefined) break;
        i = skipDelimited(skipDelimited(i + 1, delim), delim);
        if (cmd === 'y') break;
        while (i < n && /[gpIiMme0-9w]/.test(s[i]!)) {
          const flag = s[i++];
          if (flag === 'e') result.exec = true;
          if (flag === 'w') {
            result.writes.push(restOfLine());
            break;
          }
        }
        break;
      }
      default:
        break;
    }
  }
  return result;
}
