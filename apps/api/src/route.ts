import { errorResponse } from '@mediagate/shared/contracts';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from './deps';
import { type AccountAuth, apiKeyAuth, sessionAuth } from './middleware/account-auth';

export type Auth = 'apiKey' | 'session' | 'admin' | 'signature' | 'none';

/** One route of the API as the OpenAPI document describes it and the route tests check its answers. */
export interface RouteContract {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** Express path as served, mount included, e.g. /v1/videos/:taskId */
  path: string;
  summary: string;
  tag: string;
  auth: Auth;
  body?: { schema: z.ZodType; multipart?: boolean; json?: boolean };
  query?: z.ZodObject;
  responses: Record<number, { description: string; schema?: z.ZodType; contentType?: string }>;
}

/** Where a route module's router is mounted on the app. */
export type Mount = '' | '/v1' | '/console/api' | '/admin/api' | '/payments';

/** What the contracts may depend on: the catalog (model names in bodies) and whether /metrics is served. */
export type ContractDeps = Pick<ApiDeps, 'catalog'> & Partial<Pick<ApiDeps, 'config' | 'metrics'>>;

/**
 * A route module as the app registers it: its mount, the contracts of the routes it adds (a function
 * when they depend on configuration) and `register`, which adds them to the mount's router.
 */
export interface Route {
  mount: Mount;
  contracts: RouteContract[] | ((deps: ContractDeps) => RouteContract[]);
  register(router: Router, deps: ApiDeps): void;
}

/** The contracts of every route in `routes`, in order. */
export function contractsOf(routes: readonly Route[], deps: ContractDeps): RouteContract[] {
  return routes.flatMap((r) => (typeof r.contracts === 'function' ? r.contracts(deps) : r.contracts));
}

/** A documented answer with its schema. */
export const ok = (schema: z.ZodType, description = 'OK') => ({ description, schema });

/** One documented answer of a route. */
export type Answer = RouteContract['responses'][number];

/**
 * An answer as a contract gives it in short: a schema (a JSON answer, `ok`), a sentence (at an error
 * status, the error envelope so described; otherwise an answer without a body), or the answer itself.
 */
export type AnswerSpec = z.ZodType | string | Answer;

/** The answers of a route by status, in short. */
export type AnswerSpecs = Record<number, AnswerSpec>;

/**
 * A route's contract besides its method, path and summary: its answers by status, its body (the JSON
 * body's schema, or the body with its content types), its query, and its tag and auth.
 */
export interface ContractSpec {
  tag?: string;
  auth?: Auth;
  body?: z.ZodType | NonNullable<RouteContract['body']>;
  query?: z.ZodObject;
  [status: number]: AnswerSpec;
}

/** A route as its contract names it: the method in capitals and the path, `'POST /console/api/login'`. */
export type RouteName = `${Uppercase<RouteContract['method']>} /${string}`;

/** The answer `spec` gives at `status`. */
function answer(status: number, spec: AnswerSpec): Answer {
  if (spec instanceof z.ZodType) return ok(spec);
  if (typeof spec !== 'string') return spec;
  return status >= 400 ? { description: spec, schema: errorResponse } : { description: spec };
}

/** The answers of `specs` as a contract documents them. */
export function answers(specs: AnswerSpecs): RouteContract['responses'] {
  return Object.fromEntries(Object.entries(specs).map(([status, a]) => [status, answer(Number(status), a)]));
}

/**
 * The contract of one route, declared in short:
 * `endpoint('GET /v1/models', 'List models', { tag: 'models', auth: 'apiKey', 200: modelList })`.
 */
export function endpoint(
  route: RouteName,
  summary: string,
  spec: ContractSpec & { tag: string; auth: Auth },
): RouteContract {
  const { tag, auth, body, query, ...specs } = spec;
  const space = route.indexOf(' ');
  return {
    method: route.slice(0, space).toLowerCase() as RouteContract['method'],
    path: route.slice(space + 1),
    summary,
    tag,
    auth,
    ...(body ? { body: body instanceof z.ZodType ? { schema: body } : body } : {}),
    ...(query ? { query } : {}),
    responses: answers(specs),
  };
}

/**
 * Contracts that share a tag and an auth (an entry may give its own):
 * `const op = endpoints({ tag: 'console', auth: 'session' })`, then
 * `op('POST /console/api/logout', 'End the session', { 200: loggedOut })`.
 */
export const endpoints =
  (shared: { tag: string; auth: Auth }) =>
  (route: RouteName, summary: string, spec: ContractSpec = {}): RouteContract =>
    endpoint(route, summary, { ...shared, ...spec });

/**
 * A route module written once against `AccountAuth`: `v1` serves it under /v1 to API keys, `console`
 * under /console/api to console sessions. `inTheConsole` gives, in the order of `contracts`, each
 * route's summary in the console (its contract there is `inConsole` of the /v1 one) or that contract.
 */
export function accountRoutes(
  register: (router: Router, deps: ApiDeps, auth: AccountAuth) => void,
  contracts: RouteContract[],
  inTheConsole: Array<string | RouteContract>,
): { v1: Route; console: Route } {
  return {
    v1: {
      mount: '/v1',
      contracts,
      register: (router, deps) => register(router, deps, apiKeyAuth(deps)),
    },
    console: {
      mount: '/console/api',
      contracts: inTheConsole.map((c, i) => (typeof c === 'string' ? inConsole(contracts[i]!, c) : c)),
      register: (router, deps) => register(router, deps, sessionAuth(deps)),
    },
  };
}

/** The contract of a /v1 account route as /console/api serves it to a session. */
export function inConsole(c: RouteContract, summary: string, responses?: AnswerSpecs): RouteContract {
  return {
    ...c,
    path: `/console/api${c.path.slice('/v1'.length)}`,
    summary,
    tag: 'console',
    auth: 'session',
    responses: responses ? answers(responses) : c.responses,
  };
}
