import { spawn } from 'node:child_process';

/** the scale and encoding of a thumbnail, the same for one video or several */
const THUMBNAIL_OUTPUT = [
  '-frames:v',
  '1',
  '-vf',
  "scale='min(1280,iw)':-2",
  '-q:v',
  '3',
  '-f',
  'image2',
  '-c:v',
  'mjpeg',
];

/**
 * The first frame of the video at `location` (a file path or URL ffmpeg can read), as a JPEG no
 * wider than 1280 px. Rejects when ffmpeg is missing, fails, or takes longer than `timeoutMs`.
 */
export async function firstFrameJpeg(
  ffmpegPath: string,
  location: string,
  opts: { timeoutMs?: number; maxBytes?: number } = {},
): Promise<Buffer> {
  const [jpeg] = await firstFramesJpeg(ffmpegPath, [location], {
    timeoutMs: opts.timeoutMs ?? 60_000,
    maxBytes: opts.maxBytes ?? 10 * 1024 * 1024,
  });
  return jpeg!;
}

/**
 * The first frames of several videos from one ffmpeg run, each written to its own pipe (fd 3, 4,
 * ...): ffmpeg's start-up (loading its libraries) costs several times the decoding of one frame,
 * so a run per video spends most of its CPU starting. Rejects when any video fails.
 */
export function firstFramesJpeg(
  ffmpegPath: string,
  locations: readonly string[],
  opts: { timeoutMs: number; maxBytes: number },
): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const args = ['-nostdin', '-loglevel', 'error'];
    for (const location of locations) args.push('-i', location);
    locations.forEach((_, i) => {
      args.push('-map', `${i}:v:0`, ...THUMBNAIL_OUTPUT, `pipe:${3 + i}`);
    });
    const child = spawn(ffmpegPath, args, {
      stdio: ['ignore', 'ignore', 'pipe', ...locations.map(() => 'pipe' as const)],
    });
    const outputs = locations.map(() => ({ chunks: [] as Buffer[], size: 0 }));
    let stderr = '';
    let tooLarge = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('ffmpeg timed out'));
    }, opts.timeoutMs);
    outputs.forEach((out, i) => {
      (child.stdio[3 + i] as NodeJS.ReadableStream).on('data', (b: Buffer) => {
        out.size += b.length;
        if (out.size > opts.maxBytes) {
          tooLarge = true;
          child.kill('SIGKILL');
        } else out.chunks.push(b);
      });
    });
    child.stderr?.on('data', (b: Buffer) => {
      if (stderr.length < 2_000) stderr += b.toString();
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0 && !tooLarge && outputs.every((o) => o.size > 0)) {
        resolve(outputs.map((o) => Buffer.concat(o.chunks)));
      } else reject(new Error(`ffmpeg exited with ${code}: ${stderr.trim().slice(0, 300)}`));
    });
  });
}

/**
 * firstFrameJpeg for concurrent callers: the videos asked for within `windowMs` of each other
 * (up to `maxBatch`) share one ffmpeg run. When that run fails (one unreadable video fails it
 * all), each video is tried again on its own, so a batch answers exactly as separate runs would.
 */
export function createThumbnailer(
  ffmpegPath: string,
  opts: { windowMs?: number; maxBatch?: number; timeoutMs?: number; maxBytes?: number } = {},
): (location: string) => Promise<Buffer> {
  const windowMs = opts.windowMs ?? 20;
  const maxBatch = opts.maxBatch ?? 8;
  const single = { timeoutMs: opts.timeoutMs ?? 60_000, maxBytes: opts.maxBytes ?? 10 * 1024 * 1024 };
  type Waiter = { location: string; resolve: (b: Buffer) => void; reject: (e: unknown) => void };
  let waiting: Waiter[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const batch = waiting;
    waiting = [];
    const alone = (w: Waiter) => firstFrameJpeg(ffmpegPath, w.location, single).then(w.resolve, w.reject);
    if (batch.length === 1) {
      void alone(batch[0]!);
      return;
    }
    firstFramesJpeg(
      ffmpegPath,
      batch.map((w) => w.location),
      { ...single, timeoutMs: single.timeoutMs * batch.length },
    ).then(
      (jpegs) => {
        for (const [i, w] of batch.entries()) w.resolve(jpegs[i]!);
      },
      () => {
        for (const w of batch) void alone(w);
      },
    );
  };
  return (location) =>
    new Promise<Buffer>((resolve, reject) => {
      waiting.push({ location, resolve, reject });
      if (waiting.length >= maxBatch) flush();
      else timer ??= setTimeout(flush, windowMs);
    });
}
