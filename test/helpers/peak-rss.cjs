// Preloaded (node --require) into a child rfs by the memory tests: its peak resident set, in
// KiB, as the last line of its stderr, and into the file RSS_OUT names when it is set. VmHWM, the peak of this process's own memory since its
// exec: not resourceUsage().maxRSS, which Linux carries over from the forking parent (a test
// worker of 227 MB made every child "227 MB").
'use strict';
process.on('exit', () => {
  const fs = require('node:fs');
  const hwm = /^VmHWM:\s*(\d+) kB$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  const kib = hwm ? hwm[1] : 'unknown';
  if (process.env.RSS_OUT) fs.writeFileSync(process.env.RSS_OUT, kib);
  else fs.writeSync(2, `peak-rss-kib=${kib}\n`);
});
