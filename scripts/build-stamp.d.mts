export function buildDefines(): { RFS_VERSION: string; RFS_COMMIT: string; RFS_BUILD_DATE: string };
export function sourceFingerprint(): string;
export const FINGERPRINT_FILE: URL;
