// The types of scripts/checks.mjs, for test/build/generated-checks.test.ts.
export interface Target {
  source: string;
  output: string;
  runtime: string;
  shapes: string[];
  functions: Record<string, string>;
}
export declare const TARGETS: Target[];
export declare function generate(target: Target | undefined, schemas: unknown): string;
export declare function staleChecks(): Promise<{ target: Target; text: string; file: URL }[]>;
