// Who may drive the control API (sandbox.md, Controlling it): the rule is core/local-guard.ts's,
// shared with the inspector's page (cli.md, webhooks listen --inspect); here it becomes the
// control API's problem details, a 403 or a 415.
import type { IncomingHttpHeaders } from 'node:http';
import { boundToLoopback, hostRule, localGuard } from '../core/local-guard.js';
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

/**
 * The same Host rule for /api/v1, when the sandbox is bound to loopback:
 * with the README's `--seed 42` its admin key is public, so a rebinding page could read every
 * recording and create subscriptions. Bound beyond loopback (a container, a VM), clients reach
 * it by names of their own, and the keys are what guards it. Null: no check.
 */
export function apiHostGuard(boundHost: string): ((headers: IncomingHttpHeaders) => void) | null {
  if (!boundToLoopback(boundHost)) return null;
  const accepts = hostRule(boundHost);
  return (headers) => {
    if (accepts(headers.host)) return;
    // The detail goes to the sandbox's log only: an /api/v1 problem carries the documented fields.
    throw new ProblemError(
      'HOST_REFUSED',
      `bound to loopback, the API answers only requests addressed to localhost or a loopback address (Host: ${JSON.stringify(headers.host ?? '')})`,
    );
  };
}
