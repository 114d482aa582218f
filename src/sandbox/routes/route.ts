// What a route is, and how a request's decoded path segments find one.
import type { IncomingHttpHeaders } from 'node:http';
import type { App } from '../app.js';
import type { Reply } from '../problem.js';
import type { Scope, WorkspaceId } from '../types.js';

export interface RequestContext {
  app: App;
  requestId: string;
  /** Decoded path parameters (`:id`). */
  params: Record<string, string>;
  /** The raw query string, without `?`. */
  query: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** After authentication: the key's workspace. */
export interface ApiContext extends RequestContext {
  workspace: WorkspaceId;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface ApiRoute {
  kind: 'api';
  method: Method;
  /** Under /api/v1, e.g. `recordings/:id/filings`. */
  path: string;
  scope: Scope;
  handle(ctx: ApiContext): Reply | Promise<Reply>;
}

export interface ControlRoute {
  kind: 'control';
  method: Method;
  /** Under /_sandbox. */
  path: string;
  handle(ctx: RequestContext): Reply | Promise<Reply>;
}

/** Under /api/v1, but served to anyone: no key, no rate limit, no injected fault (the OpenAPI document). */
export interface PublicRoute {
  kind: 'public';
  method: Method;
  path: string;
  handle(ctx: RequestContext): Reply | Promise<Reply>;
}

export type Route = ApiRoute | ControlRoute | PublicRoute;

interface Compiled {
  route: Route;
  parts: string[];
}

export class Router {
  private readonly compiled: Compiled[];

  constructor(routes: Route[]) {
    this.compiled = routes.map((route) => ({
      route,
      parts: [...(route.kind === 'control' ? ['_sandbox'] : ['api', 'v1']), ...route.path.split('/')],
    }));
  }

  /** The route and its parameters; a parameter must be a non-empty segment. HEAD is GET (its body is left out). */
  match(method: string, segments: string[]): { route: Route; params: Record<string, string> } | null {
    const wanted = method === 'HEAD' ? 'GET' : method;
    for (const { route, parts } of this.compiled) {
      if (route.method !== wanted || parts.length !== segments.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const part = parts[i] as string;
        const segment = segments[i] as string;
        if (part.startsWith(':')) {
          if (segment === '') ok = false;
          else params[part.slice(1)] = segment;
        } else if (part !== segment) ok = false;
      }
      if (ok) return { route, params };
    }
    return null;
  }

  /** The methods a path answers (for OPTIONS and its Allow header); empty when it is no route's. */
  allowed(segments: string[]): string[] {
    const methods = (['GET', 'POST', 'PUT', 'DELETE'] as const).filter((method) => this.match(method, segments));
    if (methods.length === 0) return [];
    return [...methods.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method])), 'OPTIONS'];
  }
}
