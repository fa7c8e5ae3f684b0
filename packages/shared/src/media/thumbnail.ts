import { spawn } from 'node:child_process';

/**
 * The first frame of the video at `location` (a file path or URL ffmpeg can read), as a JPEG no
 * wider than 1280 px. Rejects when ffmpeg is missing, fails, or takes longer than `timeoutMs`.
 */
export function firstFrameJpeg(
  ffmpegPath: string,
  location: string,
  opts: { timeoutMs?: number; maxBytes?: number } = {},
): Promise<Buffer> {
  const maxBytes = opts.maxBytes ?? 10 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const child = spawn(
      ffmpegPath,
      [
        '-nostdin',
        '-loglevel',
        'error',
        '-i',
        location,
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
        'pipe:1',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('ffmpeg timed out'));
    }, opts.timeoutMs ?? 60_000);
    child.stdout.on('data', (b: Buffer) => {
      size += b.length;
      if (size > maxBytes) child.kill('SIGKILL');
      else chunks.push(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      if (stderr.length < 2_000) stderr += b.toString();
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0 && size > 0 && size <= maxBytes) resolve(Buffer.concat(chunks));
      else reject(new Error(`ffmpeg exited with ${code}: ${stderr.trim().slice(0, 300)}`));
    });
  });
}
