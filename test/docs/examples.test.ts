// Every `$ rfs …` example of README.md and docs/*.md runs, as a reader would run it, and prints
// what the page says it prints. Each page gets its own sandbox (`rfs sandbox
// --seed 42`, the quick start's; `<!-- example: new sandbox scenario=incident -->` starts
// another), a config folder where the sandbox's admin key is logged in as the default profile
// (the quick start's `rfs auth login --with-key`), and a working folder. Each command runs in a
// real terminal of 80 columns (util-linux `script`, a pseudo-terminal: what a person sees,
// stdout and stderr as they interleave) with the built CLI as `rfs` on the PATH.
// The sandbox listens where the pages say, 127.0.0.1:4010 (`rfs sandbox`'s default), or on
// the next free port of four digits when that one is taken (taken by binding it, as port 0
// would: never a port in use), so that tables holding the URL are as wide as a reader's.
// What differs between two runs of the same command is normalised, and only that: that
// port and those the scenario's receivers get, the temporary folders, and the tokens the
// service makes anew on every run (cursors, which carry their expiry, also when a notice
// wrapped one onto a line of its own; request ids). Times of the run itself are kept out of the examples instead (a
// `--jq` picks the fields that stay the same), and TZ=UTC makes local times the same anywhere.
// `RFS_UPDATE_DOCS=1 npx vitest run test/docs/examples.test.ts` writes what ran into the pages;
// `RFS_DOCS_PAGES=README.md,docs/sync.md` runs only those pages.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, type SandboxOptions, type ScenarioName, startSandbox } from '../../src/sandbox/index.js';
import { type Example, readExamples, type Step, terminalText, transcript } from './examples.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RFS_BIN = join(ROOT, 'bin/rfs.js');
const ALL_PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const PAGES = process.env.RFS_DOCS_PAGES ? ALL_PAGES.filter((p) => process.env.RFS_DOCS_PAGES?.split(',').includes(p)) : ALL_PAGES;
const UPDATE = process.env.RFS_UPDATE_DOCS === '1';
const SEED = 42;

interface Session {
  sandbox: RunningSandbox;
  home: string;
  env: NodeJS.ProcessEnv;
}

const sessions: Session[] = [];
afterAll(async () => {
  for (const s of sessions) {
    await s.sandbox.close();
    rmSync(s.home, { recursive: true, force: true });
  }
});

async function openSession({ scenario, login = true }: { scenario?: string; login?: boolean } = {}): Promise<Session> {
  const sandbox = await startOnFourDigitPort(scenario);
  const home = mkdtempSync(join(tmpdir(), 'rfs-docs-'));
  const bin = join(home, 'bin');
  const work = join(home, 'work');
  mkdirSync(bin);
  mkdirSync(work);
  writeFileSync(join(bin, 'rfs'), `#!/bin/sh\nexec "${process.execPath}" "${RFS_BIN}" "$@"\n`);
  chmodSync(join(bin, 'rfs'), 0o755);
  const keys = sandbox.apiKeys;
  const env: NodeJS.ProcessEnv = {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: home,
    LANG: 'C.UTF-8',
    TZ: 'UTC',
    TERM: 'xterm-256color',
    NO_COLOR: '1',
    RFS_NO_INPUT: '1',
    RFS_CONFIG_DIR: join(home, '.config/rfs'),
    XDG_STATE_HOME: join(home, '.local/state'),
    RFS_WORK: work,
    // The names the pages use for the keys the sandbox's banner prints.
    SANDBOX_ADMIN_KEY: keys.admin,
    READ_ONLY_KEY: keys.readOnly,
    WRITE_ONLY_KEY: keys.writeOnly,
    WEBHOOKS_KEY: keys.webhooks,
  };
  const session = { sandbox, home, env };
  sessions.push(session);
  if (!login) return session;
  const done = await runStep(
    session,
    `printf %s "$SANDBOX_ADMIN_KEY" | rfs auth login --with-key --base-url ${sandbox.baseUrl} > /dev/null 2>&1`,
    80,
  );
  if (done.code !== 0) throw new Error(`logging in to the docs' sandbox failed: ${done.text}`);
  return session;
}

async function startOnFourDigitPort(scenario: string | undefined): Promise<RunningSandbox> {
  for (let port = 4010; port < 4100; port++) {
    const options: SandboxOptions = { port, seed: SEED };
    // A name the sandbox does not know is refused by startSandbox, naming the ones it does.
    if (scenario !== undefined) options.scenario = scenario as ScenarioName;
    try {
      return await startSandbox(options);
    } catch (error) {
      if (!String(error).includes('EADDRINUSE') && !String(error).includes('in use')) throw error;
    }
  }
  throw new Error('no free port from 4010 to 4099 for the docs sandbox');
}

/** Runs one command line in a pseudo-terminal of `columns` columns; its screen text and exit code. */
function runStep(session: Session, typed: string, columns: number): Promise<{ text: string; code: number }> {
  // The sandbox the pages talk about listens on 4010; this one wherever port 0 put it.
  const command = typed.replaceAll('127.0.0.1:4010', new URL(session.sandbox.baseUrl).host);
  const script = `stty cols ${columns} rows 50; cd "$RFS_WORK" || exit 99\n${command}`;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', script, '/dev/null'], { env: session.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => chunks.push(c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ text: Buffer.concat(chunks).toString('utf8'), code: code ?? -1 });
    });
  });
}

