import {
  callbackDelivery,
  consoleObject,
  errorResponse,
  healthResponse,
  imagesResponse,
  listOf,
  modelObject,
  videoTaskObject,
} from '@mediagate/shared';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { adjustmentBody, limitsBody, listQuery, topUpBody } from '../routes/admin.accounts';
import { adminTasksQuery } from '../routes/admin.tasks';
import { registerBody, resendBody } from '../routes/console.register';
import { loginBody } from '../routes/console.session';
import { tokenBodies } from '../routes/console.tokens';
import {
  createTopUpBody,
  topUpListQuery,
  topUpObjectSchema,
  topUpOptionsSchema,
} from '../routes/console.topups';
import { verifyBody } from '../routes/console.verify';
import { pageQuery } from '../routes/console-views';
import { metricsOnApiPort } from '../routes/metrics';
import { contentQuerySchema } from '../routes/videos.content';
import { createVideoBody } from '../routes/videos.create';
import { videoDeletedSchema } from '../routes/videos.delete';
import { listVideosQuery } from '../routes/videos.list';
import { webhookSettingsBody } from '../routes/webhooks.settings';
import {
  accountSchema,
  consoleResponses,
  consoleRouteContracts,
  createdTokenSchema,
  ledgerQuery,
  tokenSchema,
  usageQuery,
} from './console-contracts';

export type Auth = 'apiKey' | 'session' | 'admin' | 'signature' | 'none';

/** One route of the API as the OpenAPI document describes it. */
export interface RouteContract {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** Express path, e.g. /v1/videos/:taskId */
  path: string;
  summary: string;
  tag: string;
  auth: Auth;
  body?: { schema: z.ZodType; multipart?: boolean; json?: boolean };
  query?: z.ZodObject;
  responses: Record<number, { description: string; schema?: z.ZodType; contentType?: string }>;
}

/** An image generation request: model-specific fields are checked per model (see GET /v1/models/{id}). */
const imageGenerationBody = z.looseObject({
  model: z.string(),
  prompt: z.string(),
  n: z.number().int().min(1).optional(),
  size: z.string().optional().describe('WxH, or 1K/2K/4K where the model offers them'),
  response_format: z.enum(['url', 'b64_json']).optional(),
  image: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe('reference image URLs or data URLs'),
  watermark: z.boolean().optional(),
  seed: z.number().int().optional(),
  guidance_scale: z.number().optional(),
  negative_prompt: z.string().optional(),
  sequential_image_generation: z.enum(['auto', 'disabled']).optional(),
});

const imageEditBody = z.object({
  model: z.string(),
  prompt: z.string(),
  image: z.array(z.string().meta({ format: 'binary' })).describe('1 to 3 image files'),
  n: z.number().int().optional(),
  response_format: z.enum(['url', 'b64_json']).optional(),
});

const ok = (schema: z.ZodType, description = 'OK') => ({ description, schema });
const account = accountSchema;
const token = tokenSchema;
const anyObject = (id: string) => consoleObject(id);
const queueState = consoleObject('QueueState', { name: z.string(), paused: z.boolean() });
const adminTask = videoTaskObject
  .extend({ account_id: z.string(), upstream_task_id: z.string().nullable() })
  .meta({ id: 'AdminTask' });

