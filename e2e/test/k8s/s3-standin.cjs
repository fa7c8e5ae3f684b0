// Stands in for the trial object store's container (MinIO in deploy/k8s/overlays/example/s3.yaml)
// when the overlay runs as processes: s3rver, an S3-protocol server, on the container's port with
// the root credentials and bucket its environment names, and MinIO's health routes for the probes.
//   node s3-standin.cjs <port> <data dir>
'use strict';
const path = require('node:path');

// s3rver is a dependency of the shared package's tests
const from = { paths: [path.join(__dirname, '..', '..', '..', 'packages', 'shared')] };
const S3rver = require(require.resolve('s3rver', from));
const Account = require(require.resolve('s3rver/lib/models/account', from));

const [port, dir] = process.argv.slice(2);
const { MINIO_ROOT_USER, MINIO_ROOT_PASSWORD, S3_BUCKET } = process.env;
if (!MINIO_ROOT_USER || !MINIO_ROOT_PASSWORD || !S3_BUCKET) {
  process.stderr.write('MINIO_ROOT_USER, MINIO_ROOT_PASSWORD and S3_BUCKET are required\n');
  process.exit(1);
}
// the root credentials sign requests, as MinIO's root user's do
Account.DUMMY_ACCOUNT.createKeyPair(MINIO_ROOT_USER, MINIO_ROOT_PASSWORD);
const server = new S3rver({
  address: '0.0.0.0',
  port: Number(port),
  directory: dir,
  silent: true,
  // path-style only: the Service's name is no bucket
  vhostBuckets: false,
  configureBuckets: [{ name: S3_BUCKET }],
});
server.middleware.unshift(async (ctx, next) => {
  if (ctx.path === '/minio/health/live' || ctx.path === '/minio/health/ready') {
    ctx.status = 200;
    return;
  }
  await next();
});
server.run().then(
  () => process.stderr.write(`s3 stand-in listening on ${port}\n`),
  (err) => {
    process.stderr.write(`s3 stand-in failed: ${err.message}\n`);
    process.exit(1);
  },
);
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
