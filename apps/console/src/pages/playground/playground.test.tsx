import { fireEvent, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { apiError, fakeApi, renderAt } from '../../../test/render';
import { PlaygroundPage } from './Playground';

beforeEach(() => {
  window.localStorage.setItem('mediagate.lang', 'en');
});

const model = (id: string, more: object) => ({
  object: 'model',
  id,
  endpoints: [],
  duration_seconds: null,
  resolution: null,
  silent_price_usd: null,
  sizes: [],
  max_n: 1,
  max_input_images: 0,
  needs_image: false,
  ...more,
});
const MODELS = [
  model('wan2.6-i2v-flash-5s-720p', {
    type: 'video',
    unit: 'task',
    price_usd: 0.25,
    silent_price_usd: 0.125,
    duration_seconds: 5,
    resolution: '720P',
    needs_image: true,
    max_input_images: 1,
  }),
  model('seedream-4.0', {
    type: 'image',
    unit: 'image',
    price_usd: 0.03,
    sizes: ['1K', '2K', '1024x1024'],
    max_n: 15,
    max_input_images: 14,
  }),
  model('qwen-image-edit', {
    type: 'image',
    unit: 'image',
    price_usd: 0.045,
    max_n: 4,
    max_input_images: 3,
    needs_image: true,
  }),
];
const UPLOAD_URL = 'https://gw.example/media/uploads/upl_abcdefghijklmnopqrstuvwxyz012345.png';
const download = (n: number) =>
  `/console/api/playground/images/download?url=https%3A%2F%2Fimg.example%2F${n}.png&exp=1800086400&sig=s${n}`;
const IMAGES = {
  created: 1_800_000_000,
  data: [
    { url: 'https://img.example/1.png', download_url: download(1) },
    { url: 'https://img.example/2.png', download_url: download(2) },
  ],
  requested: 2,
  delivered: 2,
};

/** The page over a fake API: the catalog, and what each playground route answers. */
function open(answers: Record<string, { status: number; body?: unknown }> = {}) {
  const calls = fakeApi((method, path) => {
    if (path === '/console/api/models') return { status: 200, body: { object: 'list', data: MODELS } };
    if (path === '/console/api/quickstart')
      return {
        status: 200,
        body: {
          base_url: 'https://gw.example/v1',
          docs_url: 'https://gw.example/docs',
          test_credit_usd: 0.05,
          connectivity_check: null,
          cheapest_video_usd: 0.125,
        },
      };
    const answer = answers[`${method} ${path}`];
    if (answer) return answer;
    if (path === '/console/api/playground/uploads')
      return { status: 200, body: { object: 'list', data: [] } };
    return { status: 404 };
  });
  renderAt('/console/playground', [{ path: '/console/playground', element: <PlaygroundPage /> }]);
  return calls;
}

const png = (name = 'photo.png') =>
  new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])], name, { type: 'image/png' });
const pick = (file: File, index = 0) => {
  const input = document.querySelectorAll<HTMLInputElement>('input[type=file]')[index]!;
  fireEvent.change(input, { target: { files: [file] } });
};
const images = async () => {
  fireEvent.click(await screen.findByText('Images'));
  await screen.findByText('Number of images');
};

