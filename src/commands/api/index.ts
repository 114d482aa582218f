// rfs api: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { choiceOption } from '../choices.js';
import { defineCommand, examples, type Parsed } from '../define.js';

export const API_METHODS = ['GET', 'POST', 'DELETE'] as const;
export type ApiMethod = (typeof API_METHODS)[number];

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

const declare = () =>
  new Command('api')
    .description('send any request to the API with your key; prints the answer (the API is a beta)')
    .argument('<path>', 'below {base_url}/api/v1, such as recordings or /webhooks/deliveries?status=FAILED')
    .addOption(choiceOption('-X, --method <method>', 'GET, POST or DELETE (default: GET, POST with --input)', API_METHODS))
    .option('-f, --field <key=value>', 'a body field (key:=json for a typed value); query parameters for GET (repeatable)', collect)
    .option('--input <file>', 'send this file as the body (- for stdin)')
    .option('-H, --header <Name: value>', 'an extra request header (repeatable; never Authorization)', collect)
    .option('-i, --include', 'print the status line and headers before the body')
    .option('--paginate', 'follow meta.nextCursor and print the data items of every page')
    .option('--idempotency-key <key>', 'send this Idempotency-Key (a POST with one is retried safely)')
    .addHelpText(
      'after',
      examples([
        'rfs api recordings -f status=COMPLETED -f limit=5',
        'rfs api recordings --paginate -o ndjson --jq .id',
        'rfs api -X POST recordings/rec_123/filings -f provider=acme -f externalId=DOC-1',
        'rfs api -X POST webhooks -f url=https://hooks.example.com/rfs -f events:=\'["recording.completed"]\'',
        'rfs api -i webhooks/deliveries?status=FAILED',
      ]),
    );

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
