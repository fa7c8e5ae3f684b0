import { defaultCatalog } from './index';

describe('video catalog', () => {
  it('has exactly the public video ids of the spec', () => {
    const ids = defaultCatalog()
      .models.filter((m) => m.kind === 'video')
      .map((m) => m.id)
      .sort();
    expect(ids).toEqual(
      [
        'wan2.5-i2v-flash-10s-1080p',
        'wan2.5-i2v-flash-10s-720p',
        'wan2.5-i2v-flash-5s-1080p',
        'wan2.5-i2v-flash-5s-720p',
        'wan2.6-i2v-flash-10s-1080p',
        'wan2.6-i2v-flash-10s-720p',
        'wan2.6-i2v-flash-15s-1080p',
        'wan2.6-i2v-flash-15s-720p',
        'wan2.6-i2v-flash-5s-1080p',
        'wan2.6-i2v-flash-5s-720p',
      ].sort(),
    );
  });
  it('maps families to the upstream models', () => {
    const c = defaultCatalog();
    expect(c.video('wan2.5-i2v-flash-5s-720p')?.upstreamModel).toBe('wan2.5-i2v-preview');
    expect(c.video('wan2.6-i2v-flash-15s-1080p')?.upstreamModel).toBe('wan2.6-i2v-flash');
  });
});
