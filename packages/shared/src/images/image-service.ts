import type { Logger } from 'pino';
import type { Agent } from 'undici';
import { chargeForCall } from '../billing/ledger';
import { type Settlement, settleImageCall } from '../billing/settlement';
import type { Db } from '../db/client';
import type { CallRefundDetails } from '../db/schema';
import { BillingUnavailableError, CallRefundedError, InvalidInputError, UpstreamError } from '../errors';
import { requestBytes } from '../http/json-client';
import { newImageCallId } from '../ids';
import type { Metrics } from '../metrics';
import { withTimeout } from '../timeout';
import { type ArkImageRequest, ArkImagesClient } from '../upstream/ark-images';
import type { ChannelPool } from '../upstream/channel-pool';
import { DashScopeImageEditClient } from '../upstream/dashscope-image-edit';
import { DEFAULT_IMAGE_CALL_TIMEOUT_MS } from './image-call-config';
import type { ImageJob } from './image-request';
import { errorFromUpstream, publicItemFailure } from './upstream-errors';

/** One image in the OpenAI response shape. */
export type ImageDatum = { url: string } | { b64_json: string };

/**
 * The answer of POST /v1/images/generations and /v1/images/edits: OpenAI's `{created, data, usage}`
 * plus `requested` and `delivered` (and `errors` for the undelivered ones), which the official
 * client keeps as extra fields.
 */
export interface ImagesResponse {
  created: number;
  data: ImageDatum[];
  requested: number;
  delivered: number;
  errors?: Array<{ code: string; message: string }>;
  usage: { generated_images: number; output_tokens?: number; total_tokens?: number };
}

interface Outcome {
  images: ImageDatum[];
  failures: Array<{ code: string; message: string }>;
  usage: { output_tokens?: number; total_tokens?: number };
}

export interface ImageServiceDeps {
  db: Db;
  channels: ChannelPool;
  ark: ArkImagesClient;
  edit: DashScopeImageEditClient;
  /** agent and size limit for fetching a vendor-hosted result when the client wants base64 */
  agent: Agent;
  maxResponseBytes: number;
  /** a call not finished after this long is answered 500 and refunded in full (IMAGE_CALL_TIMEOUT_MS) */
  callTimeoutMs?: number;
  /** settlements are counted here when given */
  metrics?: Pick<Metrics, 'imageSettlements'>;
}

interface Caller {
  accountId: string;
  /** the key making the call: its quota and model allow-list apply, and the usage record names it */
  keyId: string;
  requestId: string;
  /** the request's logger, made when first called (a call that goes well logs nothing below info) */
  log: () => Logger;
  /** whether info lines are written (the 'images generated' line of each call) */
  logsInfo: boolean;
}

const unix = () => Math.floor(Date.now() / 1000);

/** The refund of a call whose upstream call failed: everything given back. */
const CALL_FAILED = {
  reason: 'upstream call failed',
  details: { cause: 'image_call_failed' },
} as const satisfies { reason: string; details: CallRefundDetails };

/**
 * Runs image requests: charges n × the model's price before calling the vendor, calls it through the
 * channel pool with fail-over, settles the call (refunds every image not delivered) and answers in
 * the OpenAI shape. A call whose settlement does not commit (a database fault, or the process dies)
 * stays unsettled in the usage log, and the reconciler's sweep refunds it in full later.
 */
export class ImageService {
  private readonly callTimeoutMs: number;

  constructor(private readonly deps: ImageServiceDeps) {
    this.callTimeoutMs = deps.callTimeoutMs ?? DEFAULT_IMAGE_CALL_TIMEOUT_MS;
  }

