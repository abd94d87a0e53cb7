import { emitKeypressEvents, createInterface } from 'node:readline';
import { escapeText } from '../latch/escape.js';

/**
 * A small terminal UI for `mcp-latch try`: line input with completion, and a choice list driven by
 * the arrow keys. Everything shown that came from a server or a call goes through `escapeText`, so
 * a tool result cannot move the cursor, clear the screen or fake a prompt. Without a TTY (piped
 * input) choices fall back to typing a number.
 */
export interface Terminal {
  print(text: string): void;
  /** Prints server- or call-supplied text, escaped. */
  show(text: string): void;
  question(prompt: string, complete?: (line: string) => string[]): Promise<string | null>;
  /** Index of the chosen option, or null when dismissed (Esc, Ctrl-C, end of input). */
  choose(title: string, options: string[]): Promise<number | null>;
  close(): void;
}

const ESC = '\u001b';

export function createTerminal(input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stdout): Terminal {
  const tty = Boolean(input.isTTY && output.isTTY);
  if (tty) emitKeypressEvents(input);
  // Piped input: one reader for the whole session, so lines sent ahead of a question wait for it.
  const queued: string[] = [];
  const waiting: Array<(line: string | null) => void> = [];
  let ended = false;
  if (!tty) {
    const reader = createInterface({ input, terminal: false });
    reader.on('line', (line) => (waiting.length > 0 ? waiting.shift()!(line) : queued.push(line)));
    reader.on('close', () => {
      ended = true;
      for (const waiter of waiting.splice(0)) waiter(null);
    });
  }

  const question = (prompt: string, complete?: (line: string) => string[]): Promise<string | null> => {
    if (!tty) {
      output.write(prompt);
      if (queued.length > 0) {
        const line = queued.shift()!;
        output.write(`${line}\n`);
        return Promise.resolve(line);
      }
      if (ended) return Promise.resolve(null);
      return new Promise((resolve) => waiting.push(resolve));
    }
    return new Promise((resolve) => {
      const rl = createInterface({
        input,
        output,
        terminal: true,
        ...(complete ? { completer: (line: string) => [complete(line), line] as [string[], string] } : {}),
      });
      let settled = false;
      const finish = (value: string | null) => {
        if (settled) return;
        settled = true;
        rl.close();
        resolve(value);
      };
      rl.on('line', (line) => finish(line));
      rl.on('close', () => finish(null));
      rl.on('SIGINT', () => finish(null));
      rl.setPrompt(prompt);
      rl.prompt();
    });
  };

  const choose = async (title: string, options: string[]): Promise<number | null> => {
    if (!tty) {
      output.write(`${title}\n${options.map((option, index) => `  ${index + 1}) ${escapeText(option)}`).join('\n')}\n`);
      const answer = await question(`Choose 1-${options.length}: `);
      const index = Number(answer) - 1;
      return Number.isInteger(index) && index >= 0 && index < options.length ? index : null;
    }
    return new Promise((resolve) => {
      let selected = 0;
      const render = (first: boolean) => {
        if (!first) output.write(`${ESC}[${options.length + 1}A`);
        output.write(`${ESC}[2K${title}  (↑/↓ to move, Enter to choose, Esc to dismiss)\n`);
        options.forEach((option, index) => {
          const line = `${index === selected ? '> ' : '  '}${escapeText(option)}`;
          output.write(`${ESC}[2K${index === selected ? `${ESC}[7m${line}${ESC}[0m` : line}\n`);
        });
      };
      const done = (value: number | null) => {
        input.removeListener('keypress', onKey);
        input.setRawMode?.(false);
        input.pause();
        resolve(value);
      };
      const onKey = (_text: string | undefined, key: { name?: string; ctrl?: boolean } | undefined) => {
        if (!key) return;
        if (key.name === 'up' || key.name === 'k') selected = (selected + options.length - 1) % options.length;
        else if (key.name === 'down' || key.name === 'j' || key.name === 'tab') selected = (selected + 1) % options.length;
        else if (key.name === 'return' || key.name === 'enter') return done(selected);
        else if (key.name === 'escape' || (key.ctrl && key.name === 'c') || (key.ctrl && key.name === 'd')) return done(null);
        else return;
        render(false);
      };
      render(true);
      input.setRawMode?.(true);
      input.resume();
      input.on('keypress', onKey);
    });
  };

  return {
    print: (text) => output.write(`${text}\n`),
    show: (text) => output.write(`${text.split('\n').map(escapeText).join('\n')}\n`),
    question,
    choose,
    close: () => {
      input.setRawMode?.(false);
      input.pause();
    },
  };
}
