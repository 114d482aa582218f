// stdout's last writer: every command's results (tables, json, ndjson, --jq output, `api -i`
// headers and bodies) pass through here, and the exact secrets the run knows — the API key of
// each connection it opened, the webhook secrets it read — never come out whole (cli.md: the key
// is never printed in full anywhere). stderr has its own redaction (the Ui, the report), which
// also removes anything shaped like a secret; stdout removes only what the run knows, because
// results may carry secrets on purpose (`webhooks create` prints the new subscription's secret,
// `webhooks sign` a signature). Text passes through unchanged and at once, except a tail that
// could be the start of a secret: that waits for the next chunk (or the end), so a secret split
// across two writes is still caught. Replacements keep JSON text JSON.
// Part of the base layer: it imports nothing of rfs but the base.
import { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { API_KEY_PREFIX, MIN_KNOWN_SECRET_LENGTH, redactKey, secretForms } from './redact.js';

interface Form {
  text: string;
  replacement: string;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The exact secrets of one run, and the matcher of their forms. */
export class StdoutSecrets {
  readonly #forms: Form[] = [];
  readonly #keys: string[] = [];
  readonly #replacements = new Map<string, string>();
  #pattern: RegExp | undefined;
  #longest = 0;

  /** An API key: its forms, and any cut of it past the prefix (a cell ending in `…`). */
  addKey(key: string): void {
    if (this.#keys.includes(key) || key.length <= API_KEY_PREFIX.length) return;
    this.#keys.push(key);
    const shown = redactKey(key);
    // In a JSON string, the shown form is escaped as the key was (its last 4 may hold a quote).
    const shownInJson = JSON.stringify(shown).slice(1, -1);
    this.#add(key, shown);
    for (const form of secretForms(key)) this.#add(form, form === encodeURIComponent(key) ? shown : shownInJson);
    this.#rebuild();
  }

  /** A webhook secret rfs read (--secret-env, --secret-file, RFS_WEBHOOK_SECRET). */
  addSecret(secret: string): void {
    if (secret.length < MIN_KNOWN_SECRET_LENGTH || this.#replacements.has(secret)) return;
    const shown = secret.startsWith('whsec_') ? 'whsec_…' : '…';
    for (const form of secretForms(secret)) this.#add(form, shown);
    this.#rebuild();
  }

  #add(text: string, replacement: string): void {
    if (this.#replacements.has(text)) return;
    this.#replacements.set(text, replacement);
    this.#forms.push({ text, replacement });
  }

  #rebuild(): void {
    const exact = [...this.#forms].sort((a, b) => b.text.length - a.text.length).map((f) => escapeRegExp(f.text));
    // A key cut short, as a table cell ends it: the prefix and a run of the key's own
    // characters, then the `…` of the cut. Only that is a cut key: text that merely shares the
    // prefix and a first letter (`service_pk_sandbox_docs`) is left alone.
    const cuts = this.#keys.map((key) => {
      const rest = [...key.slice(API_KEY_PREFIX.length)].map(escapeRegExp);
      let nested = '';
      for (let i = rest.length - 1; i >= 1; i -= 1) nested = `(?:${rest[i]}${nested})?`;
      return `${escapeRegExp(API_KEY_PREFIX)}${rest[0]}${nested}(?=…)`;
    });
    this.#pattern = new RegExp([...exact, ...cuts].join('|'), 'g');
    this.#longest = Math.max(...this.#forms.map((f) => f.text.length));
  }

  #replacementOf(match: string): string {
    const exact = this.#replacements.get(match);
    if (exact !== undefined) return exact;
    const key = this.#keys.find((k) => k.startsWith(match));
    return key === undefined ? match : redactKey(key);
  }

  /**
   * Where the text stops being safe to pass on: the first position from which the rest could
   * still grow into a secret with the next chunk. `text.length` when nothing is held.
   */
  #holdFrom(text: string): number {
    for (let at = Math.max(0, text.length - this.#longest); at < text.length; at += 1) {
      const tail = text.slice(at);
      if (this.#forms.some((f) => f.text.length > tail.length && f.text.startsWith(tail))) return at;
    }
    return text.length;
  }

  /** Redacts `text`; unless `final`, keeps back the tail that could be the start of a secret. */
  redact(text: string, final: boolean): { out: string; held: string } {
    const pattern = this.#pattern;
    if (pattern === undefined) return { out: text, held: '' };
    const hold = final ? text.length : this.#holdFrom(text);
    let out = '';
    let done = 0;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null && m.index < hold; m = pattern.exec(text)) {
      out += text.slice(done, m.index) + this.#replacementOf(m[0]);
      done = m.index + m[0].length;
    }
    const until = Math.max(hold, done);
    return { out: out + text.slice(done, until), held: text.slice(until) };
  }
}

/**
 * A Writable in front of `target` that redacts what `secrets` knows. Backpressure is the
 * target's; a failed target (a closed pipe) fails this stream with the same error. `end()` it
 * to pass on a held tail; the target itself is never ended.
 */
export class RedactingStream extends Writable {
  #held = '';
  readonly #decoder = new StringDecoder('utf8');
  readonly #onTargetError: (error: Error) => void;

  constructor(
    private readonly target: Writable,
    private readonly secrets: StdoutSecrets,
  ) {
    super({ decodeStrings: false, highWaterMark: target.writableHighWaterMark });
    this.#onTargetError = (error) => this.destroy(error);
    target.on('error', this.#onTargetError);
    // The error is seen by the writer that waits on this stream (list-writer's writeOut).
    this.on('error', () => undefined);
    this.on('close', () => target.off('error', this.#onTargetError));
  }

  override _write(chunk: string | Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    const text = this.#held + (typeof chunk === 'string' ? chunk : this.#decoder.write(chunk));
    const { out, held } = this.secrets.redact(text, false);
    this.#held = held;
    this.#pass(out, done);
  }

  override _final(done: (error?: Error | null) => void): void {
    const { out } = this.secrets.redact(this.#held + this.#decoder.end(), true);
    this.#held = '';
    this.#pass(out, done);
  }

  #pass(text: string, done: (error?: Error | null) => void): void {
    if (text === '') {
      done();
      return;
    }
    if (this.target.destroyed || this.target.writableEnded) {
      done(Object.assign(new Error('output closed before everything was written'), { code: 'EPIPE' }));
      return;
    }
    if (this.target.write(text)) {
      done();
      return;
    }
    const settle = (error?: Error | null): void => {
      this.target.off('drain', onDrain);
      this.target.off('close', onClose);
      done(error);
    };
    const onDrain = (): void => settle();
    const onClose = (): void => settle(Object.assign(new Error('output closed before everything was written'), { code: 'EPIPE' }));
    this.target.on('drain', onDrain);
    this.target.on('close', onClose);
  }
}

/** Ends `stream` (passing on what it held) and waits, never throwing: the run's result is decided elsewhere. */
export function finishRedacting(stream: RedactingStream): Promise<void> {
  if (stream.destroyed || stream.writableFinished) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('finish', () => resolve());
    stream.once('close', () => resolve());
    stream.end();
  });
}