describe('the playground for images', () => {
  it('prices n images before sending, sends n and size, shows each image with a download, and the call as code', async () => {
    const calls = open({ 'POST /console/api/playground/images/generations': { status: 200, body: IMAGES } });
    await images();
    fireEvent.change(screen.getByLabelText('Number of images'), { target: { value: '2' } });
    await screen.findByText('This call costs $0.06');
    expect(screen.getByText('2 images at $0.03 each; only the images delivered are charged.')).toBeTruthy();
    fireEvent.mouseDown(screen.getByLabelText('Size'));
    fireEvent.click(await screen.findByTitle('2K'));
    fireEvent.change(screen.getByLabelText('Prompt'), { target: { value: 'two foxes in the snow' } });
    fireEvent.click(screen.getByRole('button', { name: 'Generate for $0.06' }));
    const shown = await screen.findAllByAltText(/^Generated image/);
    expect(shown.map((i) => (i as HTMLImageElement).src)).toEqual(IMAGES.data.map((d) => d.url));
    // Download goes through the API's link on this origin (a browser opens another origin's image)
    const downloads = screen.getAllByTestId('playground-image-download') as HTMLAnchorElement[];
    expect(downloads.map((a) => a.getAttribute('href'))).toEqual([download(1), download(2)]);
    expect(downloads.every((a) => !a.getAttribute('target'))).toBe(true);
    const sent = calls.find((c) => c.path === '/console/api/playground/images/generations');
    expect(sent?.body).toEqual({ model: 'seedream-4.0', prompt: 'two foxes in the snow', n: 2, size: '2K' });
    const curl = screen.getByTestId('snippet-playground-curl').textContent ?? '';
    expect(curl).toContain('https://gw.example/v1/images/generations');
    expect(curl).toContain('"n":2');
    expect(curl).toContain('"size":"2K"');
    expect(curl).toContain('$MEDIAGATE_API_KEY');
  });

  it('edits a chosen file through the multipart form, and asks for the file an edit model needs', async () => {
    const calls = open({ 'POST /console/api/playground/images/edits': { status: 200, body: IMAGES } });
    await images();
    fireEvent.mouseDown(screen.getByLabelText('Model'));
    fireEvent.click(await screen.findByTitle('qwen-image-edit · $0.045 per image'));
    await screen.findByText('Image to edit');
    // a size is not offered to a model that keeps the input's size
    expect(screen.queryByLabelText('Size')).toBeNull();
    fireEvent.change(screen.getByLabelText('Prompt'), { target: { value: 'a scarf on the fox' } });
    fireEvent.click(screen.getByRole('button', { name: 'Generate for $0.045' }));
    await screen.findByText('This model edits an image: choose one first.');
    expect(calls.some((c) => c.path.includes('/playground/images/'))).toBe(false);
    // a file of another kind is refused before anything is sent
    pick(new File(['hello'], 'notes.txt', { type: 'text/plain' }));
    await screen.findByText('This file is not a PNG, JPEG or WebP image.');
    pick(png('fox.png'));
    await screen.findByText('Chosen: fox.png');
    fireEvent.click(screen.getByRole('button', { name: 'Generate for $0.045' }));
    await screen.findAllByAltText(/^Generated image/);
    const sent = calls.find((c) => c.path === '/console/api/playground/images/edits');
    const form = String(sent?.body);
    expect(form).toMatch(/name="image"/);
    expect(form).toMatch(/name="model"\r\n\r\nqwen-image-edit/);
    expect(form).toMatch(/name="prompt"\r\n\r\na scarf on the fox/);
    expect(screen.getByTestId('snippet-playground-curl').textContent).toContain("-F 'image=@fox.png'");
  });

  it('downloads an image answered inline as its own data: URL', async () => {
    open({
      'POST /console/api/playground/images/generations': {
        status: 200,
        body: { created: 1_800_000_000, data: [{ b64_json: 'iVBORw0KGgo=' }], requested: 1, delivered: 1 },
      },
    });
    await images();
    fireEvent.change(screen.getByLabelText('Prompt'), { target: { value: 'a fox' } });
    fireEvent.click(screen.getByRole('button', { name: 'Generate for $0.03' }));
    const link = (await screen.findByTestId('playground-image-download')) as HTMLAnchorElement;
    expect(link.getAttribute('href')).toBe('data:image/png;base64,iVBORw0KGgo=');
    expect(link.getAttribute('download')).toBe('image-1800000000-1.png');
  });

  it('shows the API’s refusal in words (402)', async () => {
    open({
      'POST /console/api/playground/images/generations': apiError(
        402,
        'insufficient_quota',
        'Your balance is too low.',
      ),
    });
    await images();
    fireEvent.change(screen.getByLabelText('Prompt'), { target: { value: 'a fox' } });
    fireEvent.click(screen.getByRole('button', { name: 'Generate for $0.03' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/balance/i);
    expect(screen.queryByAltText(/^Generated image/)).toBeNull();
  });
});

describe('the playground for videos', () => {
  it('says before sending that the balance does not cover the price, with the way to top up', async () => {
    open({ 'GET /console/api/balance': { status: 200, body: { balance_usd: 0.05, balance_micro_usd: 50_000 } } });
    await screen.findByText('This call costs $0.25');
    await screen.findByText(/Your balance of \$0\.05 does not cover it/);
    expect(screen.getByRole('link', { name: 'Top up' }).getAttribute('href')).toBe('/console/topup');
    // an image at $0.03 is covered
    await images();
    await screen.findByText('This call costs $0.03');
    expect(screen.queryByText(/does not cover it/)).toBeNull();
  });

  it('uploads the input image and sends its URL as img_url', async () => {
    const calls = open({
      'POST /console/api/playground/uploads': {
        status: 200,
        body: {
          object: 'playground.upload',
          id: 'upl_abcdefghijklmnopqrstuvwxyz012345',
          url: UPLOAD_URL,
          content_type: 'image/png',
          bytes: 8,
          expires_at: 1_800_086_400,
        },
      },
      'POST /console/api/playground/videos': {
        status: 200,
        body: { id: 'video_1', object: 'video', status: 'pending', progress: 0 },
      },
    });
    await screen.findByText('Choose an image');
    pick(png('harbour.png'));
    await screen.findByTestId('playground-uploaded');
    const uploaded = calls.find((c) => c.method === 'POST' && c.path === '/console/api/playground/uploads');
    // (jsdom's File reaches Node's FormData without its name and bytes: the browser test checks those)
    expect(String(uploaded?.body)).toMatch(/name="file"/);
    fireEvent.change(screen.getByLabelText('Prompt'), { target: { value: 'a lantern floats up' } });
    fireEvent.click(screen.getByRole('button', { name: 'Generate for $0.25' }));
    await waitFor(() => expect(calls.some((c) => c.path === '/console/api/playground/videos')).toBe(true));
    const sent = calls.find((c) => c.path === '/console/api/playground/videos');
    expect(sent?.body).toMatchObject({ metadata: { input: { img_url: UPLOAD_URL } } });
  });

  it('takes a URL instead, and says what an upload refused means', async () => {
    const calls = open({
      'POST /console/api/playground/uploads': apiError(
        429,
        'rate_limit_exceeded',
        'This account has uploaded 30 images in the last day.',
        'file',
      ),
      'POST /console/api/playground/videos': {
        status: 200,
        body: { id: 'video_2', object: 'video', status: 'pending', progress: 0 },
      },
    });
    await screen.findByText('Choose an image');
    pick(png());
    expect((await screen.findByRole('alert')).textContent).toMatch(/wait|later|limit/i);
    // without an image the form does not send
    fireEvent.change(screen.getByLabelText('Prompt'), { target: { value: 'a lantern floats up' } });
    fireEvent.click(screen.getByRole('button', { name: 'Generate for $0.25' }));
    await screen.findByText('Give the image the video starts from.');
    fireEvent.click(screen.getByText('URL'));
    fireEvent.change(screen.getByLabelText('Image URL'), {
      target: { value: 'https://example.com/frame.png' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Generate for $0.25' }));
    await waitFor(() => expect(calls.some((c) => c.path === '/console/api/playground/videos')).toBe(true));
    expect(calls.find((c) => c.path === '/console/api/playground/videos')?.body).toMatchObject({
      metadata: { input: { img_url: 'https://example.com/frame.png' } },
    });
  });
});

const UPLOADS = {
  object: 'list',
  data: [
    {
      object: 'playground.upload',
      id: 'upl_abcdefghijklmnopqrstuvwxyz012345',
      url: UPLOAD_URL,
      content_type: 'image/png',
      bytes: 2_621_440,
      expires_at: 1_800_086_400,
      created_at: 1_800_000_000,
    },
  ],
};

describe('the uploaded images', () => {
  it('lists them with their size, puts one in the form again, and sends its URL as img_url', async () => {
    const calls = open({
      'GET /console/api/playground/uploads': { status: 200, body: UPLOADS },
      'POST /console/api/playground/videos': {
        status: 200,
        body: { id: 'video_3', object: 'video', status: 'pending', progress: 0 },
      },
    });
    const item = await screen.findByTestId('playground-upload');
    expect(item.textContent).toContain('2.5 MB');
    fireEvent.click(screen.getByRole('button', { name: /^Use in the form/ }));
    await screen.findByText('Using an image you uploaded earlier.');
    fireEvent.change(screen.getByLabelText('Prompt'), { target: { value: 'a lantern floats up' } });
    fireEvent.click(screen.getByRole('button', { name: 'Generate for $0.25' }));
    await waitFor(() => expect(calls.some((c) => c.path === '/console/api/playground/videos')).toBe(true));
    expect(calls.find((c) => c.path === '/console/api/playground/videos')?.body).toMatchObject({
      metadata: { input: { img_url: UPLOAD_URL } },
    });
    // nothing uploaded again
    expect(calls.some((c) => c.method === 'POST' && c.path === '/console/api/playground/uploads')).toBe(
      false,
    );
  });

  it('deletes one after a confirmation, reads the list again, and lets the form go of it', async () => {
    let kept = UPLOADS;
    const calls = fakeApi((method, path) => {
      if (path === '/console/api/models') return { status: 200, body: { object: 'list', data: MODELS } };
      if (method === 'GET' && path === '/console/api/playground/uploads') return { status: 200, body: kept };
      if (method === 'DELETE' && path === `/console/api/playground/uploads/${UPLOADS.data[0]!.id}`) {
        kept = { object: 'list', data: [] };
        return {
          status: 200,
          body: { id: UPLOADS.data[0]!.id, object: 'playground.upload.deleted', deleted: true },
        };
      }
      return { status: 404 };
    });
    renderAt('/console/playground', [{ path: '/console/playground', element: <PlaygroundPage /> }]);
    await screen.findByTestId('playground-upload');
    fireEvent.click(screen.getByRole('button', { name: /^Use in the form/ }));
    await screen.findByText('Using an image you uploaded earlier.');
    fireEvent.click(screen.getByRole('button', { name: /^Delete: / }));
    await screen.findByText('Delete this uploaded image?');
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    await screen.findByText('No uploaded images are kept.');
    expect(calls.filter((c) => c.method === 'DELETE')).toHaveLength(1);
    // the form lets go of the deleted image: it asks for one again
    await waitFor(() => expect(screen.queryByText('Using an image you uploaded earlier.')).toBeNull());
  });

  it('speaks Chinese', async () => {
    window.localStorage.setItem('mediagate.lang', 'zh');
    open({ 'GET /console/api/playground/uploads': { status: 200, body: UPLOADS } });
    await screen.findByTestId('playground-upload');
    expect(screen.getByText('已上传的图片')).toBeTruthy();
    expect(screen.getByRole('button', { name: /^填入表单/ })).toBeTruthy();
  });
});
