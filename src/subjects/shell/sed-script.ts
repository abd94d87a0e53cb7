interface SedReach {
  exec: boolean;
  writes: string[];
  reads: string[];
}

/**
 * The parts of a sed script that reach outside the stream: `e` and `s///e` run shell commands,
 * `w`/`W`/`s///w` write files, `r`/`R` read them. A small scanner, not a full sed parser:
 * addresses, `{}` blocks, text commands (`a`, `i`, `c`) and labels are skipped.
 *
 * GNU sed 4.9 takes `[/]` in a regex as a bracket expression holding the delimiter (`s/[/]/x/w F`
 * writes F), which a scan that ends the regex at the first `/` misreads (round 11 review). The
 * script is scanned both ways and what either reading finds counts: a reading too many only asks.
 */
export function scanSedScript(script: string): SedReach {
  const plain = scan(script, false);
  const bracketed = scan(script, true);
  return {
    exec: plain.exec || bracketed.exec,
    writes: [...new Set([...plain.writes, ...bracketed.writes])],
    reads: [...new Set([...plain.reads, ...bracketed.reads])],
  };
}

function scan(script: string, brackets: boolean): SedReach {
  const result = { exec: false, writes: [] as string[], reads: [] as string[] };
  const s = script;
  const n = s.length;
  let i = 0;
  // A regex (an address or the pattern of `s`) up to its closing delimiter; with `brackets`, a
  // bracket expression (`[/]`, `[]/]`, `[^]/]`, `[[:alpha:]/]`) does not end it.
  const skipDelimited = (from: number, delim: string, regex = false): number => {
    let j = from;
    while (j < n) {
      if (s[j] === '\\') j += 2;
      else if (regex && brackets && s[j] === '[') j = skipBracket(j + 1);
      else if (s[j] === delim) return j + 1;
      else j++;
    }
    return n;
  };
  const skipBracket = (from: number): number => {
    let j = from;
    if (s[j] === '^') j++;
    if (s[j] === ']') j++;
    while (j < n && s[j] !== ']') {
      const close = s[j] === '[' ? { ':': ':]', '=': '=]', '.': '.]' }[s[j + 1] ?? ''] : undefined;
      if (close !== undefined) {
        const end = s.indexOf(close, j + 2);
        j = end === -1 ? n : end + 2;
      } else j++;
    }
    return j + 1;
  };
  const restOfLine = (): string => {
    const end = s.indexOf('\n', i);
    const text = s.slice(i, end === -1 ? n : end).trim();
    i = end === -1 ? n : end + 1;
    return text;
  };
  const skipAddress = (): void => {
    if (s[i] === '/') {
      i = skipDelimited(i + 1, '/', true);
      while (s[i] === 'I' || s[i] === 'M') i++;
    } else if (s[i] === '\\' && i + 1 < n) {
      i = skipDelimited(i + 2, s[i + 1]!, true);
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
        // GNU sed 4.9 ends a label at a blank too (`:x e rm f` runs `rm f`): what follows is read as
        // commands (round 11 review).
        while (i < n && s[i] === ' ') i++;
        while (i < n && !/[\s;]/.test(s[i]!)) i++;
        break;
      case 's':
      case 'y': {
        const delim = s[i];
        if (delim === undefined) break;
        i = skipDelimited(skipDelimited(i + 1, delim, cmd === 's'), delim);
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
