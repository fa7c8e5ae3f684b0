import { createHmac, timingSafeEqual } from 'node:crypto';

export const MEDIA_VARIANTS = ['video', 'thumbnail'] as const;
export type MediaVariant = (typeof MEDIA_VARIANTS)[number];

const FILE_OF: Record<MediaVariant, string> = { video: 'video.mp4', thumbnail: 'thumbnail.jpg' };
export const VARIANT_OF_FILE: Record<string, MediaVariant> = {
  'video.mp4': 'video',
  'thumbnail.jpg': 'thumbnail',
};

/** The signed links of a succeeded task, as they go into its task object. */
export interface TaskMediaLinks {
  videoUrl: string;
  thumbnailUrl: string;
  expiresAt: Date;
}

/**
 * Signs and checks the gateway's media links: `<base>/media/<task id>/<video.mp4|thumbnail.jpg>
 * ?exp=<unix seconds>&sig=<HMAC-SHA256>`. A link needs no Authorization header (it works in a
 * `<video>` tag) and stops working at `exp`; it is deterministic, so a task object that carries
 * one never changes.
 */
export class MediaLinkSigner {
  constructor(
    private readonly secret: string,
    private readonly publicBaseUrl: string,
  ) {}

  private signature(taskId: string, variant: MediaVariant, exp: number): string {
    return this.sign(`${taskId}\n${variant}\n${exp}`);
  }

  /** The HMAC-SHA256 (base64url) of `text` under the media secret: what a link's `sig` carries. */
  sign(text: string): string {
    return createHmac('sha256', this.secret).update(text).digest('base64url');
  }

  /** Whether `sig` is `sign(text)`, in constant time. */
  verifyText(text: string, sig: string): boolean {
    const want = Buffer.from(this.sign(text));
    const got = Buffer.from(sig);
    return got.length === want.length && timingSafeEqual(got, want);
  }

  /** The link to `variant` of the task, valid until `expiresAt`. */
  link(taskId: string, variant: MediaVariant, expiresAt: Date): string {
    const exp = Math.floor(expiresAt.getTime() / 1000);
    const sig = this.signature(taskId, variant, exp);
    return `${this.publicBaseUrl}/media/${encodeURIComponent(taskId)}/${FILE_OF[variant]}?exp=${exp}&sig=${sig}`;
  }

  /** Both links of a task whose media is kept until `expiresAt`. */
  linksFor(taskId: string, expiresAt: Date): TaskMediaLinks {
    return {
      videoUrl: this.link(taskId, 'video', expiresAt),
      thumbnailUrl: this.link(taskId, 'thumbnail', expiresAt),
      expiresAt,
    };
  }

  /**
   * Whether `sig` signs (taskId, variant, exp), in constant time. Expiry is the caller's check
   * (an expired link deserves its own answer).
   */
  verify(taskId: string, variant: MediaVariant, exp: number, sig: string): boolean {
    return this.verifyText(`${taskId}\n${variant}\n${exp}`, sig);
  }
}
