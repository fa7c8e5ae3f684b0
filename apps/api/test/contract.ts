import { defaultCatalog } from '@mediagate/shared/catalog';
import { errorResponse } from '@mediagate/shared/contracts';
import { z } from 'zod';
import { type ContractDeps, contractsOf, type RouteContract } from '../src/route';
import { routes } from '../src/routes';

/**
 * `schema` with every object that lists its fields exactly (z.object, not z.looseObject) made
 * strict, so an answer with a field its contract does not name fails to parse.
 */
export function strictly(schema: z.ZodType): z.ZodType {
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> & { type: string } } })._zod.def;
  switch (def.type) {
    case 'object': {
      const shape = Object.fromEntries(
        Object.entries(def.shape as Record<string, z.ZodType>).map(([k, v]) => [k, strictly(v)]),
      );
      const catchall = def.catchall as z.ZodType | undefined;
      return catchall ? z.object(shape).catchall(catchall) : z.strictObject(shape);
    }
    case 'array':
      return z.array(strictly(def.element as z.ZodType));
    case 'optional':
      return strictly(def.innerType as z.ZodType).optional();
    case 'nullable':
      return strictly(def.innerType as z.ZodType).nullable();
    case 'union':
      return z.union((def.options as z.ZodType[]).map(strictly) as [z.ZodType, ...z.ZodType[]]);
    case 'record':
      return z.record(def.keyType as z.ZodString, strictly(def.valueType as z.ZodType));
    default:
      return schema;
  }
}

/**
 * Asserts that `res` answered `status` as `contract` documents it and returns the body: JSON parsed
 * with the contract's schema for that status (every error status with the error envelope, as the
 * document says of every non-2xx answer), strictly where the schema lists its fields exactly; for
 * an answer documented by content type only, the content type and the text.
 */
// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field in the tests
export async function expectContract<T = any>(
  res: Response,
  contract: RouteContract,
  status: number,
): Promise<T> {
  const where = `${contract.method.toUpperCase()} ${contract.path} answered ${res.status}`;
  const text = await res.text();
  if (res.status !== status) throw new Error(`${where}, expected ${status}: ${text.slice(0, 500)}`);
  const declared = contract.responses[status];
  if (!declared && status < 400) throw new Error(`${where}, which its contract does not document`);
  const schema = declared ? declared.schema : status >= 400 ? errorResponse : undefined;
  const type = res.headers.get('content-type') ?? '';
  if (!schema) {
    if (declared?.contentType && !type.includes(declared.contentType)) {
      throw new Error(`${where} with ${type}, not ${declared.contentType}`);
    }
    return (/^application\/json/.test(type) ? JSON.parse(text) : text) as T;
  }
  if (!/^application\/json/.test(type))
    throw new Error(`${where} with ${type}, not JSON: ${text.slice(0, 200)}`);
  const parsed = strictly(schema).safeParse(JSON.parse(text));
  if (!parsed.success) {
    throw new Error(
      `${where}, not as its contract says:\n${z.prettifyError(parsed.error)}\n${text.slice(0, 1000)}`,
    );
  }
  return JSON.parse(text) as T;
}

let all: RouteContract[] | undefined;

/** The contract of one route, named as the document names it: `contractFor('post /console/api/tokens')`. */
export function contractFor(route: string): RouteContract {
  // with every optional route on: /metrics is served on the API port when a token is set
  all ??= contractsOf(routes, {
    catalog: defaultCatalog(),
    config: { METRICS_TOKEN: 'set' } as ContractDeps['config'],
    metrics: {} as ContractDeps['metrics'],
  });
  const found = all.find((c) => `${c.method} ${c.path}` === route);
  if (!found) throw new Error(`No route ${route} among the app's routes.`);
  return found;
}
