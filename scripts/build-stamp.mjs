// What a build of rfs says about itself (`rfs --version --verbose`): the values esbuild puts in
// place of RFS_VERSION, RFS_COMMIT and RFS_BUILD_DATE (src/globals.d.ts). Shared by every build:
// scripts/build.mjs (dist/) and scripts/commonjs-bundle.mjs (dist/bundle/, the single executables).
//
// The commit is the checkout's HEAD, with "-dirty" when tracked files differ from it, or
// "unknown" outside a git checkout. The build date is SOURCE_DATE_EPOCH when set (a rebuild of
// the same commit then says the same), else now; to the second, in UTC.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const ROOT = new URL('..', import.meta.url);

function git(args) {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
}

function commit() {
  let head;
  try {
    head = git(['rev-parse', '--short=12', 'HEAD']);
  } catch {
    return 'unknown';
  }
  try {
    git(['diff', '--quiet', 'HEAD', '--']);
    return head;
  } catch {
    return `${head}-dirty`;
  }
}

function buildDate() {
  const epoch = process.env.SOURCE_DATE_EPOCH;
  const date = epoch && /^\d+$/.test(epoch) ? new Date(Number(epoch) * 1000) : new Date();
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

let stamp;
/** esbuild's `define` for this build: computed once per process, so every bundle agrees. */
export function buildDefines() {
  if (stamp === undefined) {
    const { version } = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8'));
    stamp = {
      RFS_VERSION: JSON.stringify(version),
      RFS_COMMIT: JSON.stringify(commit()),
      RFS_BUILD_DATE: JSON.stringify(buildDate()),
    };
  }
  return stamp;
}

/**
 * What dist/ was built from: the Node that ran the build (the single executable carries it, and
 * whether it reads NODE_OPTIONS depends on it) and the content of every file a build reads (not
 * HEAD: a commit that changes no source needs no new build). scripts/build.mjs
 * writes it to dist/.fingerprint; the test suite's global set-up builds again only when it differs,
 * so `npx vitest run` works on a fresh clone and costs nothing more on a fresh build.
 */
export function sourceFingerprint() {
  const hash = createHash('sha256');
  hash.update(`node ${process.version} ${process.platform}-${process.arch}`);
  let files;
  try {
    files = git(['ls-files', '-co', '--exclude-standard', 'src', 'bin', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json'])
      .split('\n')
      .filter(Boolean)
      .sort();
  } catch {
    return 'unknown';
  }
  for (const file of files) {
    hash.update(`\0${file}\0`);
    try {
      hash.update(readFileSync(new URL(file, ROOT)));
    } catch {
      hash.update('missing');
    }
  }
  return hash.digest('hex');
}

export const FINGERPRINT_FILE = new URL('dist/.fingerprint', ROOT);
