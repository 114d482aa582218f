// openapi.json under Redocly's recommended ruleset, run by Redocly's own CLI (a devDependency,
// bundled: it needs no network; telemetry and the update check are switched off so that it
// never tries): no error and no warning. And what the rules cannot see: the licence is the
// package's, and a 400 says, per operation, what that operation checks, since the answer itself
// names no field (api.md, Errors).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REDOCLY = fileURLToPath(new URL('../../node_modules/@redocly/cli/bin/cli.js', import.meta.url));

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
}

function redoclyLint(file: string): Promise<LintReport> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [REDOCLY, 'lint', file, '--extends', 'recommended', '--format', 'json'],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: ROOT, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        timeout: 120_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        // Exit 1 when there are errors; the JSON report is on stdout either way.
        try {
          resolve(JSON.parse(stdout) as LintReport);
        } catch {
          reject(new Error(`redocly lint printed no report (${error?.message ?? 'exit 0'}): ${stderr}`));
        }
      },
    );
  });
}

// biome-ignore lint/suspicious/noExplicitAny: the document is read field by field below
const doc: any = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));

describe('openapi.json under Redocly', () => {
  it("has no error and no warning under Redocly's recommended ruleset", async () => {
    const report = await redoclyLint('openapi.json');
    const problems = report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  }, 150_000);

  it("carries the package's licence", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(doc.info.license).toEqual({ name: pkg.license, identifier: pkg.license });
  });

  it('says for each 400 what the operation checks, since the answer names no field', () => {
    const deliveries = doc.paths['/webhooks/deliveries'].get.responses['400'];
    expect(deliveries.$ref).toBe('#/components/responses/Problem400');
    expect(deliveries.description).toMatch(/INVALID_INPUT: a query parameter outside its schema \(status, subscriptionId, limit\)/);
    expect(doc.paths['/webhooks'].post.responses['400'].description).toMatch(
      /a body that is not WebhookCreateRequest.*IDEMPOTENCY_KEY_REQUIRED/,
    );
    expect(doc.paths['/openapi.json'].get.responses['400'].description).toMatch(/any query parameter \(this operation takes none\)/);
  });
});
