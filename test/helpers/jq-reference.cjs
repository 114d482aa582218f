// The reference for the differential --jq test (test/output/jq-differential.test.ts): jq 1.8's
// own command line (jq-wasm's build of jqlang/jq 1.8.2), run the plain way — the whole of stdin
// given at once, no worker, no streaming — in a process of its own. Reads [{program, input}] as
// JSON on stdin, writes [{stdout, stderr, exitCode}]. No npm package ships a native jq 1.8 CLI
// (node-jq downloads one at install, which the registry alone cannot serve), so this is what
// `rfs … -o ndjson | jq -r -c '<program>'` prints, computed with jq 1.8 without rfs's plumbing.
'use strict';
const { loadJq } = require('jq-wasm/inline');

let text = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  text += chunk;
});
process.stdin.on('end', async () => {
  const jq = await loadJq();
  const cases = JSON.parse(text);
  // jq-wasm trims what jq printed: every case's output ends with a newline, and none of the
  // programs prints leading blanks, so adding the newline back gives jq's bytes.
  const results = cases.map(({ program, input }) => {
    const r = jq.raw(input, program, ['-r', '-c']);
    return { stdout: r.stdout === '' ? '' : `${r.stdout}\n`, stderr: r.stderr, exitCode: r.exitCode };
  });
  process.stdout.write(JSON.stringify(results));
});
