// The example of `rfs webhooks sign --help` and the README, run as written:
// `rfs webhooks sign … | curl -H @- …` against a real receiver (`rfs webhooks listen --port 0`)
// that verifies the delivery with the same secret. Piped, sign's stdout is not a terminal, and
// it must still print header lines (json only with an explicit -o json), or curl sends `{` as a
// header and the receiver answers 400.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RFS_BIN } from '../../../helpers/child.js';

const SECRET = 'whsec_curlexamplesecret0123456789abcd';
const BODY = '{"id":"dlv_curlexample000000001","event":"recording.completed","data":{"id":"rec_curl","title":"Curl example"}}';
let dir = '';
let listener: ChildProcess | undefined;
let port = 0;
let listenerStdout = '';
const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: dir, RFS_CONFIG_DIR: join(dir, 'config'), HOOK_SECRET: SECRET });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-sign-curl-'));
  writeFileSync(join(dir, 'body.json'), BODY);
  writeFileSync(join(dir, 'secret.txt'), `${SECRET}\n`);
  const child = spawn(process.execPath, [RFS_BIN, 'webhooks', 'listen', '--port', '0', '--secret-env', 'HOOK_SECRET'], {
    env: env(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  listener = child;
  child.stdout?.on('data', (c: Buffer) => (listenerStdout += c.toString('utf8')));
  port = await new Promise<number>((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`listen exited ${code}: ${stderr}`)));
  });
});

afterAll(async () => {
  const child = listener;
  if (child?.pid !== undefined && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    process.kill(child.pid, 'SIGINT');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Resolves once the listener has printed `text` (its line may follow the 200 by a moment). */
async function printed(text: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!listenerStdout.includes(text)) {
    if (Date.now() > deadline) throw new Error(`the listener never printed ${text}; it printed:\n${listenerStdout}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs a shell pipeline in `dir`, with `rfs` the built CLI. */
function sh(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'sh',
      ['-c', script],
      { cwd: dir, env: { ...env(), RFS: `${process.execPath} ${RFS_BIN}` }, timeout: 15_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const curl = () =>
  `curl -sS -o /dev/null -w '%{http_code}' -H @- -H "content-type: application/json" --data-binary @body.json http://127.0.0.1:${port}/`;

describe('webhooks sign | curl -H @-', () => {
  it('is accepted by the receiver, piped, with no -o (the --help example)', async () => {
    const r = await sh(`$RFS webhooks sign --payload body.json --secret-env HOOK_SECRET | ${curl()}`);
    expect(r).toMatchObject({ code: 0, stdout: '200' });
    await printed('"verdict":"valid"');
    expect(listenerStdout).toContain('dlv_curlexample000000001');
  });

  it('is accepted with --secret-file (the README example), and never shows the secret', async () => {
    const r = await sh(`$RFS webhooks sign --payload body.json --secret-file secret.txt | ${curl()}`);
    expect(r).toMatchObject({ code: 0, stdout: '200' });
    expect(r.stdout + r.stderr + listenerStdout).not.toContain(SECRET);
  });

  it('prints the object only when -o json is given on the command line', async () => {
    const lines = await sh('$RFS webhooks sign --payload body.json --secret-env HOOK_SECRET --timestamp 1700000000');
    expect(lines.stdout.split('\n')[0]).toMatch(/^x-service-signature: sha256=[0-9a-f]{64}$/);
    const json = await sh('$RFS webhooks sign --payload body.json --secret-env HOOK_SECRET --timestamp 1700000000 -o json');
    expect(JSON.parse(json.stdout)).toMatchObject({ 'x-service-timestamp': '1700000000' });
  });
});
