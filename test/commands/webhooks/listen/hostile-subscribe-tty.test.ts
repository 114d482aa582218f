// a hostile server's subscription id and secret reached the terminal raw in
// `webhooks listen --subscribe` (OSC 0 retitled the window, OSC 52 wrote the clipboard, ESC[2J
// cleared the screen, U+202E reversed text, BS/CR/NUL moved or hid what was shown). The built
// rfs in a real terminal (tmux), against a scenario server that answers with every one of them:
// each is shown escaped, nothing is obeyed. With -v the secret is never shown.
import { describe, expect, it } from 'vitest';
import { needs, TMUX } from '../../../helpers/platform.js';
import { scenarioTerminal } from '../../../helpers/scenario-terminal.js';

const KEY = 'service_pk_hostileTerminal0123456789';

/** Every sequence the report named, in a subscription id a server could send. */
const HOSTILE =
  'wh_A' +
  '\x1b]0;PWNED-TITLE\x07' + // OSC 0: the window title
  '\x1b]52;c;cHduZWQ=\x07' + // OSC 52: a clipboard write
  '\x1b]8;;http://evil.example/\x07link\x1b]8;;\x07' + // OSC 8: a hyperlink
  '\x1bPq#0;2;0;0;0\x1b\\' + // DCS (sixel)
  '\x1b[2J' + // clear the screen
  '\u009b31m' + // the 8-bit CSI
  '\u202eRTL' + // right-to-left override
  'B\bC' + // backspace
  'D\rE' + // carriage return
  'F\u0000G' + // NUL
  'H\u200bI\ufeffJ\u00adK\u{e0041}L'; // zero-width space, BOM, soft hyphen, a tag character

const SHOWN = `wh_A${[
  '\\x1b]0;PWNED-TITLE\\x07',
  '\\x1b]52;c;cHduZWQ=\\x07',
  '\\x1b]8;;http://evil.example/\\x07link\\x1b]8;;\\x07',
  '\\x1bPq#0;2;0;0;0\\x1b\\',
  '\\x1b[2J',
  '\\u009b31m',
  '\\u202eRTL',
  'B\\x08C',
  'D\\rE',
  'F\\x00G',
  'H\\u200bI\\ufeffJ\\u00adK\\u{e0041}L',
].join('')}`;

describe.skipIf(!TMUX.met)(needs(TMUX, 'server text in a real terminal'), () => {
  const s = scenarioTerminal('rfs-tty-hostile-', KEY);

  function queueSubscription(secret: string): void {
    s.server.queue(
      { expect: { method: 'GET', url: /^\/api\/v1\/webhooks\?limit=50$/ }, body: { data: [], meta: { hasMore: false, nextCursor: null } } },
      {
        expect: { method: 'POST', url: /^\/api\/v1\/webhooks$/ },
        status: 201,
        body: { data: { id: HOSTILE, url: 'http://127.0.0.1/x', events: ['recording.completed'], secret } },
      },
    );
  }

  async function stopListening(name: string): Promise<string> {
    // The id is percent-encoded into the path (cli.md: an id never changes the path requested).
    s.server.queue({ expect: { method: 'DELETE', url: /^\/api\/v1\/webhooks\/wh_A%1B%5D0%3BPWNED-TITLE%07[^/]*L$/ }, status: 204 });
    await s.term.keys(name, 'C-c');
    return s.term.waitFor(name, (screen) => screen.includes('stopped listening'), 'listen to stop');
  }

  it('shows a hostile id and secret escaped, and the terminal obeys none of it', async () => {
    queueSubscription(`whsec_${HOSTILE}`);
    await s.term.run('plain', ['webhooks', 'listen', '--subscribe', '--port', '0'], { columns: 400, rows: 20 });
    const screen = await s.term.waitFor('plain', (text) => text.includes('Ctrl-C to stop'), 'the receiver');
    // Nothing was cleared: the first line is still there, before the escaped id.
    expect(screen.split('\n')[0]).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    expect(screen).toContain(`subscribed ${SHOWN} to http://127.0.0.1:`);
    // Wider than the 400 columns with the escaped id in it twice: wrapped at words, the secret
    // whole on a line of its own.
    expect(screen).toContain(`secret of ${SHOWN} (shown only this once; the subscription is deleted when listen stops):\nwhsec_${SHOWN}\n`);
    expect(screen).toContain(`verifying with the secret of subscription ${SHOWN}, tolerance 300 s; Ctrl-C to stop`);
    // The window title is not the server's.
    expect(await s.term.title('plain')).not.toContain('PWNED');
    const stopped = await stopListening('plain');
    expect(stopped).toContain(`deleted subscription ${SHOWN}\nstopped listening`);
  });

  it('with -v shows the secret redacted, never whole', async () => {
    const secret = 'whsec_LeakVerbose0123456789abcdefABCD';
    queueSubscription(secret);
    await s.term.run('verbose', ['webhooks', 'listen', '--subscribe', '--port', '0', '-v'], { columns: 400, rows: 20 });
    const screen = await s.term.waitFor('verbose', (text) => text.includes('Ctrl-C to stop'), 'the receiver');
    expect(screen).toContain(
      `secret of ${SHOWN} (shown only this once; the subscription is deleted when listen stops): whsec_… (left out with --verbose, whose output is safe to paste)`,
    );
    expect(screen).not.toContain('LeakVerbose');
    const stopped = await stopListening('verbose');
    expect(stopped).not.toContain('LeakVerbose');
  });
});
