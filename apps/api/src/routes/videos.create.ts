import { type VideoModel, videoTaskPrice } from '@mediagate/shared/catalog';
import { toTaskObject, videoTaskObject } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import { isHttpUrl } from '@mediagate/shared/http';
import { newTaskId } from '@mediagate/shared/ids';
import {
  findIdempotentTask,
  getTaskForAccount,
  type IdempotencyClaim,
  IdempotencyInFlightError,
  IdempotencyMismatchError,
  requestHash,
} from '@mediagate/shared/tasks';
import type { Request, RequestHandler, Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { principalOf, requireApiKey } from '../middleware/auth';
import { parseBody } from '../middleware/body';
import { admitBody, leastPriceAmong } from '../middleware/body-admission';
import { playgroundAuth } from '../middleware/playground-auth';
import { requireModelAllowed } from '../model-permission';
import { requirePublicUrls } from '../public-urls';
import { endpoint, ok, type Route } from '../route';

const httpUrl = z.string().trim().max(4096).refine(isHttpUrl, { message: 'must be an http(s) URL' });

const parametersSchema = z.strictObject({
  resolution: z
    .string()
    .transform((s) => s.toUpperCase())
    .pipe(z.enum(['720P', '1080P']))
    .optional(),
  duration: z.number().int().optional(),
  audio: z.boolean().optional(),
  prompt_extend: z.boolean().optional(),
  watermark: z.boolean().optional(),
  seed: z.number().int().min(0).max(2_147_483_647).optional(),
});

/** Body of POST /v1/videos: only model, prompt and metadata at the top level. */
export const createVideoBody = z.strictObject({
  model: z.string().min(1),
  prompt: z.string().trim().min(1, 'must not be empty').max(1500, 'must be at most 1500 characters'),
  metadata: z.strictObject({
    input: z.strictObject({
      img_url: httpUrl,
      negative_prompt: z.string().max(500, 'must be at most 500 characters').optional(),
      audio_url: httpUrl.optional(),
    }),
    parameters: parametersSchema.optional(),
    callback_url: httpUrl.optional(),
  }),
});

type CreateVideoBody = z.output<typeof createVideoBody>;

/** Multipart values arrive as strings: read numbers and booleans among the parameters. */
function coerceFormParameters(body: unknown): unknown {
  const params = (body as { metadata?: { parameters?: Record<string, unknown> } })?.metadata?.parameters;
  if (!params || typeof params !== 'object') return body;
  for (const [k, v] of Object.entries(params)) {
    if (typeof v !== 'string') continue;
    if (v === 'true' || v === 'false') params[k] = v === 'true';
    else if (/^-?\d+$/.test(v)) params[k] = Number(v);
  }
  return body;
}

/** Checks the parameters the model id fixes and returns the normalized metadata to store. */
function normalizeForModel(model: VideoModel, body: CreateVideoBody) {
  const p = body.metadata.parameters ?? {};
  if (p.duration !== undefined && p.duration !== model.durationSeconds) {
    throw new ApiError(
      'invalid_request',
      `metadata.parameters.duration is ${p.duration}, but model '${model.id}' makes ${model.durationSeconds}-second videos; omit it or choose another model.`,
      'metadata.parameters.duration',
    );
  }
  if (p.resolution !== undefined && p.resolution !== model.resolution) {
    throw new ApiError(
      'invalid_request',
      `metadata.parameters.resolution is ${p.resolution}, but model '${model.id}' makes ${model.resolution} videos; omit it or choose another model.`,
      'metadata.parameters.resolution',
    );
  }
  if (p.audio === false && !model.audioOptional) {
    throw new ApiError(
      'invalid_request',
      `Model '${model.id}' always produces sound; metadata.parameters.audio cannot be false.`,
      'metadata.parameters.audio',
    );
  }
  const parameters = {
    ...p,
    resolution: model.resolution,
    duration: model.durationSeconds,
    audio: p.audio ?? true,
  };
  return {
    metadata: { ...body.metadata, parameters },
    price: videoTaskPrice(model, parameters.audio),
  };
}

function resolveModel(deps: ApiDeps, req: Request): VideoModel {
  const body = req.body as Record<string, unknown> | undefined;
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiError(
      'invalid_request',
      'The request body must be a JSON object with model, prompt and metadata.',
    );
  }
  if (body.model === undefined || body.model === null || body.model === '') {
    throw new ApiError('invalid_request', "Missing required field 'model'.", 'model');
  }
  if (typeof body.model !== 'string')
    throw new ApiError('invalid_request', 'model must be a string.', 'model');
  const found = deps.catalog.get(body.model);
  if (!found) {
    throw new ApiError('model_not_found', `The model '${body.model}' does not exist.`, 'model');
  }
  const video = deps.catalog.video(body.model);
  if (!video) throw new ApiError('invalid_request', `'${body.model}' is not a video model.`, 'model');
  return video;
}

/** The Idempotency-Key claim of a request, or undefined without the header. */
function idempotencyClaim(header: string | undefined, body: CreateVideoBody): IdempotencyClaim | undefined {
  if (header === undefined) return undefined;
  if (!/^[\x21-\x7e]{1,255}$/.test(header)) {
    throw new ApiError(
      'invalid_request',
      'The Idempotency-Key header must be 1 to 255 printable ASCII characters without spaces.',
      'Idempotency-Key',
    );
  }
  return {
    key: header,
    requestHash: requestHash({ model: body.model, prompt: body.prompt, metadata: body.metadata }),
  };
}

