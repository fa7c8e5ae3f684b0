import { scaleOutSuite } from './scale-out';

jest.setTimeout(600_000);

scaleOutSuite(async () => ({ label: 'single Redis, direct Postgres' }));
