import { IMAGE_MODELS } from '../catalog/image-models';
import { InvalidInputError } from '../errors';
import { checkImageRef, isBase64, probeImageSize, sniffImageType, uploadToDataUrl } from './image-input';

const png = (w: number, h: number) => {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(w, 16);
  b.writeUInt32BE(h, 20);
  return b;
};
const jpeg = (w: number, h: number) =>
  Buffer.from([
    0xff,
    0xd8,
    0xff,
    0xe0,
    0x00,
    0x04,
    0x00,
    0x00,
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    h >> 8,
    h & 255,
    w >> 8,
    w & 255,
    3,
    0,
    0,
    0,
    0,
  ]);
const webp = (w: number, h: number) => {
  const b = Buffer.alloc(30);
  b.write('RIFF', 0, 'latin1');
  b.write('WEBPVP8X', 8, 'latin1');
  b.writeUIntLE(w - 1, 24, 3);
  b.writeUIntLE(h - 1, 27, 3);
  return b;
};
const edit = IMAGE_MODELS.find((m) => m.id === 'qwen-image-edit')!.input;
const dataUrl = (b: Buffer, type = 'image/png') => `data:${type};base64,${b.toString('base64')}`;
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof InvalidInputError ? `invalid_input:${err.param}:${err.message}` : String(err);
  }
  return 'ok';
};

describe('image inputs', () => {
  it('recognizes formats and reads their size from the header', () => {
    expect(probeImageSize(png(640, 480), sniffImageType(png(640, 480))!)).toEqual({
      width: 640,
      height: 480,
    });
    expect(sniffImageType(jpeg(1, 1))).toBe('jpeg');
    expect(probeImageSize(jpeg(800, 600), 'jpeg')).toEqual({ width: 800, height: 600 });
    expect(probeImageSize(webp(1000, 500), sniffImageType(webp(1000, 500))!)).toEqual({
      width: 1000,
      height: 500,
    });
    expect(sniffImageType(Buffer.from('%PDF-1.7 hello world, this is not an image'))).toBeUndefined();
  });

  it('accepts http(s) URLs and image data URLs within the rules', () => {
    expect(checkImageRef('https://example.com/a.png', edit, 'image')).toBe('https://example.com/a.png');
    expect(code(() => checkImageRef(dataUrl(png(1024, 768)), edit, 'image'))).toBe('ok');
    expect(code(() => checkImageRef(dataUrl(jpeg(500, 500), 'image/jpg'), edit, 'image'))).toBe('ok');
  });

  it.each([
    ['ftp://example.com/a.png', /image\[1\] must be an http\(s\) URL/],
    ['not a url', /must be an http\(s\) URL/],
    [dataUrl(Buffer.from('plain text, not an image at all..')), /is not a JPEG, PNG, WebP or BMP image/],
    [dataUrl(png(100, 500)), /100x500: each side must be at least 384 px/],
    [dataUrl(png(4000, 3000)), /each side must be at most 3072 px/],
    [dataUrl(png(500, 500), 'image/jpeg'), /says image\/jpeg but holds image\/png/],
    ['data:image/png;base64,@@@', /not valid base64/],
  ])('refuses %s with an invalid-input error naming the field', (ref, message) => {
    expect(code(() => checkImageRef(ref, edit, 'image[1]'))).toMatch(/^invalid_input:image\[1\]:/);
    expect(code(() => checkImageRef(ref, edit, 'image[1]'))).toMatch(message);
  });

  it('reads base64 as /^[A-Za-z0-9+/]*={0,2}$/ does', () => {
    const samples = [
      '',
      '=',
      '==',
      '===',
      'QQ',
      'QQ=',
      'QQ==',
      'QQ===',
      'Q=Q',
      '=QQ',
      'ab+/09AZ',
      'ab-_',
      'ab cd',
      'abc\n',
      'abc\u00e9',
      'abc\u{1F600}',
      'abc\u0141',
      'QQ\u013d\u013d',
      'ab\ud800',
      '\u00ff',
      '@@@',
      png(512, 512).toString('base64'),
      `${png(512, 512).toString('base64')}!`,
    ];
    for (const s of samples) expect([s, isBase64(s)]).toEqual([s, /^[A-Za-z0-9+/]*={0,2}$/.test(s)]);
  });

  it('turns an uploaded image into a data URL and refuses anything else', () => {
    expect(uploadToDataUrl(png(512, 512), edit, 'image')).toBe(dataUrl(png(512, 512)));
    expect(code(() => uploadToDataUrl(Buffer.from('hello'), edit, 'image[0]'))).toMatch(
      /image\[0\] is not a JPEG/,
    );
    const big = Buffer.concat([png(512, 512), Buffer.alloc(10 * 1024 * 1024)]);
    expect(code(() => uploadToDataUrl(big, edit, 'image'))).toMatch(/the limit is 10485760 bytes/);
  });
});