/** The task of an earlier request with the same key and body; 409 when the body differs. */
async function replayIdempotent(deps: ApiDeps, accountId: string, claim: IdempotencyClaim) {
  try {
    const taskId = await findIdempotentTask(deps.database.db, accountId, claim);
    return taskId ? await getTaskForAccount(deps.database.db, taskId, accountId) : null;
  } catch (err) {
    if (err instanceof IdempotencyMismatchError)
      throw new ApiError('conflict', err.message, 'Idempotency-Key');
    throw err;
  }
}

/** POST /v1/videos: charge, store the task pending, enqueue it (see TaskLifecycle.create), answer with the task object. */
export function register(router: Router, deps: ApiDeps): void {
  router.post('/videos', ...createVideoHandlers(deps, [requireApiKey(deps)]));
}

/**
 * The creation of a video task after `authenticate` (handlers that set the request's principal and
 * count its rate limit): the one path of POST /v1/videos and of the console's playground, so both
 * are admitted, checked, charged and enqueued alike.
 */
export function createVideoHandlers(deps: ApiDeps, authenticate: RequestHandler[]): RequestHandler[] {
  return [
    ...authenticate,
    admitBody(deps, {
      limitBytes: deps.config.BODY_LIMIT_BYTES,
      models: 'video model',
      leastPrice: leastPriceAmong(
        deps.catalog.models.flatMap((m) =>
          m.kind === 'video'
            ? [{ id: m.id, price: Math.min(videoTaskPrice(m, false), videoTaskPrice(m, true)) }]
            : [],
        ),
      ),
      // a replay of an earlier create is answered whatever the balance is now
      skipPaymentCheck: (req) => req.header('idempotency-key') !== undefined,
    }),
    ...parseBody({ limitBytes: deps.config.BODY_LIMIT_BYTES, multipart: true }),
    async (req, res) => {
      const principal = principalOf(req);
      if (req.is('multipart/form-data')) coerceFormParameters(req.body);
      const model = resolveModel(deps, req);
      requireModelAllowed(req, model.id);
      const body = createVideoBody.parse(req.body);
      const { metadata, price } = normalizeForModel(model, body);
      await requirePublicUrls(
        deps.ssrf,
        [
          ['metadata.callback_url', body.metadata.callback_url],
          ['metadata.input.img_url', body.metadata.input.img_url, 'input'],
          ['metadata.input.audio_url', body.metadata.input.audio_url, 'input'],
        ],
        deps.config.PUBLIC_BASE_URL,
      );
      const requestId = String(req.id);
      const idempotency = idempotencyClaim(req.header('idempotency-key'), body);
      if (idempotency) {
        const earlier = await replayIdempotent(deps, principal.accountId, idempotency);
        if (earlier) {
          res.setHeader('idempotent-replayed', 'true');
          return void res.status(200).json(toTaskObject(earlier));
        }
      }
      const { row } = await deps.lifecycle
        .create({
          id: newTaskId(),
          accountId: principal.accountId,
          apiKeyId: principal.keyId,
          model: model.id,
          prompt: body.prompt,
          metadata,
          priceMicroUsd: price,
          requestId,
          deadlineAt: new Date(Date.now() + deps.config.VIDEO_DEADLINE_MS),
          maxActiveTasks: principal.maxActiveVideoTasks ?? deps.config.VIDEO_MAX_ACTIVE_TASKS,
          idempotency,
        })
        .catch(async (err: unknown) => {
          // a concurrent request with the same key won: answer with its task
          if (err instanceof IdempotencyMismatchError)
            throw new ApiError('conflict', err.message, 'Idempotency-Key');
          if (err instanceof IdempotencyInFlightError && idempotency) {
            const winner = await replayIdempotent(deps, principal.accountId, idempotency);
            if (winner) return { row: winner };
          }
          throw err;
        });
      req.log.info({ taskId: row.id, model: model.id, price }, 'video task created');
      res.status(200).json(toTaskObject(row));
    },
  ];
}

export const contract = endpoint(
  'POST /v1/videos',
  'Create an image-to-video task (JSON, or the multipart form of the openai client); honours Idempotency-Key',
  {
    tag: 'videos',
    auth: 'apiKey',
    body: { schema: createVideoBody, multipart: true, json: true },
    200: ok(videoTaskObject, 'the task, pending (or the first task for a repeated Idempotency-Key)'),
    402: 'balance or key quota too low',
    404: 'unknown model',
    409: 'Idempotency-Key reused with another body',
  },
);

export const route: Route = { mount: '/v1', contracts: [contract], register };

/**
 * POST /console/api/playground/videos: the console's playground creates a video task on the session,
 * as the account's playground key (middleware/playground-auth.ts), through the same handlers as
 * POST /v1/videos (admission, checks, charge, enqueue). No key is ever sent to the browser.
 */
export const playgroundRoute: Route = {
  mount: '/console/api',
  contracts: [
    endpoint(
      'POST /console/api/playground/videos',
      "Create a video task from the console, as the account's playground key: billed and limited like POST /v1/videos",
      {
        tag: 'console',
        auth: 'session',
        body: createVideoBody,
        200: ok(videoTaskObject, 'the task, pending'),
        402: 'balance too low',
        403: 'the playground key is disabled',
        404: 'unknown model',
        409: 'the account holds the most keys it may, and the playground needs one',
        429: "over the key's requests per minute",
      },
    ),
  ],
  register: (router, deps) => {
    router.post('/playground/videos', ...createVideoHandlers(deps, playgroundAuth(deps)));
  },
};
