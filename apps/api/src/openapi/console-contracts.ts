import { callbackDelivery, consoleObject, errorResponse, listOf, videoTaskObject } from '@mediagate/shared';
import { z } from 'zod';
import { ledgerQuery, spendQuery, usageQuery } from '../routes/console.billing';
import { changeBody, forgotBody, resetBody } from '../routes/console.password';
import { webhookTestBody } from '../routes/console.webhooks';
import { listVideosQuery } from '../routes/videos.list';
import { webhookSettingsBody } from '../routes/webhooks.settings';
import type { RouteContract } from './contracts';

// Answers of the console's routes, with every field, so the console's generated client is typed.
const unix = z.number().int().describe('Unix seconds');
const ok = (schema: z.ZodType, description = 'OK') => ({ description, schema });

export const tokenSchema = consoleObject('Token', {
  id: z.string(),
  name: z.string(),
  display_prefix: z.string(),
  status: z.enum(['active', 'disabled', 'deleted']),
  quota_usd: z.number().nullable(),
  quota_micro_usd: z.number().int().nullable(),
  used_usd: z.number(),
  used_micro_usd: z.number().int(),
  expires_at: unix.nullable(),
  allowed_models: z.array(z.string()).nullable(),
  allowed_ips: z.array(z.string()).nullable(),
  created_at: unix.nullable(),
  last_used_at: unix.nullable(),
});
export const createdTokenSchema = tokenSchema
  .extend({ key: z.string().describe('the sk- key; in this answer only') })
  .meta({ id: 'CreatedToken' });

export const accountSchema = consoleObject('Account', {
  id: z.string(),
  email: z.string(),
  status: z.enum(['active', 'disabled']),
  role: z.enum(['user', 'admin']),
  balance_usd: z.number(),
  balance_micro_usd: z.number().int(),
  limits: z.object({ rpm: z.number().int().nullable(), max_active_video_tasks: z.number().int().nullable() }),
  created_at: unix.nullable(),
});

const balance = consoleObject('Balance', { balance_usd: z.number(), balance_micro_usd: z.number().int() });
const page = (item: z.ZodType, id: string) =>
  z
    .object({
      object: z.literal('list'),
      data: z.array(item),
      has_more: z.boolean(),
      next_cursor: z.string().nullable().describe('pass as `before` for the next page'),
    })
    .meta({ id });
const ledgerEntry = consoleObject('LedgerEntry', {
  id: z.string(),
  kind: z.enum(['grant', 'topup', 'bonus', 'charge', 'refund', 'adjustment']),
  amount_usd: z.number(),
  amount_micro_usd: z.number().int(),
  ref: z.string().nullable(),
  reason: z.string().nullable(),
  created_at: unix.nullable(),
});
const usageRecord = consoleObject('UsageRecord', {
  id: z.string(),
  created_at: unix.nullable(),
  ref: z.string(),
  token: z
    .object({ id: z.string(), name: z.string().nullable(), display_prefix: z.string().nullable() })
    .nullable(),
  model: z.string().nullable(),
  units: z.number().int(),
  cost_usd: z.number(),
  cost_micro_usd: z.number().int(),
  refunded_usd: z.number(),
  refunded_micro_usd: z.number().int(),
  outcome: z.string(),
  latency_ms: z.number().int().nullable(),
});
const spendSummary = consoleObject('UsageSummary', {
  days: z.number().int(),
  time_zone: z.string(),
  since: unix,
  data: z.array(
    z.object({
      day: z.string().describe('YYYY-MM-DD in time_zone'),
      model: z.string().nullable(),
      calls: z.number().int(),
      spent_usd: z.number(),
      spent_micro_usd: z.number().int(),
    }),
  ),
});
const webhookSecret = consoleObject('WebhookSecret', {
  secret: z.string().describe('whsec_...'),
  created_at: unix.nullable(),
  rotated_at: unix.nullable(),
  previous_secret_expires_at: unix.nullable(),
});
const webhookSettings = consoleObject('WebhookSettings', {
  video_processing: z.boolean(),
  events: z.array(z.string()),
});
const webhookTest = consoleObject('WebhookTestResult', {
  id: z.string(),
  url: z.string(),
  delivered: z.boolean(),
  status_code: z.number().int().nullable(),
  latency_ms: z.number().int(),
  error: z.string().nullable(),
  response_body: z.string().nullable(),
});
const consoleModel = z.object({
  object: z.literal('model'),
  id: z.string(),
  type: z.enum(['image', 'video']),
});
const accepted = (id: string) =>
  consoleObject(id, { email: z.string(), status: z.string(), expires_in: z.number().int() });

