// listen --subscribe's names (cli.md, webhooks): the host as a path segment, the
// segment recognised in a leftover's URL (only this host's, with a pid), --public-url's rule.
import { describe, expect, it } from 'vitest';
import {
  hostSegment,
  leftoverPid,
  listenSegment,
  publicUrlFlag,
  subscriptionUrl,
} from '../../../../src/commands/webhooks/listen/subscribe.js';
import { UsageError } from '../../../../src/core/errors.js';

describe('listen --subscribe names', () => {
  it('makes a host name a path segment: lower case, letters, digits and -, at most 40', () => {
    expect(hostSegment('Build_Box.local')).toBe('build-box-local');
    expect(hostSegment('---')).toBe('host');
    expect(hostSegment('x'.repeat(80))).toHaveLength(40);
  });

  it('appends the segment to the local or public URL', () => {
    const segment = listenSegment('vm', 4242);
    expect(subscriptionUrl('http://127.0.0.1:8787', segment)).toBe('http://127.0.0.1:8787/rfs-listen-vm-4242');
    expect(subscriptionUrl('https://abc.example.dev/hooks/', segment)).toBe('https://abc.example.dev/hooks/rfs-listen-vm-4242');
  });

  it("recognises only this host's leftovers, with their pid", () => {
    expect(leftoverPid('http://127.0.0.1:9/rfs-listen-vm-4242', 'vm')).toBe(4242);
    expect(leftoverPid('https://t.example.dev/a/rfs-listen-build-box-7/', 'build-box')).toBe(7);
    expect(leftoverPid('http://127.0.0.1:9/rfs-listen-other-4242', 'vm')).toBeNull();
    // "vm-2" is another host than "vm" only when a pid follows the whole name.
    expect(leftoverPid('http://127.0.0.1:9/rfs-listen-vm-2-4242', 'vm')).toBeNull();
    expect(leftoverPid('http://127.0.0.1:9/hook', 'vm')).toBeNull();
    expect(leftoverPid('not a url', 'vm')).toBeNull();
  });

  it('takes an https --public-url only, without query, fragment or credentials (exit 2)', () => {
    expect(publicUrlFlag('https://abc.example.dev')).toBe('https://abc.example.dev/');
    for (const bad of [
      'http://abc.example.dev',
      'abc.example.dev',
      'https://u:p@abc.example.dev',
      'https://abc.example.dev/?a=1',
      'https://abc.example.dev/#x',
    ]) {
      expect(() => publicUrlFlag(bad), bad).toThrow(UsageError);
    }
  });
});
