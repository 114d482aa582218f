// rfs doctor (cli.md, doctor): what an operator would check first, one row per check. It
// changes nothing anywhere: the config is read without tightening it, requests are GETs, no
// lock is taken and no file is written. Exit 0 when nothing failed, else the first failure's code.
import { resolveConnection } from '../../config/connection.js';
import type { ProfileStore } from '../../config/profiles.js';
import { givenOptions, type SettingFlags } from '../../config/settings.js';
import { writeList } from '../../output/list-writer.js';
import type { Context } from '../context.js';
import type { Input } from './index.js';
import { checkBaseUrl, checkConfigFile, checkJournal, checkKeySource, checkProfile } from './local.js';
import { checkDns, checkTcp, checkTls } from './network.js';
import { Report } from './report.js';
import { checkService } from './service.js';

const NETWORK_CHECKS = ['dns', 'tcp', 'tls', 'round-trip', 'key', 'scopes', 'subscription', 'clock', 'failed-deliveries'];

export function options({ command }: Input): SettingFlags {
  return givenOptions(command) as SettingFlags;
}

export async function run(ctx: Context, flags: SettingFlags): Promise<number> {
  const report = new Report();
  await diagnose(ctx, flags, report);
  await writeList(
    ctx.io,
    ctx.globals.output,
    report.rows,
    {
      color: ctx.globals.color,
      columns: [
        { header: 'CHECK', value: (r) => r.check },
        { header: 'RESULT', value: (r) => r.result },
        { header: 'DETAIL', value: (r) => r.detail, flex: true },
      ],
      // Its advice is read whole: wrapped at words under the column, never cut.
      wrapLast: true,
    },
    { toJson: ({ check, result, detail, found }) => ({ check, result, detail, ...(found === undefined ? {} : { found }) }) },
  );
  return report.exitCode();
}

async function diagnose(ctx: Context, flags: SettingFlags, report: Report): Promise<void> {
  const store = checkConfigFile(ctx, report);
  if (store === undefined)
    return skipAll(report, ['profile', 'key-source', 'base-url', ...NETWORK_CHECKS, 'sync-journal'], 'the config file cannot be read');
  const selected = checkProfile(ctx, store, report);
  if (selected === undefined) return skipAll(report, ['key-source', 'base-url', ...NETWORK_CHECKS, 'sync-journal'], 'no profile to check');
  const hasKey = checkKeySource(ctx, selected, report);
  const url = checkBaseUrl(ctx, flags, selected, store, report);
  if (url === undefined) {
    skipAll(report, NETWORK_CHECKS, 'no base URL to reach');
  } else {
    await checkNetwork(ctx, url, hasKey, store, report);
  }
  checkJournal(ctx, selected.name, report);
}

async function checkNetwork(ctx: Context, url: URL, hasKey: boolean, store: ProfileStore, report: Report): Promise<void> {
  const address = await checkDns(ctx, url, report);
  if (address === undefined) return skipAll(report, NETWORK_CHECKS.slice(1), 'the name does not resolve');
  if (!(await checkTcp(ctx, url, address, report))) return skipAll(report, NETWORK_CHECKS.slice(2), 'the service is not reachable');
  if (!(await checkTls(ctx, url, address, report))) return skipAll(report, NETWORK_CHECKS.slice(3), 'no trusted TLS connection');
  if (!hasKey) return skipAll(report, NETWORK_CHECKS.slice(3), 'no usable API key');
  // Every check above passed, so this is the connection every other command would use.
  const connection = resolveConnection(ctx.globals, ctx.io.env, store);
  const client = await ctx.connect(connection, { check: true });
  await checkService(ctx, client, report, connection);
}

function skipAll(report: Report, checks: string[], why: string): void {
  for (const check of checks) report.skip(check, why);
}