  /**
   * Runs a checked job for the account. Throws InsufficientQuotaError or PermissionDeniedError
   * (nothing charged, nothing called) when the balance or the key's quota does not cover n images or
   * the key may not use the model, and InvalidInputError, UpstreamRateLimitedError or UpstreamUnavailableError (everything refunded)
   * when no image came back.
   * Images are answered only once the call's settlement has committed: when it cannot be written
   * the answer is a 503 and the sweep refunds the whole call, so what is kept is always paid for
   * exactly once and what is not delivered is always given back.
   */
  async generate(job: ImageJob, caller: Caller): Promise<ImagesResponse> {
    const callId = newImageCallId();
    const unitPrice = job.model.priceMicroUsd;
    // the call's own logger, made only when something is logged: a child logger per call was a
    // visible share of the API's CPU, and a call that goes well logs nothing below info
    let callLog: Logger | undefined;
    const log = () => (callLog ??= caller.log().child({ imageCall: callId, model: job.model.id }));
    // one statement committed on its own: no transaction around it to open and commit
    await chargeForCall(this.deps.db, {
      accountId: caller.accountId,
      keyId: caller.keyId,
      model: job.model.id,
      units: job.n,
      requestId: caller.requestId,
      amountMicroUsd: unitPrice * job.n,
      ref: callId,
      settlesLater: true,
    });
    let outcome: Outcome;
    try {
      outcome = await this.runWithinDeadline(job, caller);
    } catch (err) {
      await this.settle(caller.accountId, callId, 'all', CALL_FAILED, log);
      if (err instanceof UpstreamError) throw errorFromUpstream(err, log(), caller.requestId);
      throw err;
    }
    const delivered = outcome.images.slice(0, job.n);
    const missing = job.n - delivered.length;
    const settlement = await this.settle(
      caller.accountId,
      callId,
      unitPrice * missing,
      missing > 0
        ? {
            reason: `${missing} of ${job.n} images not delivered`,
            details: { cause: 'images_not_delivered', missing, requested: job.n },
          }
        : undefined,
      log,
    );
    if (caller.logsInfo) {
      // the call's fields on the line itself: no logger of its own for a call that logs only this
      caller
        .log()
        .info(
          { imageCall: callId, model: job.model.id, requested: job.n, delivered: delivered.length },
          'images generated',
        );
    }
    if (delivered.length === 0) {
      const first = outcome.failures[0];
      throw new InvalidInputError(first?.message ?? 'The upstream model made no image for this request.');
    }
    if (settlement === 'failed') {
      throw new BillingUnavailableError(
        `The images could not be billed, so they are not delivered and the call will be refunded in full; retry shortly (request id ${caller.requestId}).`,
      );
    }
    if (!settlement.settled) {
      throw new CallRefundedError(
        `The call ran past its settlement bound and was refunded in full; retry (request id ${caller.requestId}).`,
      );
    }
    return {
      created: unix(),
      data: delivered,
      requested: job.n,
      delivered: delivered.length,
      ...(outcome.failures.length > 0 && missing > 0 ? { errors: outcome.failures.slice(0, missing) } : {}),
      usage: { generated_images: delivered.length, ...outcome.usage },
    };
  }

  /**
   * Settles the call: refunds `refund` of it and marks it settled, in one transaction. Never
   * throws: a settlement that cannot be written is logged and counted, and answered 'failed'; the
   * reconciler's sweep settles such a call (in full) once it is older than its bound.
   */
  private async settle(
    accountId: string,
    callId: string,
    refund: number | 'all',
    why: { reason: string; details: CallRefundDetails } | undefined,
    log: () => Logger,
  ): Promise<Settlement | 'failed'> {
    try {
      const settlement = await settleImageCall(this.deps.db, {
        accountId,
        ref: callId,
        refundMicroUsd: refund,
        reason: why?.reason,
        details: why?.details,
      });
      if (settlement.settled) this.deps.metrics?.imageSettlements.inc({ outcome: 'settled' });
      else {
        this.deps.metrics?.imageSettlements.inc({ outcome: 'late' });
        log().warn(
          { accountId },
          'image call already settled by the sweep (refunded in full); its result is dropped',
        );
      }
      return settlement;
    } catch (err) {
      this.deps.metrics?.imageSettlements.inc({ outcome: 'failed' });
      log().error(
        { err, accountId, refund },
        'image call settlement failed; the reconciler sweep will refund it in full',
      );
      return 'failed';
    }
  }

  /**
   * The upstream calls, bounded by the call deadline: past it the call fails with a timeout (the
   * vendor requests still in flight end on their own timeouts, and their images are dropped), so
   * every call settles well before the reconciler's sweep may take it for abandoned.
   */
  private async runWithinDeadline(job: ImageJob, caller: Caller): Promise<Outcome> {
    return withTimeout(this.run(job, caller), this.callTimeoutMs, {
      error: () =>
        new UpstreamError(`the image call did not finish within ${this.callTimeoutMs} ms`, {
          vendor: job.model.upstreamApi === 'ark-images' ? 'ark' : 'dashscope',
          code: 'timeout',
          retryable: true,
        }),
    });
  }

  private run(job: ImageJob, caller: Caller): Promise<Outcome> {
    if (job.model.upstreamApi === 'ark-images' && job.model.batch.mode === 'sequential') {
      return this.arkBatch(job);
    }
    return this.parallel(job, caller);
  }

  private arkBody(job: ImageJob): ArkImageRequest {
    const { images } = job;
    return {
      model: job.model.upstreamModel,
      prompt: job.prompt,
      response_format: job.responseFormat,
      ...(images.length > 0 ? { image: images.length === 1 ? images[0] : images } : {}),
      ...(job.size ? { size: job.size } : {}),
      ...job.params,
    };
  }

