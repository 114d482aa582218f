// The types of scripts/openapi-types.mjs, for test/contract/typed-client.test.ts.
export declare const OPENAPI: URL;
export declare const TYPES_FILE: string;
export declare function openapiTypes(): Promise<string>;
