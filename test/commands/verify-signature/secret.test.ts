// Where the webhook secret comes from: --secret-file, --secret-env, else RFS_WEBHOOK_SECRET.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/core/errors.js';
import { readWebhookSecret } from '../../../src/webhooks/secret.js';

const files =
  (content: Record<string, string>) =>
  async (path: string): Promise<Buffer> => {
    const text = content[path];
    if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return Buffer.from(text, 'utf8');
  };

describe('readWebhookSecret', () => {
  it('prefers --secret-file, strips its trailing newlines and keeps inner whitespace', async () => {
    const secret = await readWebhookSecret(
      { secretFile: 's.txt' },
      { env: { RFS_WEBHOOK_SECRET: 'env' }, readFile: files({ 's.txt': ' a b \r\n\n' }) },
    );
    expect(secret).toBe(' a b ');
  });

  it('reads the variable named by --secret-env, else RFS_WEBHOOK_SECRET', async () => {
    expect(await readWebhookSecret({ secretEnv: 'HOOK' }, { env: { HOOK: 'named', RFS_WEBHOOK_SECRET: 'default' } })).toBe('named');
    expect(await readWebhookSecret({}, { env: { RFS_WEBHOOK_SECRET: 'default' } })).toBe('default');
  });

  it('refuses both sources at once, and no source at all, with a UsageError', async () => {
    await expect(readWebhookSecret({ secretEnv: 'A', secretFile: 'b' }, { env: { A: 'x' } })).rejects.toThrow(UsageError);
    const none = readWebhookSecret({}, { env: {} });
    await expect(none).rejects.toThrow(/RFS_WEBHOOK_SECRET is not set/);
    await expect(readWebhookSecret({}, { env: {} })).rejects.toMatchObject({
      hint: expect.stringMatching(/--secret-file.*--secret-env.*RFS_WEBHOOK_SECRET/),
    });
  });

  it('does not repeat a lower-case name, an invalid name or a path in its messages', async () => {
    const cases: [Parameters<typeof readWebhookSecret>[0], string][] = [
      [{ secretEnv: 'whsec_abc123' }, 'whsec_abc123'],
      [{ secretEnv: 'whsec-abc:123' }, 'whsec-abc:123'],
      [{ secretFile: 'whsec_abc123' }, 'whsec_abc123'],
    ];
    for (const [source, secretLike] of cases) {
      const error = await readWebhookSecret(source, { env: {}, readFile: files({}) }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect(String((error as Error).message) + String((error as UsageError).hint)).not.toContain(secretLike);
    }
  });
});
