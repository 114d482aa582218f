// Every rfs command line of the docs (docs/*.md, README.md) names a command that exists: the
// words after `rfs` up to the first flag or argument are a path of the command tree, the one
// that docs/reference.md, the completions and the man page are made from (src/cli/reference.ts).
// A line that names a group and then a word that is none of its commands
// (`rfs webhooks verify-signature`, where the command is `rfs verify-signature`) fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandPaths } from '../../src/cli/reference.js';

const ROOT = new URL('../../', import.meta.url);
const FILES = [
  'README.md',
  ...readdirSync(new URL('docs/', ROOT))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

// `help` is commander's help command (its words are commands or topics: test/cli covers them).
const PATHS = new Set(['help', ...commandPaths().map((p) => p.join(' '))]);
/** Paths with commands under them: a word after one must be one of them. */
const GROUPS = new Set([...PATHS].flatMap((p) => [...PATHS].filter((q) => q.startsWith(`${p} `)).map(() => p)));

/**
 * An rfs invocation: `rfs` as a word (not rfs-cli, ./rfs.js, .rfs) and not a flag's value
 * (`kubectl … -n rfs`), then its words.
 */
const INVOCATION = /(?<![\w./-])(?<!(?:^|\s)--?[\w-]+[ \t]+)rfs((?:[ \t]+[^\s|;&)`'"]+)*)/g;
/** A word of a command path: lowercase letters, digits and dashes, not a flag. */
const WORD = /^[a-z][a-z0-9-]*$/;

interface Line {
  where: string;
  text: string;
}

/** The lines where a reader types rfs: shell blocks (all but comments), transcripts' `$ ` lines, and inline code. */
function commandLines(file: string): Line[] {
  const lines = readFileSync(new URL(file, ROOT), 'utf8').split('\n');
  const out: Line[] = [];
  let fence: string | undefined;
  lines.forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    const open = /^\s*```(\S*)/.exec(line);
    if (open) {
      fence = fence === undefined ? open[1] : undefined;
      return;
    }
    if (fence !== undefined) {
      if (['sh', 'bash', 'shell', 'console', ''].includes(fence) && !line.trimStart().startsWith('#')) {
        // A console/transcript line is a command only after its prompt.
        if (fence === 'console' ? line.startsWith('$ ') : true) out.push({ where, text: line.replace(/\s#\s.*$/, '') });
      }
      if (fence === 'text' && line.startsWith('$ ')) out.push({ where, text: line.slice(2) });
      return;
    }
    for (const [, code] of line.matchAll(/`([^`]+)`/g)) if (/^(\$ )?rfs\b/.test(code ?? '')) out.push({ where, text: code ?? '' });
  });
  return out;
}

/** What is wrong with the command an invocation names, or undefined. */
function wrongPath(words: string[]): string | undefined {
  const path: string[] = [];
  for (const word of words) {
    if (!WORD.test(word)) break;
    if (!PATHS.has([...path, word].join(' '))) {
      if (path.length === 0) return `no command "rfs ${word}"`;
      if (GROUPS.has(path.join(' '))) return `"rfs ${path.join(' ')}" has no command "${word}"`;
      break;
    }
    path.push(word);
  }
  return undefined;
}

describe('the rfs command lines of the docs', () => {
  it('are read from every page (a check that reads nothing passes anything)', () => {
    const all = FILES.flatMap(commandLines);
    expect(all.length).toBeGreaterThan(100);
    expect(all.some((l) => l.text.includes('rfs verify-signature'))).toBe(true);
  });

  it('tells a group followed by a word that is none of its commands', () => {
    expect(wrongPath(['webhooks', 'verify-signature'])).toBe('"rfs webhooks" has no command "verify-signature"');
    expect(wrongPath(['verify-signature', '--payload'])).toBeUndefined();
    expect(wrongPath(['webhooks', 'delete', 'wh_123'])).toBeUndefined();
    expect(wrongPath(['recordz'])).toBe('no command "rfs recordz"');
  });

  for (const file of FILES) {
    it(`${file}: each names a real command path`, () => {
      const wrong: string[] = [];
      for (const line of commandLines(file)) {
        for (const [, rest] of line.text.matchAll(INVOCATION)) {
          const problem = wrongPath((rest ?? '').trim().split(/\s+/).filter(Boolean));
          if (problem !== undefined) wrong.push(`${line.where}: ${problem}: ${line.text.trim()}`);
        }
      }
      expect(wrong).toEqual([]);
    });
  }
});
