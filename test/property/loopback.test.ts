// isLoopbackHost decides names and IPv4 addresses itself (so that making node:net's BlockList
// stays off the path of one page) and must decide them as the BlockList rule does: 127.0.0.0/8
// in the dotted quads node:net accepts, nothing else.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLoopbackAddress, isLoopbackHost } from '../../src/core/loopback.js';

const octet = fc.oneof(
  fc.integer({ min: 0, max: 300 }).map(String),
  fc.stringMatching(/^0\d{1,2}$/),
  fc.constantFrom('127', '255', '256', ''),
);

describe('isLoopbackHost on names and IPv4', () => {
  it('agrees with the BlockList rule on any dotted quad (property)', () => {
    fc.assert(
      fc.property(fc.array(octet, { minLength: 3, maxLength: 5 }), (parts) => {
        const host = parts.join('.');
        expect(isLoopbackHost(host)).toBe(isLoopbackAddress(host));
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees with it on any other text without a colon (property)', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const host = text.replace(/:/g, '').replace(/^\[(.*)\]$/, '$1');
        const name = host.toLowerCase();
        if (name === 'localhost' || name.endsWith('.localhost')) return;
        expect(isLoopbackHost(host)).toBe(isLoopbackAddress(name));
      }),
    );
  });

  it('keeps the cases the rule names', () => {
    for (const yes of [
      '127.0.0.1',
      '127.255.255.254',
      '127.1.2.3',
      'localhost',
      'a.localhost',
      '[::1]',
      '::ffff:127.0.0.1',
      '[::ffff:7f00:1]',
    ])
      expect(isLoopbackHost(yes), yes).toBe(true);
    for (const no of ['128.0.0.1', '10.0.0.1', '0127.0.0.1', '127.0.0.01', '127.0.0', 'example.com', '[::2]', '1270.0.0.1'])
      expect(isLoopbackHost(no), no).toBe(false);
  });
});
