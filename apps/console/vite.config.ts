import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// The console is served by the API on the same origin (the session is an HttpOnly cookie), so
// the dev server proxies the API routes to a running API (CONSOLE_API_URL, default :8080).
const api = process.env.CONSOLE_API_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    outDir: 'dist',
    manifest: true,
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 1500,
  },
  server: {
    proxy: Object.fromEntries(
      ['/console/api', '/admin/api', '/admin/queues', '/v1', '/media', '/openapi.json', '/payments'].map(
        (p) => [p, api],
      ),
    ),
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}', 'test/**/*.test.{ts,tsx}'],
    setupFiles: ['test/setup.ts'],
    reporters: ['default', './test/count-reporter.ts'],
    testTimeout: 30_000,
  },
});
