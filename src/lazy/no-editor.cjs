// Stands in for @inquirer/editor, which @inquirer/prompts re-exports, in the bundles
// (scripts/lazy-requires.mjs). rfs never asks with the editor prompt, and that prompt brings
// iconv-lite and chardet: about 560 KB, a third of the CommonJS bundle that every command reads.
'use strict';

module.exports = function editor() {
  throw new Error('the editor prompt is not part of rfs');
};
