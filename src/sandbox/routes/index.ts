// Every route of the sandbox: the API of api.md under /api/v1 and the control API under /_sandbox.
import { controlRoutes } from './control.js';
import { openApiRoutes } from './openapi.js';
import { recordingRoutes } from './recordings.js';
import { Router } from './route.js';
import { webhookRoutes } from './webhooks.js';

export function createRouter(): Router {
  return new Router([...recordingRoutes, ...webhookRoutes, ...openApiRoutes, ...controlRoutes]);
}
