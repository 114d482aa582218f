// Who may drive the control API (sandbox.md, Controlling it): the rule is core/local-guard.ts's,
// shared with the inspector's page (cli.md, webhooks listen --inspect); here it becomes the
// control API's problem details, a 403 or a 415.
import type { IncomingHttpHeaders } from 'node:http';
import { localGuard } from '../core/local-guard.js';
import { ProblemError } from './problem.js';

/** A check of a control request's headers, for a sandbox bound to `boundHost`; throws a 403 or a 415. */
export function controlGuard(boundHost: string): (method: string, headers: IncomingHttpHeaders, hasBody: boolean) => void {
  const check = localGuard(boundHost, 'the control API');
  return (method, headers, hasBody) => {
    const refusal = check(method, headers, hasBody);
    if (refusal === null) return;
    if (refusal.kind === 'content-type') {
      throw new ProblemError('UNSUPPORTED_CONTENT_TYPE', 'send control requests that change something as application/json', {
        extra: { detail: 'send control requests that change something with Content-Type: application/json (an empty body means {})' },
      });
    }
    throw new ProblemError('CONTROL_REFUSED', refusal.detail, { extra: { detail: refusal.detail } });
  };
}