/** What a terminal shows of `raw`: escape sequences gone, a line rewritten by `\r` as it was left. */
function screen(raw: string, session: Session): string[] {
  const port = new URL(session.sandbox.baseUrl).port;
  const lines = terminalText(raw).map((line) =>
    line
      .replaceAll(`127.0.0.1:${port}`, '127.0.0.1:4010')
      .replaceAll(`localhost:${port}`, 'localhost:4010')
      .replaceAll(session.env.RFS_CONFIG_DIR ?? '\0', '~/.config/rfs')
      .replaceAll(session.env.XDG_STATE_HOME ?? '\0', '~/.local/state')
      .replaceAll(session.env.RFS_WORK ?? '\0', '.')
      .replace(/--cursor [A-Za-z0-9_-]{16,}/g, '--cursor …')
      // A cursor wrapped onto a line of its own (a notice at words).
      .replace(/^[A-Za-z0-9_-]{60,}$/, '…')
      // The ports the sandbox's own receivers got (--scenario incident): port 0's, as its own.
      .replace(/127\.0\.0\.1:(?!4010\b)\d{5}\b/g, '127.0.0.1:PORT')
      .replace(/\breq_[A-Za-z0-9]{6,}/g, 'req_…'),
  );
  return lines;
}

/** The exit status a transcript shows after a step: `echo $?` on the next line, or `; echo "exit $?"`. */
async function runExample(example: Example, session: Session): Promise<Step[]> {
  const ran: Step[] = [];
  for (const step of example.steps) {
    const { text } = await runStep(session, step.command, example.columns);
    ran.push({ command: step.command, output: cut(screen(text, session), example.head) });
  }
  return ran;
}

// `echo $?` on a line of its own reads the status of the command before it: the steps of one
// block therefore run in one shell, joined so that each step's output can still be told apart.
async function runBlock(example: Example, session: Session): Promise<Step[]> {
  if (!example.steps.some((s) => /^echo "?\$\?"?$/.test(s.command.trim()))) return runExample(example, session);
  const marker = `--rfs-docs-step-${process.pid}--`;
  const joined = example.steps
    .map((s, i) => (i === 0 ? s.command : `printf '%s\\n' '${marker}'; (exit $__s); ${s.command}`))
    .join('\n__s=$?; ');
  const { text } = await runStep(session, `__s=0; ${joined}`, example.columns);
  const parts = screen(text, session).join('\n').split(`${marker}\n`);
  return example.steps.map((s, i) => ({
    command: s.command,
    output: cut(
      (parts[i] ?? '').split('\n').filter((_, j, all) => j < all.length - 1 || all[j] !== ''),
      example.head,
    ),
  }));
}

/** The first `head` lines, and `…` in place of the rest. */
function cut(lines: string[], head: number | undefined): string[] {
  return head === undefined || lines.length <= head ? lines : [...lines.slice(0, head), '…'];
}

const byPage = new Map<string, Example[]>();
for (const page of ALL_PAGES) byPage.set(page, readExamples(join(ROOT, page)));

describe('the examples of the README and docs/ run as written', () => {
  it('finds examples in the README and in every guide that shows output', () => {
    expect(byPage.get('README.md')?.length ?? 0).toBeGreaterThanOrEqual(3);
    const pagesWithExamples = [...byPage.values()].filter((e) => e.length > 0).length;
    expect(pagesWithExamples).toBeGreaterThan(4);
  });

  it('gives every example it does not run a reason', () => {
    for (const examples of byPage.values())
      for (const e of examples) if (e.skip !== undefined) expect(e.skip.length, `${e.file}:${e.line}`).toBeGreaterThan(10);
  });

  for (const page of PAGES) {
    const examples = byPage.get(page) ?? [];
    if (examples.every((e) => e.skip !== undefined)) continue;
    it(`${page}: every example prints what the page shows`, { timeout: 300_000 }, async () => {
      let session: Session | undefined;
      const results: { example: Example; ran: Step[] }[] = [];
      for (const example of examples) {
        if (example.skip !== undefined) continue;
        if (session === undefined || example.newSandbox !== undefined) session = await openSession(example.newSandbox);
        results.push({ example, ran: await runBlock(example, session) });
      }
      if (UPDATE) {
        const lines = readFileSync(join(ROOT, page), 'utf8').split('\n');
        for (const { example, ran } of [...results].reverse()) {
          lines.splice(example.start, example.end - example.start, ...transcript(ran));
        }
        writeFileSync(join(ROOT, page), lines.join('\n'));
        return;
      }
      for (const { example, ran } of results) {
        expect(transcript(ran).join('\n'), `${page}:${example.line} (RFS_UPDATE_DOCS=1 rewrites it)`).toBe(
          transcript(example.steps).join('\n'),
        );
      }
    });
  }
});
