// The examples of README.md and docs/*.md, read as a person reads them: a fenced `text` block
// whose first line starts with `$ ` is a terminal transcript — commands after `$ ` (a line
// ending in `\` goes on), each followed by what it printed. test/docs/examples.test.ts runs
// them against a sandbox and compares; `RFS_UPDATE_DOCS=1` writes what they printed instead.
//
// An HTML comment on the line before a block says how to run it:
//   <!-- example: skip — <why> -->          not run (a long-running or interactive command)
//   <!-- example: columns=120 -->           a terminal of that width (default 80)
//   <!-- example: new sandbox [scenario=incident] [login=no] -->  a fresh sandbox and config
//                                           folder from this block on (login=no: no profile yet)
//   <!-- example: head=N -->                each step's first N lines, then `…` if it printed more
import { readFileSync } from 'node:fs';

export interface Step {
  /** The command as typed, continuation lines joined with their `\`. */
  command: string;
  /** What the transcript shows it printed, one string per line. */
  output: string[];
}

export interface Example {
  file: string;
  /** 1-based line of the block's opening fence. */
  line: number;
  /** The block's lines, fences excluded, for writing back. */
  start: number;
  end: number;
  steps: Step[];
  skip?: string;
  columns: number;
  newSandbox?: { scenario?: string; login?: boolean };
  /** Only the first lines of each step's output are shown (and compared), then `…`. */
  head?: number;
}

const DIRECTIVE = /^<!-- example: (.*?) -->$/;

export function readExamples(file: string, text = readFileSync(file, 'utf8')): Example[] {
  const lines = text.split('\n');
  const examples: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```text' && lines[i] !== '```console') continue;
    const close = lines.indexOf('```', i + 1);
    if (close < 0) throw new Error(`${file}:${i + 1}: a code block that never closes`);
    const body = lines.slice(i + 1, close);
    if (body[0]?.startsWith('$ ')) {
      const example: Example = { file, line: i + 1, start: i + 1, end: close, steps: parseSteps(body), columns: 80 };
      const directive = DIRECTIVE.exec(lines[i - 1] ?? '')?.[1];
      if (directive !== undefined) applyDirective(example, directive, `${file}:${i}`);
      examples.push(example);
    }
    i = close;
  }
  return examples;
}

function applyDirective(example: Example, directive: string, where: string): void {
  const skip = /^skip — (.+)$/.exec(directive);
  if (skip) {
    example.skip = skip[1];
    return;
  }
  for (const word of directive.split(/\s+/)) {
    const [key, value] = word.split('=');
    if (key === 'columns' && value) example.columns = Number(value);
    else if (key === 'new' || key === 'sandbox') example.newSandbox ??= {};
    else if (key === 'scenario' && value) example.newSandbox = { ...example.newSandbox, scenario: value };
    else if (key === 'login' && value === 'no') example.newSandbox = { ...example.newSandbox, login: false };
    else if (key === 'head' && value) example.head = Number(value);
    else
      throw new Error(
        `${where}: unknown example directive "${word}" (skip — why, columns=N, new sandbox, scenario=NAME, login=no, head=N)`,
      );
  }
}

function parseSteps(body: string[]): Step[] {
  const steps: Step[] = [];
  for (let i = 0; i < body.length; i++) {
    const line = body[i] ?? '';
    if (line.startsWith('$ ')) {
      let command = line.slice(2);
      while (command.endsWith('\\') && i + 1 < body.length) {
        i += 1;
        command = `${command}\n${body[i]}`;
      }
      steps.push({ command, output: [] });
    } else steps.at(-1)?.output.push(line);
  }
  return steps;
}

/** The block's new lines, each step's command then its output. */
export function transcript(steps: readonly Step[]): string[] {
  return steps.flatMap((s) => [`$ ${s.command}`, ...s.output]);
}

/**
 * The text a terminal is left showing after `raw` was written to it: enough of a VT100 to
 * replay what rfs and its spinners write (cursor to a column, up and down, erasing a line,
 * carriage returns), so that a spinner that was drawn and erased is not in the transcript.
 */
export function terminalText(raw: string): string[] {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  const line = (): string[] => {
    while (lines.length <= row) lines.push([]);
    return lines[row] as string[];
  };
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i] as string;
    if (ch === '\x1b') {
      const csi = /^\x1b\[([0-9;?]*)([A-Za-z])/.exec(raw.slice(i, i + 16));
      if (csi) {
        i += csi[0].length - 1;
        const n = Number.parseInt(csi[1] || '1', 10) || 1;
        const arg = csi[1] ?? '';
        switch (csi[2]) {
          case 'G':
            col = n - 1;
            break;
          case 'C':
            col += n;
            break;
          case 'D':
            col = Math.max(0, col - n);
            break;
          case 'A':
            row = Math.max(0, row - n);
            break;
          case 'B':
            row += n;
            break;
          case 'K':
            if (arg === '' || arg === '0') line().length = Math.min(line().length, col);
            else if (arg === '2') line().length = 0;
            else for (let c = 0; c <= col && c < line().length; c++) line()[c] = ' ';
            break;
        }
        continue;
      }
      const other = /^\x1b(\][^\x07]*\x07|[()][A-Z0-9]|.)/.exec(raw.slice(i));
      i += (other?.[0].length ?? 1) - 1;
      continue;
    }
    if (ch === '\r') col = 0;
    else if (ch === '\n') {
      row += 1;
      col = 0;
      line();
    } else if (ch === '\b') col = Math.max(0, col - 1);
    else {
      const l = line();
      while (l.length < col) l.push(' ');
      l[col] = ch;
      col += 1;
    }
  }
  const text = lines.map((l) => l.join('').trimEnd());
  while (text.length > 0 && text.at(-1) === '') text.pop();
  return text;
}
