// `rfs --version` prints the version alone (bin/rfs.js and src/sea/entry.ts answer it before
// any of this loads; commander otherwise). With --verbose (-v) it adds what a bug report needs
// about the build: the commit and date it was built from (scripts/build-stamp.mjs) and the Node
// and platform it runs on (inside a single executable, the Node it carries).

/** `--version` together with -v/--verbose (alone, or among combined short flags such as -qv), and nothing else. */
export function asksVerboseVersion(argv: readonly string[]): boolean {
  if (!argv.includes('--version')) return false;
  const others = argv.filter((a) => a !== '--version');
  return others.length > 0 && others.every((a) => a === '--verbose' || a === '-v');
}

export function verboseVersion(): string {
  return [
    `${RFS_VERSION}`,
    `commit:    ${RFS_COMMIT}`,
    `built:     ${RFS_BUILD_DATE}`,
    `node:      ${process.version}`,
    `platform:  ${process.platform}-${process.arch}`,
    '',
  ].join('\n');
}
