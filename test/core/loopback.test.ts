// The one home of "https, or plain http only to a loopback host" (src/core/loopback.ts).
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { checkDestination, isLoopbackAddress, isLoopbackHost, PLAIN_HTTP_RULE } from '../../src/core/loopback.js';

describe('loopback', () => {
  it('is this machine, by name, IPv4, IPv6 and the IPv4-mapped form', () => {
    for (const host of ['localhost', 'api.localhost', '127.0.0.1', '127.9.9.9', '[::1]', '::1', '[::ffff:7f00:1]'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['localhost.example.com', '128.0.0.1', '[::]', '10.0.0.1', 'example.com'])
      expect(isLoopbackHost(host), host).toBe(false);
    expect(isLoopbackAddress('::ffff:127.0.0.1')).toBe(true);
    expect(isLoopbackAddress('localhost')).toBe(false);
  });

  it('refuses plain http elsewhere with the one rule as the hint, and accepts https anywhere', () => {
    const d = { name: '--to', example: 'https://hooks.example.com/rfs', why: 'a signed delivery must not travel in clear text' };
    expect(checkDestination('https://hooks.example.com/x', d).hostname).toBe('hooks.example.com');
    expect(checkDestination('http://127.0.0.1:1/x', d).port).toBe('1');
    const error = (() => {
      try {
        checkDestination('http://hooks.example.com/x', d);
      } catch (e) {
        return e;
      }
    })() as UsageError;
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe('refusing plain http to hooks.example.com: a signed delivery must not travel in clear text');
    expect(error.hint).toBe(`use ${PLAIN_HTTP_RULE}`);
  });

  it('a loopback-only destination refuses another host whatever the scheme', () => {
    const d = { name: '--forward-to', example: 'http://127.0.0.1:3000/', loopbackOnly: 'deliveries are forwarded only to this machine' };
    expect(() => checkDestination('https://example.com/', d)).toThrow(
      'refusing --forward-to example.com: deliveries are forwarded only to this machine',
    );
    expect(() => checkDestination('ftp://127.0.0.1/', d)).toThrow('the scheme must be http or https, not ftp');
  });
});
