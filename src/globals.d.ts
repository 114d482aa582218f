/** Replaced at build time (scripts/build.mjs) and in tests (vitest.config.ts) with package.json's version. */
declare const RFS_VERSION: string;
/** The commit and the UTC date of the build (scripts/build-stamp.mjs; vitest.config.ts in tests): `rfs --version --verbose`. */
declare const RFS_COMMIT: string;
declare const RFS_BUILD_DATE: string;
