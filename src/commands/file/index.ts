// rfs file: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples, type Parsed } from '../define.js';

const declare = () =>
  new Command('file')
    .description('mark a recording filed in an external system (POST filings), or a batch with --from')
    .argument('[id]', 'recording id')
    .option('--provider <p>', "external system, the default for --from lines (default: the profile's, see rfs config)")
    .option('--external-id <x>', 'id of the record created externally')
    .option('--external-url <u>', 'link to the external record')
    .option('--filed-at <iso>', 'when it was filed (default: now, by the server)')
    .option('--metadata <json>', 'provider references as a JSON object, or @file to read it from a file')
    .option('--from <file>', 'a batch: one JSON object per line, from a file or - for stdin')
    .option('--fail-fast', 'stop a --from batch at the first failure')
    .addHelpText(
      'after',
      examples([
        'rfs file rec_123 --provider crm --external-id CASE-42 --external-url https://crm.example.com/42',
        'rfs file --from filings.ndjson --provider crm',
        "jq -c '{id, externalId: .id}' recs.ndjson | rfs file --from - --provider crm",
      ]),
    );

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
