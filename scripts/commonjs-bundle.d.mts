// The types of what test/build/bundle-split.test.ts uses of scripts/commonjs-bundle.mjs.

/** The second script of the split bundle: beside the first, and the single executable's asset of that name. */
export declare const SECOND_SCRIPT: string;

/** The CLI (or `entry`) as two CommonJS files: `firstOut`, and SECOND_SCRIPT beside it. */
export declare function bundleSplit(
  entry: string,
  firstOut: string,
  options?: { minify?: boolean; sourcemap?: boolean },
): Promise<{ first: string; second: string; firstModules: Set<string>; secondModules: Set<string> }>;