const registrationAccepted = consoleObject('RegistrationAccepted', {
  email: z.string(),
  status: z.string(),
  expires_in: z.number().int().describe('seconds the code is valid'),
  resend_in: z.number().int().describe('seconds before another code can be asked for'),
});
const registered = consoleObject('Registered', {
  id: z.string(),
  email: z.string(),
  balance_usd: z.number(),
  balance_micro_usd: z.number().int(),
  api_key: z.object({ id: z.string(), name: z.string(), key: z.string(), display_prefix: z.string() }),
  session: z.object({ token: z.string(), expires_at: unix }),
});
const session = consoleObject('Session', {
  token: z.string(),
  expires_at: unix,
  account_id: z.string(),
  role: z.enum(['user', 'admin']),
});

export const consoleResponses = {
  registrationAccepted,
  registered,
  session,
  balance,
  ledgerPage: page(ledgerEntry, 'LedgerPage'),
  usagePage: page(usageRecord, 'UsagePage'),
};

/** The console's routes added to those of contracts.ts: passwords, videos, webhooks, spend, models. */
export function consoleRouteContracts(): RouteContract[] {
  const c = (r: Omit<RouteContract, 'tag' | 'auth'> & { auth?: RouteContract['auth'] }): RouteContract => ({
    tag: 'console',
    auth: 'session',
    ...r,
  });
  return [
    c({
      method: 'post',
      path: '/console/api/password/forgot',
      summary: 'Mail a password reset code (202 whether or not the address has an account)',
      auth: 'none',
      body: { schema: forgotBody },
      responses: { 202: ok(accepted('PasswordResetRequested')) },
    }),
    c({
      method: 'post',
      path: '/console/api/password/reset',
      summary: 'Set a new password with the e-mailed code; every session of the account ends',
      auth: 'none',
      body: { schema: resetBody },
      responses: {
        200: ok(consoleObject('PasswordReset', { status: z.string() })),
        400: { description: 'wrong or expired code', schema: errorResponse },
      },
    }),
    c({
      method: 'post',
      path: '/console/api/password/change',
      summary: 'Change the password (the current one is needed); other sessions end',
      body: { schema: changeBody },
      responses: {
        200: ok(consoleObject('PasswordChanged', { status: z.string() })),
        400: { description: 'wrong current password', schema: errorResponse },
      },
    }),
    c({
      method: 'get',
      path: '/console/api/models',
      summary: 'Model ids of the catalog (for key limits)',
      responses: { 200: ok(listOf(consoleModel, 'ConsoleModelList')) },
    }),
    c({
      method: 'get',
      path: '/console/api/usage/summary',
      summary: 'Spend and calls per day and model over the last days',
      query: spendQuery,
      responses: { 200: ok(spendSummary) },
    }),
    c({
      method: 'get',
      path: '/console/api/videos',
      summary: "The account's video tasks, newest first",
      query: listVideosQuery,
      responses: { 200: ok(listOf(videoTaskObject, 'VideoTaskList')) },
    }),
    c({
      method: 'get',
      path: '/console/api/videos/:taskId',
      summary: 'A video task',
      responses: { 200: ok(videoTaskObject), 404: { description: 'no such task', schema: errorResponse } },
    }),
    c({
      method: 'get',
      path: '/console/api/videos/:taskId/callbacks',
      summary: "A task's callback deliveries and every attempt",
      responses: { 200: ok(listOf(callbackDelivery, 'CallbackDeliveryList')) },
    }),
    c({
      method: 'post',
      path: '/console/api/videos/:taskId/callbacks/:deliveryId/redeliver',
      summary: 'Send a callback delivery again now',
      responses: { 202: ok(callbackDelivery, 'scheduled') },
    }),
    c({
      method: 'get',
      path: '/console/api/webhooks/secret',
      summary: 'The whsec_ signing secret',
      responses: { 200: ok(webhookSecret) },
    }),
    c({
      method: 'post',
      path: '/console/api/webhooks/secret/rotate',
      summary: 'Rotate the signing secret (the old one also signs for 24 hours)',
      responses: { 200: ok(webhookSecret) },
    }),
    c({
      method: 'get',
      path: '/console/api/webhooks/settings',
      summary: 'Which events callbacks carry',
      responses: { 200: ok(webhookSettings) },
    }),
    c({
      method: 'post',
      path: '/console/api/webhooks/settings',
      summary: 'Opt in or out of video.processing events',
      body: { schema: webhookSettingsBody },
      responses: { 200: ok(webhookSettings) },
    }),
    c({
      method: 'post',
      path: '/console/api/webhooks/test',
      summary: 'Send a signed webhook.test event to a URL now and show the answer',
      body: { schema: webhookTestBody },
      responses: { 200: ok(webhookTest) },
    }),
  ];
}

export { ledgerQuery, usageQuery };
