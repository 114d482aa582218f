import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyAddress } from '../../src/sandbox/url-guard.js';
import { fakeDns, start, type Harness } from './helpers.js';

const DNS = fakeDns({
  'public.example': ['93.184.216.34'],
  'public6.example': ['2606:2800:220:1:248:1893:25c8:1946'],
  'internal.example': ['10.1.2.3'],
  'metadata.example': ['169.254.169.254'],
  'mixed.example': ['93.184.216.34', '192.168.0.10'],
  'ula.example': ['fd12:3456::1'],
  'mapped.example': ['::ffff:10.0.0.5'],
  'loopback.example': ['127.0.0.1'],
  'nothing.example': [],
});

let h: Harness;
let open: Harness;
beforeAll(async () => {
  h = await start({ rateLimit: 0, resolveHost: DNS });
  open = await start({ rateLimit: 0, resolveHost: DNS, allowPrivateWebhooks: true });
});
afterAll(async () => {
  await h.close();
  await open.close();
});

let n = 0;
const create = (target: Harness, url: string) =>
  target.api('/webhooks', { body: { url, events: ['recording.completed'] }, headers: { 'idempotency-key': `guard-${++n}-key` } });

describe('webhook URL checks', () => {
  it.each([
    'http://10.0.0.5/hook',
    'https://10.0.0.5/hook',
    'https://172.16.3.4/',
    'https://192.168.1.1/',
    'https://169.254.169.254/latest/meta-data',
    'http://169.254.169.254/',
    'https://100.64.0.1/',
    'https://0.0.0.0/',
    'https://0/',
    'https://[::]/',
    'https://224.0.0.1/',
    'https://255.255.255.255/',
    'https://240.0.0.1/',
    'https://192.0.2.1/',
    'https://[fc00::1]/',
    'https://[fd12:3456::1]/',
    'https://[fe80::1]/',
    'https://[ff02::1]/',
    'https://[::ffff:10.0.0.5]/',
    'https://[::ffff:169.254.169.254]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://[2001:db8::1]/',
    'https://[2002:a00:1::]/',
    'https://167772161/',
    'https://0xa.0.0.1/',
    'https://internal.example/',
    'https://metadata.example/',
    'https://mixed.example/',
    'https://ula.example/',
    'https://mapped.example/',
    'https://nothing.example/',
    'https://no-such-host.example/',
    'http://public.example/',
    'http://93.184.216.34/',
    'ftp://127.0.0.1/',
    'file:///etc/passwd',
    'http://user:pass@127.0.0.1/',
  ])('refuses %s with 400 INVALID_INPUT', async (url) => {
    const res = await create(h, url);
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('INVALID_INPUT');
  });

  it.each([
    'http://127.0.0.1:8080/hook',
    'http://127.8.9.10/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://[::1]:9000/',
    'http://[::ffff:127.0.0.1]/',
    'http://localhost:3000/',
    'http://loopback.example/',
    'https://public.example/hooks',
    'https://public6.example/',
    'https://93.184.216.34/',
  ])('accepts %s', async (url) => {
    const res = await create(h, url);
    expect(res.status).toBe(201);
  });

  it('accepts private destinations, over http too, with allowPrivateWebhooks, but still not plain http to a public address', async () => {
    for (const url of ['http://10.0.0.5/hook', 'https://169.254.169.254/', 'https://[fd00::1]/', 'https://internal.example/']) {
      expect((await create(open, url)).status, url).toBe(201);
    }
    expect((await create(open, 'http://public.example/')).status).toBe(400);
  });
});

describe('classifyAddress', () => {
  it('tells loopback, public and non-public addresses apart, mapped IPv6 forms included', () => {
    expect(classifyAddress('127.0.0.1')).toEqual({ kind: 'loopback' });
    expect(classifyAddress('::1')).toEqual({ kind: 'loopback' });
    expect(classifyAddress('::ffff:127.0.0.1')).toEqual({ kind: 'loopback' });
    expect(classifyAddress('8.8.8.8')).toEqual({ kind: 'public' });
    expect(classifyAddress('::ffff:8.8.8.8')).toEqual({ kind: 'public' });
    expect(classifyAddress('2a00:1450:4001:80b::200e')).toEqual({ kind: 'public' });
    expect(classifyAddress('10.0.0.1')).toEqual({ kind: 'non-public', label: 'private' });
    expect(classifyAddress('::ffff:192.168.1.1')).toEqual({ kind: 'non-public', label: 'private' });
    expect(classifyAddress('169.254.169.254')).toEqual({ kind: 'non-public', label: 'link-local' });
    expect(classifyAddress('fe80::1%eth0')).toEqual({ kind: 'non-public', label: 'link-local' });
    expect(classifyAddress('100.127.255.255')).toEqual({ kind: 'non-public', label: 'carrier-grade NAT' });
    expect(classifyAddress('100.128.0.1')).toEqual({ kind: 'public' });
    expect(classifyAddress('fc00::1')).toEqual({ kind: 'non-public', label: 'private' });
    expect(classifyAddress('::')).toEqual({ kind: 'non-public', label: 'unspecified' });
    expect(classifyAddress('::127.0.0.1')).toEqual({ kind: 'non-public', label: 'reserved' });
    expect(classifyAddress('64:ff9b::a00:1')).toEqual({ kind: 'non-public', label: 'reserved' });
    expect(classifyAddress('not an address')).toEqual({ kind: 'non-public', label: 'unrecognised' });
  });
});