/** Every route the API serves; a test fails when a route exists without its contract. */
export function routeContracts(deps: Pick<ApiDeps, 'catalog' | 'config' | 'metrics'>): RouteContract[] {
  const { createBody: tokenCreate, patchBody: tokenPatch } = tokenBodies(deps);
  return [
    // health and operations
    {
      method: 'get',
      path: '/healthz',
      summary: 'Liveness',
      tag: 'operations',
      auth: 'none',
      responses: { 200: ok(healthResponse) },
    },
    {
      method: 'get',
      path: '/readyz',
      summary: 'Readiness: Postgres, Redis and migrations answer and the process is not draining',
      tag: 'operations',
      auth: 'none',
      responses: { 200: ok(healthResponse), 503: { description: 'not ready', schema: healthResponse } },
    },
    ...(metricsOnApiPort(deps)
      ? [
          {
            method: 'get',
            path: '/metrics',
            summary: 'Prometheus metrics (Authorization: Bearer <METRICS_TOKEN>)',
            tag: 'operations',
            auth: 'none',
            responses: {
              200: { description: 'Prometheus text format', contentType: 'text/plain' },
              401: { description: 'no or wrong metrics token' },
            },
          } satisfies RouteContract,
        ]
      : []),
    {
      method: 'get',
      path: '/openapi.json',
      summary: 'This document',
      tag: 'operations',
      auth: 'none',
      responses: { 200: { description: 'OpenAPI 3.1 document' } },
    },
    {
      method: 'get',
      path: '/docs',
      summary: 'Browsable API reference',
      tag: 'operations',
      auth: 'none',
      responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
    },

    // videos
    {
      method: 'post',
      path: '/v1/videos',
      summary:
        'Create an image-to-video task (JSON, or the multipart form of the openai client); honours Idempotency-Key',
      tag: 'videos',
      auth: 'apiKey',
      body: { schema: createVideoBody, multipart: true, json: true },
      responses: {
        200: ok(videoTaskObject, 'the task, pending (or the first task for a repeated Idempotency-Key)'),
        402: { description: 'balance or key quota too low', schema: errorResponse },
        404: { description: 'unknown model', schema: errorResponse },
        409: { description: 'Idempotency-Key reused with another body', schema: errorResponse },
      },
    },
    {
      method: 'get',
      path: '/v1/videos',
      summary: "List the account's tasks, newest first",
      tag: 'videos',
      auth: 'apiKey',
      query: listVideosQuery,
      responses: { 200: ok(listOf(videoTaskObject, 'VideoTaskList')) },
    },
    {
      method: 'get',
      path: '/v1/videos/:taskId',
      summary: 'Retrieve a task',
      tag: 'videos',
      auth: 'apiKey',
      responses: {
        200: ok(videoTaskObject),
        404: { description: 'no such task for this account', schema: errorResponse },
      },
    },
    {
      method: 'get',
      path: '/v1/videos/:taskId/events',
      summary:
        'Server-Sent Events: the task object at once and on every move, ending after the terminal state; resumable with Last-Event-ID',
      tag: 'videos',
      auth: 'apiKey',
      responses: {
        200: {
          description:
            'an event stream: `id: <state number>` and `data: <the task object>` per event, comment lines as heartbeats',
          contentType: 'text/event-stream',
        },
        404: { description: 'no such task for this account', schema: errorResponse },
        429: { description: 'too many open event streams for this key', schema: errorResponse },
      },
    },
    {
      method: 'post',
      path: '/v1/videos/:taskId/cancel',
      summary: 'Cancel a task (full refund)',
      tag: 'videos',
      auth: 'apiKey',
      responses: {
        200: ok(videoTaskObject),
        409: { description: 'no longer cancelable', schema: errorResponse },
      },
    },
    {
      method: 'get',
      path: '/v1/videos/:taskId/content',
      summary:
        "Download a succeeded task's video (variant=video, MP4) or first frame (variant=thumbnail, JPEG)",
      tag: 'videos',
      auth: 'apiKey',
      query: contentQuerySchema,
      responses: {
        200: { description: 'the bytes (Range requests answer 206)', contentType: 'video/mp4' },
        302: { description: "not copied yet: the vendor's link" },
        400: { description: 'spritesheet or an unknown variant', schema: errorResponse },
        404: {
          description: 'no such task; video_not_ready, video_expired, video_deleted, thumbnail_unavailable',
          schema: errorResponse,
        },
      },
    },
    {
      method: 'delete',
      path: '/v1/videos/:taskId',
      summary: "Delete a finished task's kept video and first frame",
      tag: 'videos',
      auth: 'apiKey',
      responses: {
        200: ok(videoDeletedSchema.meta({ id: 'VideoDeleted' })),
        404: { description: 'no such task for this account', schema: errorResponse },
        409: { description: 'the task is pending or processing', schema: errorResponse },
      },
    },
    ...(
      [
        ['/v1/videos/:taskId/remix', 'Remix a video (not supported by these models)'],
        ['/v1/videos/edits', 'Edit a video (not supported by these models)'],
        ['/v1/videos/extensions', 'Extend a video (not supported by these models)'],
        ['/v1/videos/characters', 'Create a video character (not supported by these models)'],
      ] as const
    ).map(
      ([path, summary]): RouteContract => ({
        method: 'post',
        path,
        summary,
        tag: 'videos',
        auth: 'apiKey',
        responses: { 400: { description: 'unsupported_operation', schema: errorResponse } },
      }),
    ),
    {
      method: 'get',
      path: '/v1/videos/characters/:characterId',
      summary: 'Retrieve a video character (not supported by these models)',
      tag: 'videos',
      auth: 'apiKey',
      responses: { 400: { description: 'unsupported_operation', schema: errorResponse } },
    },
    {
      method: 'get',
      path: '/media/:taskId/:file',
      summary:
        "A task's video (video.mp4) or first frame (thumbnail.jpg) by its signed link (?exp=&sig=), without a key",
      tag: 'videos',
      auth: 'signature',
      responses: {
        200: { description: 'the bytes (Range requests answer 206)', contentType: 'video/mp4' },
        302: { description: 'S3 driver: a presigned or CDN link; not copied yet: the vendor link' },
        403: { description: 'invalid_media_link', schema: errorResponse },
        404: { description: 'video_expired, video_deleted, thumbnail_unavailable', schema: errorResponse },
      },
    },
    {
      method: 'get',
      path: '/v1/videos/:taskId/callbacks',
      summary: "A task's callback deliveries and their attempts",
      tag: 'callbacks',
      auth: 'apiKey',
      responses: { 200: ok(listOf(callbackDelivery, 'CallbackDeliveryList')) },
    },
    {
      method: 'post',
      path: '/v1/videos/:taskId/callbacks/:deliveryId/redeliver',
      summary: 'Send a callback delivery again',
      tag: 'callbacks',
      auth: 'apiKey',
      responses: { 202: ok(callbackDelivery, 'scheduled') },
    },
    {
      method: 'get',
      path: '/v1/webhooks/secret',
      summary: "The account's whsec_ signing secret",
      tag: 'callbacks',
      auth: 'apiKey',
      responses: { 200: ok(anyObject('WebhookSecret')) },
    },
    {
      method: 'post',
      path: '/v1/webhooks/secret/rotate',
      summary: 'Rotate the signing secret (both signatures are sent for 24 hours)',
      tag: 'callbacks',
      auth: 'apiKey',
      responses: { 200: ok(anyObject('WebhookSecret')) },
    },
    {
      method: 'get',
      path: '/v1/webhooks/settings',
      summary: 'Which events the account receives',
      tag: 'callbacks',
      auth: 'apiKey',
      responses: { 200: ok(anyObject('WebhookSettings')) },
    },
    {
      method: 'post',
      path: '/v1/webhooks/settings',
      summary: 'Opt in or out of video.processing events',
      tag: 'callbacks',
      auth: 'apiKey',
      body: { schema: webhookSettingsBody },
      responses: { 200: ok(anyObject('WebhookSettings')) },
    },

    // images and models
    {
      method: 'post',
      path: '/v1/images/generations',
      summary: 'Generate or edit images synchronously',
      tag: 'images',
      auth: 'apiKey',
      body: { schema: imageGenerationBody },
      responses: {
        200: ok(imagesResponse),
        402: { description: 'balance or key quota too low', schema: errorResponse },
        429: { description: 'rate limited (Retry-After)', schema: errorResponse },
      },
    },
    {
      method: 'post',
      path: '/v1/images/edits',
      summary: 'Edit images given as files (the OpenAI multipart endpoint)',
      tag: 'images',
      auth: 'apiKey',
      body: { schema: imageEditBody, multipart: true, json: true },
      responses: { 200: ok(imagesResponse) },
    },
    {
      method: 'get',
      path: '/v1/models',
      summary: 'List models',
      tag: 'models',
      auth: 'apiKey',
      responses: { 200: ok(listOf(modelObject, 'ModelList')) },
    },
    {
      method: 'get',
      path: '/v1/models/:id',
      summary: 'A model with its capabilities, parameters and price',
      tag: 'models',
      auth: 'apiKey',
      responses: { 200: ok(modelObject) },
    },

    // console
    {
      method: 'post',
      path: '/console/api/register',
      summary: 'Start a registration: a 6-digit code is e-mailed',
      tag: 'console',
      auth: 'none',
      body: { schema: registerBody },
      responses: { 202: ok(consoleResponses.registrationAccepted) },
    },
    {
      method: 'post',
      path: '/console/api/register/resend',
      summary: 'Send the code again (cool-down applies)',
      tag: 'console',
      auth: 'none',
      body: { schema: resendBody },
      responses: { 202: ok(consoleResponses.registrationAccepted) },
    },
    {
      method: 'post',
      path: '/console/api/register/verify',
      summary: 'Confirm the code: creates the account, its default key and a session',
      tag: 'console',
      auth: 'none',
      body: { schema: verifyBody },
      responses: { 201: ok(consoleResponses.registered) },
    },
    {
      method: 'post',
      path: '/console/api/login',
      summary: 'Open a console session',
      tag: 'console',
      auth: 'none',
      body: { schema: loginBody },
      responses: { 200: ok(consoleResponses.session) },
    },
    {
      method: 'post',
      path: '/console/api/logout',
      summary: 'End the session',
      tag: 'console',
      auth: 'session',
      responses: { 200: ok(anyObject('LoggedOut')) },
    },
    {
      method: 'get',
      path: '/console/api/me',
      summary: 'The signed-in account',
      tag: 'console',
      auth: 'session',
      responses: { 200: ok(account) },
    },
    {
      method: 'get',
      path: '/console/api/balance',
      summary: 'Balance',
      tag: 'console',
      auth: 'session',
      responses: { 200: ok(consoleResponses.balance) },
    },
    {
      method: 'get',
      path: '/console/api/ledger',
      summary: 'Ledger, newest first',
      tag: 'console',
      auth: 'session',
      query: ledgerQuery,
      responses: { 200: ok(consoleResponses.ledgerPage) },
    },
    {
      method: 'get',
      path: '/console/api/usage',
      summary: 'Usage log of billed calls, newest first',
      tag: 'console',
      auth: 'session',
      query: usageQuery,
      responses: { 200: ok(consoleResponses.usagePage) },
    },
    {
      method: 'get',
      path: '/console/api/topups/options',
      summary: 'How the account can top up: QR providers, rate, minimum, bonus, bank transfer details',
      tag: 'console',
      auth: 'session',
      responses: { 200: ok(topUpOptionsSchema) },
    },
    {
      method: 'post',
      path: '/console/api/topups',
      summary: 'Start a QR-code top-up in CNY (Alipay or WeChat Pay); returns the QR content',
      tag: 'console',
      auth: 'session',
      body: { schema: createTopUpBody },
      responses: {
        201: ok(topUpObjectSchema, 'Created'),
        503: { description: 'the payment provider is unavailable', schema: errorResponse },
      },
    },
    {
      method: 'get',
      path: '/console/api/topups/:id',
      summary: 'A top-up and its status (created, paid, credited, closed, expired)',
      tag: 'console',
      auth: 'session',
      responses: { 200: ok(topUpObjectSchema), 404: { description: 'not found', schema: errorResponse } },
    },
    {
      method: 'get',
      path: '/console/api/topups',
      summary: "The account's top-ups, newest first",
      tag: 'console',
      auth: 'session',
      query: topUpListQuery,
      responses: { 200: ok(listOf(topUpObjectSchema, 'TopUpList')) },
    },
    {
      method: 'post',
      path: '/console/api/tokens',
      summary: 'Create a key (shown once)',
      tag: 'console',
      auth: 'session',
      body: { schema: tokenCreate },
      responses: { 201: ok(createdTokenSchema) },
    },
    {
      method: 'get',
      path: '/console/api/tokens',
      summary: "The account's keys",
      tag: 'console',
      auth: 'session',
      responses: { 200: ok(listOf(token, 'TokenList')) },
    },
    {
      method: 'patch',
      path: '/console/api/tokens/:id',
      summary: 'Rename, disable, enable, or change limits',
      tag: 'console',
      auth: 'session',
      body: { schema: tokenPatch },
      responses: { 200: ok(token) },
    },
    {
      method: 'delete',
      path: '/console/api/tokens/:id',
      summary: 'Delete a key',
      tag: 'console',
      auth: 'session',
      responses: { 200: ok(token) },
    },

    ...consoleRouteContracts(),

    // admin
    {
      method: 'get',
      path: '/admin/api/accounts',
      summary: 'List and find accounts',
      tag: 'admin',
      auth: 'admin',
      query: listQuery,
      responses: { 200: ok(listOf(account, 'AccountList')) },
    },
    {
      method: 'get',
      path: '/admin/api/accounts/:id',
      summary: 'An account',
      tag: 'admin',
      auth: 'admin',
      responses: { 200: ok(account) },
    },
    {
      method: 'post',
      path: '/admin/api/accounts/:id/disable',
      summary: 'Disable an account',
      tag: 'admin',
      auth: 'admin',
      responses: { 200: ok(account) },
    },
    {
      method: 'post',
      path: '/admin/api/accounts/:id/enable',
      summary: 'Enable an account',
      tag: 'admin',
      auth: 'admin',
      responses: { 200: ok(account) },
    },
    {
      method: 'patch',
      path: '/admin/api/accounts/:id/limits',
      summary: 'Per-account rate and concurrency limits',
      tag: 'admin',
      auth: 'admin',
      body: { schema: limitsBody },
      responses: { 200: ok(account) },
    },
    {
      method: 'post',
      path: '/admin/api/accounts/:id/topups',
      summary: 'Credit a bank transfer (idempotent per reference)',
      tag: 'admin',
      auth: 'admin',
      body: { schema: topUpBody },
      responses: { 201: ok(anyObject('TopUp')), 200: ok(anyObject('TopUp'), 'already credited') },
    },
    {
      method: 'post',
      path: '/admin/api/accounts/:id/adjustments',
      summary: 'Adjust a balance, with a reason',
      tag: 'admin',
      auth: 'admin',
      body: { schema: adjustmentBody },
      responses: { 201: ok(anyObject('Adjustment')), 200: ok(anyObject('Adjustment'), 'already applied') },
    },
    {
      method: 'get',
      path: '/admin/api/transfer-references/:reference',
      summary: "The account a bank-transfer memo's reference belongs to",
      tag: 'admin',
      auth: 'admin',
      responses: {
        200: ok(anyObject('BankTransferReference')),
        404: { description: 'not found', schema: errorResponse },
      },
    },
    {
      method: 'get',
      path: '/admin/api/tasks',
      summary: 'Find tasks by status, age, model or account',
      tag: 'admin',
      auth: 'admin',
      query: adminTasksQuery,
      responses: { 200: ok(listOf(adminTask, 'AdminTaskList')) },
    },
    {
      method: 'post',
      path: '/admin/api/tasks/:taskId/retry',
      summary: 'Run a failed task again as a new task',
      tag: 'admin',
      auth: 'admin',
      responses: { 200: ok(videoTaskObject) },
    },
    {
      method: 'get',
      path: '/admin/api/queues',
      summary: 'Queues with their depth by state',
      tag: 'admin',
      auth: 'admin',
      responses: { 200: ok(listOf(queueState, 'QueueList')) },
    },
    {
      method: 'post',
      path: '/admin/api/queues/:name/pause',
      summary: 'Pause a queue',
      tag: 'admin',
      auth: 'admin',
      responses: { 200: ok(queueState) },
    },
    {
      method: 'post',
      path: '/admin/api/queues/:name/resume',
      summary: 'Resume a queue',
      tag: 'admin',
      auth: 'admin',
      responses: { 200: ok(queueState) },
    },

    // payments
    {
      method: 'post',
      path: '/payments/alipay/notify',
      summary: "Alipay's asynchronous notification (form, RSA2-signed); answered with the text success",
      tag: 'payments',
      auth: 'signature',
      responses: { 200: { description: 'success', contentType: 'text/plain' } },
    },
    {
      method: 'post',
      path: '/payments/wechat/notify',
      summary: "WeChat Pay's payment notification (signed, resource encrypted); 204 when accepted",
      tag: 'payments',
      auth: 'signature',
      responses: { 204: { description: 'accepted' } },
    },
    {
      method: 'post',
      path: '/payments/:provider/notify',
      summary: "A payment provider's signed notification (credited once per payment reference)",
      tag: 'payments',
      auth: 'signature',
      responses: {
        200: ok(anyObject('PaymentNotificationResult')),
        401: { description: 'bad signature', schema: errorResponse },
      },
    },
  ];
}
