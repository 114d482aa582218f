/** Replaced at build time (scripts/build.mjs) and in tests (vitest.config.ts) with package.json's version. */
declare const RFS_VERSION: string;
