// The streaming check (verify-signature's payload) judges exactly as the whole-body one, however
// the body is cut into chunks, and for any values at all, well-formed or not.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sign, verifySignature, verifySignatureStream } from '../../../src/shared/signature.js';
import { verdict, verdictOfStream } from '../../../src/webhooks/verify.js';

const NOW = 1_700_000_000;

function chunked(bytes: Uint8Array, cuts: number[]): AsyncIterable<Uint8Array> {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  return (async function* () {
    let from = 0;
    for (const to of [...points, bytes.length]) {
      yield bytes.subarray(from, to);
      from = to;
    }
  })();
}

describe('verifySignatureStream', () => {
  it('agrees with verifySignature for any body, chunking, timestamp and signature', async () => {
    const value = fc.oneof(fc.constant(undefined), fc.string({ maxLength: 20 }));
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 32 }),
        fc.uint8Array({ maxLength: 300 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.integer({ min: NOW - 600, max: NOW + 600 }),
        fc.boolean(),
        value,
        value,
        async (secret, body, cuts, ts, signed, rawTs, rawSig) => {
          const timestamp = signed ? String(ts) : rawTs;
          const signature = signed ? sign(secret, ts, body) : rawSig;
          const common = { secret, timestamp, signature, toleranceSeconds: 300, nowSeconds: NOW };
          const whole = verifySignature({ ...common, body });
          expect(await verifySignatureStream({ ...common, body: chunked(body, cuts) })).toEqual(whole);
          const explained = verdict({ ...common, body, source: 'flags' });
          expect(await verdictOfStream({ ...common, body: chunked(body, cuts), source: 'flags' })).toEqual(explained);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('matches the check vector of the spec when the body arrives one byte at a time', async () => {
    const body = Buffer.from('{"id":"evt_1","type":"filing.created"}');
    const result = await verifySignatureStream({
      secret: 'whsec_test_secret',
      timestamp: '1700000000',
      signature: 'sha256=57b147fd6da72d808ece3014a78236a2effc7db6f448c57ab42e8d88c6d54c81',
      body: chunked(body, [...body.keys()]),
      toleranceSeconds: 300,
      nowSeconds: 1_700_000_000,
    });
    expect(result).toEqual({ valid: true, reason: null, ageSeconds: 0 });
  });

  it('reads the body to its end even when the values are malformed, so a read error surfaces', async () => {
    const failing = (async function* () {
      yield new Uint8Array([1]);
      throw Object.assign(new Error('EIO'), { code: 'EIO' });
    })();
    const check = verifySignatureStream({
      secret: 's',
      timestamp: 'x',
      signature: 'y',
      body: failing,
      toleranceSeconds: 300,
      nowSeconds: NOW,
    });
    await expect(check).rejects.toThrow('EIO');
  });
});