  /** Batch mode 'sequential' (Ark): one call; n > 1 is group generation with `max_images: n` (the vendor may make fewer). */
  private async arkBatch(job: ImageJob): Promise<Outcome> {
    const body = this.arkBody(job);
    if (job.n > 1 || job.sequential === 'auto') {
      body.sequential_image_generation = 'auto';
      body.sequential_image_generation_options = { max_images: job.n };
    } else if (job.sequential === 'disabled') {
      body.sequential_image_generation = 'disabled';
    }
    const result = await this.deps.channels.call('ark', (ch) => this.deps.ark.generate(ch, body));
    const outcome: Outcome = {
      images: [],
      failures: [],
      usage: { output_tokens: result.usage.output_tokens, total_tokens: result.usage.total_tokens },
    };
    for (const item of result.items) {
      if (!item.ok) outcome.failures.push({ code: item.code, message: item.message });
      else outcome.images.push(item.b64_json ? { b64_json: item.b64_json } : { url: item.url! });
    }
    return outcome;
  }

  /** Batch mode 'parallel': one image per call, n calls at once; each call fails over on its own. */
  private async parallel(job: ImageJob, caller: Caller): Promise<Outcome> {
    const settled = await Promise.allSettled(Array.from({ length: job.n }, () => this.one(job)));
    const outcome: Outcome = { images: [], failures: [], usage: {} };
    const errors: UpstreamError[] = [];
    for (const s of settled) {
      if (s.status === 'fulfilled') {
        outcome.images.push(s.value);
        continue;
      }
      if (!(s.reason instanceof UpstreamError)) throw s.reason;
      errors.push(s.reason);
      outcome.failures.push(publicItemFailure(s.reason, caller.log(), caller.requestId));
    }
    if (outcome.images.length === 0) {
      // Nothing came back: report the failure a client can act on (its own 400) before any other.
      throw errors.find((e) => e.details.status === 400) ?? errors[0]!;
    }
    return outcome;
  }

  private async one(job: ImageJob): Promise<ImageDatum> {
    const { model } = job;
    if (model.upstreamApi === 'ark-images') {
      const result = await this.deps.channels.call('ark', (ch) =>
        this.deps.ark.generate(ch, this.arkBody(job)),
      );
      const item = result.items[0];
      if (!item?.ok) {
        throw new UpstreamError(item?.message ?? 'ark answered without an image', {
          vendor: 'ark',
          status: 400,
          code: item?.code ?? 'upstream_item_failed',
          retryable: false,
        });
      }
      return item.b64_json ? { b64_json: item.b64_json } : { url: item.url! };
    }
    const { url } = await this.deps.channels.call('dashscope', (ch) =>
      this.deps.edit.edit(ch, {
        model: model.upstreamModel,
        images: job.images,
        prompt: job.prompt,
        parameters: job.params,
      }),
    );
    if (job.responseFormat === 'url') return { url };
    return { b64_json: (await this.download(url)).toString('base64') };
  }

  /** The vendor hosts the edited image only by URL: fetch it for b64_json, within the size limit. */
  private async download(url: string): Promise<Buffer> {
    try {
      const res = await this.fetchResult(url);
      if (res.status !== 200) throw new Error(`answered ${res.status}`);
      return res.body;
    } catch (err) {
      throw new UpstreamError(`could not fetch the edited image: ${(err as Error).message}`, {
        vendor: 'dashscope',
        code: 'download_failed',
        retryable: true,
      });
    }
  }

  /**
   * An image a vendor answered with by URL, fetched on the vendors' agent within the size limit:
   * its status and bytes. Only for URLs a vendor gave (callers check that, e.g. by a signature);
   * throws TransportError on a failed connection and an error on an answer over the limit.
   */
  async fetchResult(url: string): Promise<{ status: number; body: Buffer }> {
    const res = await requestBytes(this.deps.agent, url, { maxBytes: this.deps.maxResponseBytes });
    return { status: res.status, body: res.body };
  }
}

/**
 * The image service of a process, with its vendor clients on `agent` (whose timeouts bound every
 * upstream call) and `maxResponseBytes` as the largest upstream answer read.
 */
export function createImageService(opts: {
  db: Db;
  channels: ChannelPool;
  agent: Agent;
  maxResponseBytes: number;
  callTimeoutMs?: number;
  metrics?: Pick<Metrics, 'imageSettlements'>;
}): ImageService {
  const limits = { maxResponseBytes: opts.maxResponseBytes };
  return new ImageService({
    ...opts,
    ark: new ArkImagesClient(opts.agent, limits),
    edit: new DashScopeImageEditClient(opts.agent, limits),
  });
}
