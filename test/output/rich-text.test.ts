// Rich text as `recordings get` shows it (cli.md, Output): marks change how words look, never
// which characters the note has. A mark that starts mid-word, or a word followed by punctuation
// in another node, gets no space the note does not have.
import { describe, expect, it } from 'vitest';
import { renderRichText } from '../../src/output/rich-text.js';

const style = { bold: (t: string) => `*${t}*`, italic: (t: string) => `_${t}_` };
const paragraph = (...content: object[]) => ({ type: 'doc', content: [{ type: 'paragraph', content }] });

describe('inline marks', () => {
  it('add no space where two text nodes meet mid-word or before punctuation', () => {
    const doc = paragraph(
      { type: 'text', text: 'Call the ' },
      { type: 'text', text: 'client', marks: [{ type: 'bold' }] },
      { type: 'text', text: '. Then re' },
      { type: 'text', text: 'view', marks: [{ type: 'italic' }] },
      { type: 'text', text: ' the lease.' },
    );
    expect(renderRichText(doc, { width: 80, indent: '', style })).toEqual(['Call the *client*. Then re_view_ the lease.']);
  });

  it('wrap a word made of several marked parts as one word', () => {
    const doc = paragraph({ type: 'text', text: 'aaaa bbbb re' }, { type: 'text', text: 'view', marks: [{ type: 'bold' }] });
    expect(renderRichText(doc, { width: 12, indent: '', style })).toEqual(['aaaa bbbb', 're*view*']);
  });
});
