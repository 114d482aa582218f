// stdout's redacting writer (core/redact-stream.ts) on its own: a known secret split across two
// writes at any point is still caught, text without one passes through unchanged and at once,
// and a closed target stops the writer.
import { PassThrough, Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { finishRedacting, RedactingStream, StdoutSecrets } from '../../src/core/redact-stream.js';
import { redactSecrets, secretForms } from '../../src/core/redact.js';

const KEY = 'service_pk_LeakAAAA1111/LeakBBBB2222+LeakCCCC3333=wxyz';
const WHSEC = 'whsec_LeakWhsecDDDD4444LeakGGGG7777';

function sink(): { target: PassThrough; text: () => string } {
  const target = new PassThrough();
  const chunks: string[] = [];
  target.setEncoding('utf8');
  target.on('data', (c: string) => chunks.push(c));
  return { target, text: () => chunks.join('') };
}

function secrets(): StdoutSecrets {
  const s = new StdoutSecrets();
  s.addKey(KEY);
  s.addSecret(WHSEC);
  return s;
}

async function through(pieces: (string | Buffer)[]): Promise<string> {
  const { target, text } = sink();
  const stream = new RedactingStream(target, secrets());
  for (const piece of pieces) stream.write(piece);
  await finishRedacting(stream);
  return text();
}

describe('stdout redaction as a stream', () => {
  it('catches the key and the secret split across two writes at every position', async () => {
    for (const secret of [KEY, WHSEC, KEY.replaceAll('/', '\\/'), encodeURIComponent(KEY)]) {
      const whole = `{"title":"before ${secret} after"}\n`;
      for (let cut = 0; cut <= whole.length; cut += 1) {
        const out = await through([whole.slice(0, cut), whole.slice(cut)]);
        expect(out, `cut at ${cut}`).not.toMatch(/Leak/);
        expect(out).toMatch(/^\{"title":"before (service_pk_…wxyz|whsec_…) after"\}\n$/);
      }
    }
  });

  it('catches a key cut short, as a table cell ends it', async () => {
    expect(await through(['| service_pk_LeakAAAA11… |\n'])).toBe('| service_pk_…wxyz… |\n');
  });

  it('passes any text without a secret through unchanged, split anywhere, multibyte characters included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: 'binary' }), { maxLength: 6 }), async (parts) => {
        const whole = parts.join('');
        fc.pre(!/Leak/.test(whole));
        // As Buffers cut at arbitrary bytes, and as strings.
        const bytes = Buffer.from(whole, 'utf8');
        const cut = Math.floor(bytes.length / 2);
        expect(await through([bytes.subarray(0, cut), bytes.subarray(cut)])).toBe(bytes.toString('utf8'));
        expect(await through(parts)).toBe(whole);
      }),
    );
  });

  it('writes a line without a secret at once, before the stream ends', async () => {
    const { target, text } = sink();
    const stream = new RedactingStream(target, secrets());
    stream.write('first line\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(text()).toBe('first line\n');
    // A tail that could begin the key waits for what follows it.
    stream.write('partial service_pk_Le');
    await new Promise((resolve) => setImmediate(resolve));
    expect(text()).toBe('first line\npartial ');
    stream.write('akAAAA1111/LeakBBBB2222+LeakCCCC3333=wxyz\n');
    await finishRedacting(stream);
    expect(text()).toBe('first line\npartial service_pk_…wxyz\n');
  });

  it('fails its writer when the target fails (a reader that went away)', async () => {
    const target = new Writable({
      write(_chunk, _encoding, done) {
        done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    target.on('error', () => undefined);
    const stream = new RedactingStream(target, secrets());
    stream.write('one\n');
    await new Promise((resolve) => stream.once('close', resolve));
    expect(stream.destroyed).toBe(true);
  });
});

describe('only what is the secret is redacted', () => {
  // A key whose first letter after the prefix is an `s`, as in the report.
  const S_KEY = 'service_pk_sEcretKey0123456789abcdef3grU';

  async function throughKey(pieces: string[]): Promise<string> {
    const { target, text } = sink();
    const s = new StdoutSecrets();
    s.addKey(S_KEY);
    const stream = new RedactingStream(target, s);
    for (const piece of pieces) stream.write(piece);
    await finishRedacting(stream);
    return text();
  }

  it('leaves text that only shares the prefix and a first letter with the key', async () => {
    expect(await throughKey(['see service_pk_sandbox_docs\n'])).toBe('see service_pk_sandbox_docs\n');
    expect(await throughKey(['see service_pk_', 'sandbox_docs\n'])).toBe('see service_pk_sandbox_docs\n');
    // Even a longer run of the key's own start is not the key unless it is cut (`…`) or whole.
    expect(await throughKey(['service_pk_sEcretKey and more\n'])).toBe('service_pk_sEcretKey and more\n');
  });

  it('still removes the whole key, and a key cut short by a table cell', async () => {
    expect(await throughKey([`key ${S_KEY} end\n`])).toBe('key service_pk_…3grU end\n');
    expect(await throughKey(['| service_pk_sEcretK… |\n'])).toBe('| service_pk_…3grU… |\n');
  });
});

describe('one list of a secret’s forms for stdout and stderr', () => {
  it('is secretForms: each form is removed by both redactions', async () => {
    for (const form of secretForms(KEY)) {
      const text = `before ${form} after`;
      expect(redactSecrets(text, KEY), form).not.toMatch(/Leak/);
      expect(await through([text]), form).not.toMatch(/Leak/);
    }
    // A key with a `/`, escaped twice (a server's JSON text inside rfs's JSON): stderr missed it.
    const twice = JSON.stringify(KEY.replaceAll('/', '\\/')).slice(1, -1);
    expect(twice).toContain('1111\\\\/Leak');
    expect(secretForms(KEY)).toContain(twice);
    expect(redactSecrets(`title ${twice}`, KEY)).not.toMatch(/Leak/);
  });
});
